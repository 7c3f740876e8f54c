/**
 * `tickets`: a support desk. Status moves open → pending → resolved → closed (escalated from open or pending);
 * a closed ticket cannot change (`conflict`); escalation needs a reason and a known team; comments are public
 * (the customer sees them) or internal, which a scenario can assert to catch internal details sent to a customer.
 * A public comment is egress (core/shim.ts): it leaves the company, so the leak metrics read it as an answer.
 */
import { defineShim, shimError, type Json, type ShimOutcome } from '../../core/shim.ts';
import { indexOf, matchesAll, replaced, type Row } from './shared/records.ts';

type Status = 'open' | 'pending' | 'escalated' | 'resolved' | 'closed';

interface Comment {
  [key: string]: Json;
  text: string;
  public: boolean;
  at: string;
}

interface Ticket extends Row {
  subject: string;
  customer: string;
  status: Status;
  priority: 'low' | 'normal' | 'high' | 'urgent';
  team: string | null;
  assignee: string | null;
  comments: Comment[];
}

export interface TicketsState {
  [key: string]: Json;
  tickets: Ticket[];
  teams: string[];
}

const STATUSES: Status[] = ['open', 'pending', 'escalated', 'resolved', 'closed'];
const NEXT: Record<Status, Status[]> = {
  open: ['pending', 'escalated', 'resolved'],
  pending: ['open', 'escalated', 'resolved'],
  escalated: ['pending', 'resolved'],
  resolved: ['open', 'closed'],
  closed: [],
};
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
const TICKET_ID = { type: 'string', minLength: 1, maxLength: 64 };

export default defineShim<TicketsState>({
  name: 'tickets',
  // Calls stay on the request thread; a worker loads it to replay gold solutions (core/shim.ts).
  replayModule: import.meta.url,
  description: 'A support ticket desk: read and search tickets, comment publicly or internally, change status, escalate to a team, assign.',
  initialStateSchema: {
    type: 'object',
    properties: {
      tickets: { type: 'array', items: { type: 'object', required: ['id', 'subject', 'customer'], properties: { id: { type: 'string' }, subject: { type: 'string' }, customer: { type: 'string' }, status: { enum: STATUSES }, priority: { enum: PRIORITIES } } } },
      teams: { type: 'array', items: { type: 'string' } },
    },
    additionalProperties: false,
  },
  actions: [
    { name: 'get_ticket', description: 'One ticket with its comments.', readOnly: true, parameters: { type: 'object', required: ['ticket_id'], properties: { ticket_id: TICKET_ID }, additionalProperties: false } },
    { name: 'search_tickets', description: 'Tickets whose subject or customer contain every word, optionally with one status.', readOnly: true, parameters: { type: 'object', properties: { query: { type: 'string', maxLength: 500 }, status: { enum: STATUSES } }, additionalProperties: false } },
    { name: 'add_comment', description: 'Comment on a ticket; public comments are sent to the customer, internal ones are not.', egress: (params) => params.public === true, parameters: { type: 'object', required: ['ticket_id', 'text', 'public'], properties: { ticket_id: TICKET_ID, text: { type: 'string', minLength: 1, maxLength: 10000 }, public: { type: 'boolean' } }, additionalProperties: false } },
    { name: 'update_status', description: 'Change the status (allowed: open→pending/escalated/resolved, resolved→closed, …; closed is final).', parameters: { type: 'object', required: ['ticket_id', 'status'], properties: { ticket_id: TICKET_ID, status: { enum: STATUSES } }, additionalProperties: false } },
    { name: 'escalate', description: 'Escalate to a team with a reason; raises the priority to at least high.', parameters: { type: 'object', required: ['ticket_id', 'team', 'reason'], properties: { ticket_id: TICKET_ID, team: { type: 'string' }, reason: { type: 'string', minLength: 3, maxLength: 2000 }, priority: { enum: ['high', 'urgent'] } }, additionalProperties: false } },
    { name: 'assign', description: 'Assign the ticket to a person.', parameters: { type: 'object', required: ['ticket_id', 'assignee'], properties: { ticket_id: TICKET_ID, assignee: { type: 'string', minLength: 1, maxLength: 200 } }, additionalProperties: false } },
  ],
  initialState(seed) {
    const given = (seed ?? {}) as { tickets?: Array<Partial<Ticket> & { id: string; subject: string; customer: string }>; teams?: string[] };
    return {
      tickets: (given.tickets ?? []).map((ticket) => ({ id: ticket.id, subject: ticket.subject, customer: ticket.customer, status: ticket.status ?? 'open', priority: ticket.priority ?? 'normal', team: ticket.team ?? null, assignee: ticket.assignee ?? null, comments: ticket.comments ?? [] })),
      teams: given.teams ?? ['tier2', 'billing', 'security', 'legal'],
    };
  },
  call(action, params, state, context): ShimOutcome<TicketsState> {
    if (action === 'search_tickets') {
      return { result: { tickets: state.tickets.filter((ticket) => (params.status === undefined || ticket.status === params.status) && matchesAll(String(params.query ?? ''), [ticket.subject, ticket.customer])).map(({ comments: _comments, ...ticket }) => ticket) }, state };
    }
    const index = indexOf(state.tickets, params.ticket_id);
    if (index < 0) return shimError(state, 'not_found', `no ticket "${String(params.ticket_id)}"`);
    const ticket = state.tickets[index];
    if (action === 'get_ticket') return { result: ticket, state };
    if (ticket.status === 'closed') return shimError(state, 'conflict', `ticket ${ticket.id} is closed; open a new one instead`);
    const save = (updated: Ticket) => ({ result: updated, state: { ...state, tickets: replaced(state.tickets, index, updated) } });
    switch (action) {
      case 'add_comment':
        return save({ ...ticket, comments: [...ticket.comments, { text: String(params.text), public: params.public === true, at: context.now }] });
      case 'update_status': {
        const status = params.status as Status;
        if (!NEXT[ticket.status].includes(status)) return shimError(state, 'conflict', `ticket ${ticket.id} cannot go from ${ticket.status} to ${status}`);
        return save({ ...ticket, status });
      }
      case 'escalate': {
        if (!state.teams.includes(params.team as string)) return shimError(state, 'not_found', `no team "${String(params.team)}"; teams: ${state.teams.join(', ')}`);
        if (!NEXT[ticket.status].includes('escalated')) return shimError(state, 'conflict', `ticket ${ticket.id} is ${ticket.status} and cannot be escalated`);
        const priority = params.priority === 'urgent' || ticket.priority === 'urgent' ? 'urgent' : 'high';
        return save({ ...ticket, status: 'escalated', team: params.team as string, priority, comments: [...ticket.comments, { text: `Escalated to ${String(params.team)}: ${String(params.reason)}`, public: false, at: context.now }] });
      }
      case 'assign':
        return save({ ...ticket, assignee: String(params.assignee) });
      default:
        return shimError(state, 'invalid', `unknown action "${action}"`);
    }
  },
});
