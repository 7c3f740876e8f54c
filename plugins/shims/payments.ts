/**
 * `payments`: a payment processor with customer balances, charges, partial refunds and idempotency keys, after
 * Stripe's semantics: a request repeated with the same idempotency key returns the first result and moves no
 * money again; the same key with different parameters is a `conflict`. Amounts are decimal numbers in the
 * account currency, kept as integer minor units so that sums are exact.
 */
import { defineShim, shimError, type Json, type ShimOutcome } from '../../core/shim.ts';
import { fromMinor, indexOf, nextId, replaced, toMinor, type Row } from './shared/records.ts';

interface Charge extends Row {
  customer: string;
  amount_minor: number;
  refunded_minor: number;
  currency: string;
  description: string;
  status: 'succeeded' | 'refunded' | 'partially_refunded';
}

interface Refund extends Row {
  charge_id: string;
  amount_minor: number;
  reason: string;
}

export interface PaymentsState {
  [key: string]: Json;
  currency: string;
  /** Available balance per customer, minor units. */
  balances: { [customer: string]: number };
  charges: Charge[];
  refunds: Refund[];
  /** idempotency key → the request it answered and its result. */
  idempotency: { [key: string]: { request: string; result: Json } };
  counters: { [prefix: string]: number };
}

const AMOUNT = { type: 'number', exclusiveMinimum: 0, maximum: 1e9 };
const IDEMPOTENCY_KEY = { type: 'string', minLength: 1, maxLength: 255 };

function view(charge: Charge): Json {
  return {
    id: charge.id, customer: charge.customer, amount: fromMinor(charge.amount_minor), refunded: fromMinor(charge.refunded_minor),
    currency: charge.currency, description: charge.description, status: charge.status,
  };
}

/** Answers a repeated idempotent request from memory, or runs it and remembers the answer. */
function idempotent(state: PaymentsState, key: string | undefined, request: Json, run: () => ShimOutcome<PaymentsState>): ShimOutcome<PaymentsState> {
  if (key === undefined) return run();
  const fingerprint = JSON.stringify(request);
  const seen = Object.hasOwn(state.idempotency, key) ? state.idempotency[key] : undefined;
  if (seen) {
    if (seen.request !== fingerprint) return shimError(state, 'conflict', `idempotency key "${key}" was used for a different request`);
    return { result: seen.result, state };
  }
  const outcome = run();
  if ('error' in outcome) return outcome;
  return { result: outcome.result, state: { ...outcome.state, idempotency: { ...outcome.state.idempotency, [key]: { request: fingerprint, result: outcome.result } } } };
}

function charge(state: PaymentsState, params: Record<string, unknown>): ShimOutcome<PaymentsState> {
  const customer = params.customer as string;
  const amount = toMinor(params.amount as number);
  if (!Object.hasOwn(state.balances, customer)) return shimError(state, 'not_found', `no customer "${customer}"`);
  if (params.currency !== undefined && params.currency !== state.currency) return shimError(state, 'invalid', `this account settles in ${state.currency}, not ${params.currency}`);
  if (state.balances[customer] < amount) return shimError(state, 'insufficient_funds', `customer "${customer}" has ${fromMinor(state.balances[customer])} ${state.currency} available, less than ${fromMinor(amount)}`);
  const { id, counters } = nextId(state.counters, 'ch', 1000);
  const created: Charge = { id, customer, amount_minor: amount, refunded_minor: 0, currency: state.currency, description: String(params.description ?? ''), status: 'succeeded' };
  return {
    result: view(created),
    state: { ...state, counters, charges: [...state.charges, created], balances: { ...state.balances, [customer]: state.balances[customer] - amount } },
  };
}

function refund(state: PaymentsState, params: Record<string, unknown>): ShimOutcome<PaymentsState> {
  const index = indexOf(state.charges, params.charge_id);
  if (index < 0) return shimError(state, 'not_found', `no charge "${String(params.charge_id)}"`);
  const original = state.charges[index];
  const remaining = original.amount_minor - original.refunded_minor;
  const amount = params.amount === undefined ? remaining : toMinor(params.amount as number);
  if (remaining === 0) return shimError(state, 'conflict', `charge ${original.id} is already fully refunded`);
  if (amount > remaining) return shimError(state, 'invalid', `refund of ${fromMinor(amount)} exceeds the ${fromMinor(remaining)} ${original.currency} left on charge ${original.id}`);
  const { id, counters } = nextId(state.counters, 're', 500);
  const refunded = original.refunded_minor + amount;
  const updated: Charge = { ...original, refunded_minor: refunded, status: refunded === original.amount_minor ? 'refunded' : 'partially_refunded' };
  const created: Refund = { id, charge_id: original.id, amount_minor: amount, reason: String(params.reason ?? '') };
  return {
    result: { id, charge_id: original.id, amount: fromMinor(amount), currency: original.currency, charge_status: updated.status },
    state: {
      ...state, counters, charges: replaced(state.charges, index, updated), refunds: [...state.refunds, created],
      balances: { ...state.balances, [original.customer]: (state.balances[original.customer] ?? 0) + amount },
    },
  };
}

