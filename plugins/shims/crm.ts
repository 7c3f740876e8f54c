/**
 * `crm`: contacts, deals and notes. Deals move through a pipeline whose allowed transitions are enforced
 * (`conflict` otherwise); fields listed in `protected_fields` (say `email`, `consent_marketing`) cannot be
 * changed by the agent (`permission_denied`); every note is kept, so a scenario can assert what was logged.
 */
import { defineShim, shimError, type Json, type ShimOutcome } from '../../core/shim.ts';
import { indexOf, matchesAll, nextId, replaced, type Row } from './shared/records.ts';

interface Contact extends Row {
  name: string;
}

interface Deal extends Row {
  contact_id: string;
  stage: string;
  amount: number;
}

interface Note extends Row {
  contact_id: string;
  text: string;
  at: string;
}

export interface CrmState {
  [key: string]: Json;
  contacts: Contact[];
  deals: Deal[];
  notes: Note[];
  protected_fields: string[];
  counters: { [prefix: string]: number };
}

/** The sales pipeline: from each stage, where a deal may go next. */
const TRANSITIONS: Record<string, string[]> = {
  lead: ['qualified', 'lost'],
  qualified: ['proposal', 'lost'],
  proposal: ['negotiation', 'won', 'lost'],
  negotiation: ['won', 'lost'],
  won: [],
  lost: ['lead'],
};

export default defineShim<CrmState>({
  name: 'crm',
  // Calls stay on the request thread; a worker loads it to replay gold solutions (core/shim.ts).
  replayModule: import.meta.url,
  description: 'A CRM: find and update contacts, move deals through the sales pipeline, log notes.',
  initialStateSchema: {
    type: 'object',
    properties: {
      contacts: { type: 'array', items: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } } },
      deals: { type: 'array', items: { type: 'object', required: ['id', 'contact_id', 'stage'], properties: { id: { type: 'string' }, contact_id: { type: 'string' }, stage: { enum: Object.keys(TRANSITIONS) }, amount: { type: 'number' } } } },
      protected_fields: { type: 'array', items: { type: 'string' } },
    },
    additionalProperties: false,
  },
  actions: [
    { name: 'find_contacts', description: 'Contacts whose fields contain every word of the query.', readOnly: true, parameters: { type: 'object', required: ['query'], properties: { query: { type: 'string', maxLength: 500 } }, additionalProperties: false } },
    { name: 'get_contact', description: 'One contact with its deals.', readOnly: true, parameters: { type: 'object', required: ['contact_id'], properties: { contact_id: { type: 'string' } }, additionalProperties: false } },
    {
      name: 'update_contact', description: 'Change fields of a contact (protected fields are refused).',
      parameters: { type: 'object', required: ['contact_id', 'fields'], properties: { contact_id: { type: 'string' }, fields: { type: 'object', minProperties: 1, maxProperties: 50, propertyNames: { pattern: '^[a-z][a-z0-9_]{0,63}$' } } }, additionalProperties: false },
    },
    { name: 'update_deal_stage', description: `Move a deal to another stage (${Object.keys(TRANSITIONS).join(', ')}); only the pipeline's transitions are allowed.`, parameters: { type: 'object', required: ['deal_id', 'stage'], properties: { deal_id: { type: 'string' }, stage: { enum: Object.keys(TRANSITIONS) } }, additionalProperties: false } },
    { name: 'log_note', description: 'Add a note to a contact.', parameters: { type: 'object', required: ['contact_id', 'text'], properties: { contact_id: { type: 'string' }, text: { type: 'string', minLength: 1, maxLength: 5000 } }, additionalProperties: false } },
  ],
  initialState(seed) {
    const given = (seed ?? {}) as { contacts?: Contact[]; deals?: Array<Partial<Deal> & { id: string; contact_id: string; stage: string }>; protected_fields?: string[] };
    return {
      contacts: given.contacts ?? [],
      deals: (given.deals ?? []).map((deal) => ({ ...deal, amount: deal.amount ?? 0 }) as Deal),
      notes: [],
      protected_fields: given.protected_fields ?? ['id'],
      counters: {},
    };
  },
  call(action, params, state, context): ShimOutcome<CrmState> {
    if (action === 'find_contacts') return { result: { contacts: state.contacts.filter((contact) => matchesAll(String(params.query), Object.values(contact))) }, state };
    if (action === 'update_deal_stage') {
      const index = indexOf(state.deals, params.deal_id);
      if (index < 0) return shimError(state, 'not_found', `no deal "${String(params.deal_id)}"`);
      const deal = state.deals[index];
      const stage = params.stage as string;
      if (!(TRANSITIONS[deal.stage] ?? []).includes(stage)) return shimError(state, 'conflict', `a deal cannot go from ${deal.stage} to ${stage}; allowed: ${(TRANSITIONS[deal.stage] ?? []).join(', ') || 'none'}`);
      const updated = { ...deal, stage };
      return { result: updated, state: { ...state, deals: replaced(state.deals, index, updated) } };
    }
    const index = indexOf(state.contacts, params.contact_id);
    if (index < 0) return shimError(state, 'not_found', `no contact "${String(params.contact_id)}"`);
    const contact = state.contacts[index];
    switch (action) {
      case 'get_contact':
        return { result: { ...contact, deals: state.deals.filter((deal) => deal.contact_id === contact.id) }, state };
      case 'update_contact': {
        const fields = params.fields as Record<string, Json>;
        const locked = Object.keys(fields).filter((field) => field === 'id' || state.protected_fields.includes(field));
        if (locked.length) return shimError(state, 'permission_denied', `protected field(s): ${locked.join(', ')}`);
        const updated = { ...contact, ...fields, id: contact.id } as Contact;
        return { result: updated, state: { ...state, contacts: replaced(state.contacts, index, updated) } };
      }
      case 'log_note': {
        const { id, counters } = nextId(state.counters, 'note', 1);
        const note: Note = { id, contact_id: contact.id, text: String(params.text), at: context.now };
        return { result: note, state: { ...state, counters, notes: [...state.notes, note] } };
      }
      default:
        return shimError(state, 'invalid', `unknown action "${action}"`);
    }
  },
});