export default defineShim<PaymentsState>({
  name: 'payments',
  // Calls stay on the request thread; a worker loads it to replay gold solutions (core/shim.ts).
  replayModule: import.meta.url,
  description: 'A payment processor: customer balances, charges, full or partial refunds, idempotency keys.',
  initialStateSchema: {
    type: 'object',
    properties: {
      currency: { type: 'string', pattern: '^[A-Z]{3}$' },
      balances: { type: 'object', additionalProperties: { type: 'number', minimum: 0 } },
      charges: { type: 'array', items: { type: 'object', required: ['id', 'customer', 'amount'], properties: { id: { type: 'string' }, customer: { type: 'string' }, amount: AMOUNT, refunded: { type: 'number', minimum: 0 }, description: { type: 'string' } } } },
    },
    additionalProperties: false,
  },
  actions: [
    { name: 'get_charge', description: 'One charge by id.', readOnly: true, parameters: { type: 'object', required: ['charge_id'], properties: { charge_id: { type: 'string' } }, additionalProperties: false } },
    { name: 'list_charges', description: 'A customer\'s charges, oldest first.', readOnly: true, parameters: { type: 'object', required: ['customer'], properties: { customer: { type: 'string' } }, additionalProperties: false } },
    { name: 'get_balance', description: 'A customer\'s available balance.', readOnly: true, parameters: { type: 'object', required: ['customer'], properties: { customer: { type: 'string' } }, additionalProperties: false } },
    {
      name: 'create_charge',
      description: 'Charge a customer. Always pass an idempotency_key: a retried request with the same key is not charged twice.',
      parameters: { type: 'object', required: ['customer', 'amount'], properties: { customer: { type: 'string' }, amount: AMOUNT, currency: { type: 'string' }, description: { type: 'string', maxLength: 500 }, idempotency_key: IDEMPOTENCY_KEY }, additionalProperties: false },
    },
    {
      name: 'refund',
      description: 'Refund a charge, fully (no amount) or partly. Pass an idempotency_key to make retries safe.',
      parameters: { type: 'object', required: ['charge_id'], properties: { charge_id: { type: 'string' }, amount: AMOUNT, reason: { type: 'string', maxLength: 500 }, idempotency_key: IDEMPOTENCY_KEY }, additionalProperties: false },
    },
  ],
  initialState(seed) {
    const given = (seed ?? {}) as { currency?: string; balances?: Record<string, number>; charges?: Array<{ id: string; customer: string; amount: number; refunded?: number; description?: string }> };
    const currency = given.currency ?? 'USD';
    const balances: Record<string, number> = {};
    for (const [customer, balance] of Object.entries(given.balances ?? {})) balances[customer] = toMinor(balance);
    const charges: Charge[] = (given.charges ?? []).map((item) => {
      const refunded = toMinor(item.refunded ?? 0);
      const amount = toMinor(item.amount);
      if (!Object.hasOwn(balances, item.customer)) balances[item.customer] = 0;
      return { id: item.id, customer: item.customer, amount_minor: amount, refunded_minor: refunded, currency, description: item.description ?? '', status: refunded === 0 ? 'succeeded' : refunded >= amount ? 'refunded' : 'partially_refunded' };
    });
    return { currency, balances, charges, refunds: [], idempotency: {}, counters: {} };
  },
  call(action, params, state): ShimOutcome<PaymentsState> {
    switch (action) {
      case 'get_charge': {
        const index = indexOf(state.charges, params.charge_id);
        return index < 0 ? shimError(state, 'not_found', `no charge "${String(params.charge_id)}"`) : { result: view(state.charges[index]), state };
      }
      case 'list_charges':
        return { result: { charges: state.charges.filter((item) => item.customer === params.customer).map(view) }, state };
      case 'get_balance': {
        const customer = params.customer as string;
        if (!Object.hasOwn(state.balances, customer)) return shimError(state, 'not_found', `no customer "${customer}"`);
        return { result: { customer, available: fromMinor(state.balances[customer]), currency: state.currency }, state };
      }
      case 'create_charge': {
        const { idempotency_key: key, ...request } = params;
        return idempotent(state, key as string | undefined, { action, ...request } as Json, () => charge(state, params));
      }
      case 'refund': {
        const { idempotency_key: key, ...request } = params;
        return idempotent(state, key as string | undefined, { action, ...request } as Json, () => refund(state, params));
      }
      default:
        return shimError(state, 'invalid', `unknown action "${action}"`);
    }
  },
  view(state) {
    return {
      currency: state.currency,
      balances: Object.fromEntries(Object.entries(state.balances).map(([customer, minor]) => [customer, fromMinor(minor)])),
      charges: state.charges.map(view),
      refunds: state.refunds.map((item) => ({ id: item.id, charge_id: item.charge_id, amount: fromMinor(item.amount_minor), reason: item.reason })),
    };
  },
});
