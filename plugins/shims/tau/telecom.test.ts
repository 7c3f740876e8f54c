/**
 * `tau_telecom` on the release's telecom database (shipped as catalog/data/tau-bench/domains/telecom/db.json.gz):
 * the conformance suite with a script reaching every tool's success and each refusal τ-bench's tools raise (with
 * τ-bench's messages), τ-bench's fixed today and Python's number printing, and the setup functions tasks run.
 * fidelity.test.ts compares all of it with the reference's own outcomes; this says what they are.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testShim } from '../../../testing/index.ts';
import type { Json, ShimOutcome } from '../../../core/shim.ts';
import { initializeTelecomDb, tauTelecomShim, type TelecomDb } from './telecom.ts';

const DB_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'catalog', 'data', 'tau-bench', 'domains', 'telecom', 'db.json.gz');
const telecomDb = () => JSON.parse(gunzipSync(readFileSync(DB_FILE)).toString('utf8')) as TelecomDb;
const shim = tauTelecomShim();
const result = (outcome: unknown) => (outcome as { result: any }).result;
const message = (outcome: unknown) => (outcome as { error: { message: string } }).error.message;
const says = (text: string) => (outcome: ShimOutcome) => expect(message(outcome)).toBe(text);
const record = (view: Json, table: string, field: string, id: string) => (view as any)[table].find((entry: any) => entry[field] === id);
const JOHN = { customer_id: 'C1001' };

testShim(shim as never, {
  seed: telecomDb(),
  steps: [
    { action: 'get_customer_by_phone', params: { phone_number: '555-123-2002' }, expect: (outcome) => expect(result(outcome).customer_id).toBe('C1001') },
    { action: 'get_customer_by_phone', params: { phone_number: '555-123-2009' }, expect: (outcome) => expect(result(outcome).customer_id).toBe('C1003') },
    { action: 'get_customer_by_phone', params: { phone_number: '555-000-0000' }, error: 'not_found', expect: says('Customer with phone number 555-000-0000 not found') },
    { action: 'get_customer_by_id', params: { customer_id: 'C0000' }, error: 'not_found', expect: says('Customer with ID C0000 not found') },
    { action: 'get_customer_by_name', params: { full_name: 'JOHN smith', dob: '1985-06-15' }, expect: (outcome) => expect(result(outcome).map((entry: any) => entry.customer_id)).toEqual(['C1001']) },
    { action: 'get_customer_by_name', params: { full_name: 'John Smith', dob: '1985-06-16' }, expect: (outcome) => expect(result(outcome)).toEqual([]) },
    { action: 'get_details_by_id', params: { id: 'P1002' }, expect: (outcome) => expect(result(outcome).data_refueling_price_per_gb).toBe(2) },
    { action: 'get_details_by_id', params: { id: 'D1001' }, expect: (outcome) => expect(result(outcome).activation_date).toBe('2025-01-20 14:30:00') },
    { action: 'get_details_by_id', params: { id: 'B0000' }, error: 'not_found', expect: says('Bill with ID B0000 not found') },
    { action: 'get_details_by_id', params: { id: 'x1' }, error: 'invalid', expect: says('Unknown ID format or type: x1') },
    { action: 'get_details_by_id', params: { id: '' }, error: 'invalid', expect: says('Unknown ID format or type: ') },
    // Newest first; Python's slice: a negative limit drops from the end.
    { action: 'get_bills_for_customer', params: JOHN, expect: (outcome) => expect(result(outcome).map((bill: any) => bill.bill_id)).toEqual(['B1003', 'B1002', 'B1001']) },
    { action: 'get_bills_for_customer', params: { ...JOHN, limit: -1 }, expect: (outcome) => expect(result(outcome).map((bill: any) => bill.bill_id)).toEqual(['B1003', 'B1002']) },
    { action: 'get_data_usage', params: { ...JOHN, line_id: 'L1002' }, expect: (outcome) => expect(result(outcome)).toEqual({ line_id: 'L1002', data_used_gb: 8.7, data_limit_gb: 15, data_refueling_gb: 0, cycle_end_date: '2025-02-28' }) },
    { action: 'get_data_usage', params: { ...JOHN, line_id: 'L1004' }, error: 'not_found', expect: says('Line L1004 not found for customer C1001') },
    // Lines: suspend an active one, resume a suspended one, roaming either way (a no-op answers so).
    { action: 'suspend_line', params: { ...JOHN, line_id: 'L1003', reason: 'travel' }, error: 'conflict', expect: says('Line must be active to suspend') },
    {
      action: 'suspend_line', params: { ...JOHN, line_id: 'L1001', reason: 'travel' },
      expect: (outcome, view) => {
        expect(result(outcome).message).toBe('Line suspended successfully. $5/month holding fee will apply.');
        expect(record(view, 'lines', 'line_id', 'L1001')).toMatchObject({ status: 'Suspended', suspension_start_date: '2025-02-25' });
      },
    },
    { action: 'resume_line', params: { ...JOHN, line_id: 'L1001' }, expect: (_, view) => expect(record(view, 'lines', 'line_id', 'L1001')).toMatchObject({ status: 'Active', suspension_start_date: null }) },
    { action: 'resume_line', params: { ...JOHN, line_id: 'L1001' }, error: 'conflict', expect: says('Line must be suspended to resume') },
    { action: 'enable_roaming', params: { ...JOHN, line_id: 'L1002' }, expect: (outcome) => expect(result(outcome)).toBe('Roaming was already enabled') },
    { action: 'disable_roaming', params: { ...JOHN, line_id: 'L1002' }, expect: (outcome, view) => [expect(result(outcome)).toBe('Roaming disabled successfully'), expect(record(view, 'lines', 'line_id', 'L1002').roaming_enabled).toBe(false)] },
    // Refuels: charged on the draft bill, the message in Python's printing (an integral JSON number as an int).
    { action: 'refuel_data', params: { ...JOHN, line_id: 'L1002', gb_amount: 0 }, error: 'invalid', expect: says('Refuel amount must be positive') },
    {
      action: 'refuel_data', params: { ...JOHN, line_id: 'L1002', gb_amount: 1.5 },
      expect: (outcome, view) => {
        expect(result(outcome)).toEqual({ message: 'Successfully added 1.5 GB of data for line L1002 for $3.00', new_data_refueling_gb: 1.5, charge: 3 });
        expect(record(view, 'bills', 'bill_id', 'B1003')).toMatchObject({ total_due: 3, line_items: [{ description: 'Data refueling: 1.5 GB at $2.0/GB', amount: 3, date: '2025-02-25', item_type: 'Charge' }] });
      },
    },
    { action: 'refuel_data', params: { ...JOHN, line_id: 'L1001', gb_amount: 0.125 }, expect: (outcome) => expect(result(outcome).message).toBe('Successfully added 0.125 GB of data for line L1001 for $0.62') },
    // Payment requests: one bill at a time, only the customer's own.
    { action: 'send_payment_request', params: { ...JOHN, bill_id: 'B1004' }, error: 'not_found', expect: says('Bill B1004 not found for customer C1001') },
    { action: 'send_payment_request', params: { ...JOHN, bill_id: 'B1002' }, expect: (outcome, view) => [expect(result(outcome)).toBe('Payment request sent to the customer for bill B1002'), expect(record(view, 'bills', 'bill_id', 'B1002').status).toBe('Awaiting Payment')] },
    { action: 'send_payment_request', params: { ...JOHN, bill_id: 'B1001' }, error: 'conflict', expect: says('A bill is already awaiting payment for this customer') },
    { action: 'transfer_to_human_agents', params: { summary: 'roaming abroad' }, expect: (outcome) => expect(result(outcome)).toBe('Transfer successful') },
  ],
});

describe('shim: tau_telecom', () => {
  it('a refuel for a customer without a draft bill opens one for next month, its id drawn at random as τ-bench draws it', async () => {
    const state = await shim.initialState(telecomDb(), { config: {}, now: '2025-02-25T00:00:00Z' });
    const outcome = await shim.call('refuel_data', { customer_id: 'C1002', line_id: 'L1004', gb_amount: 3 }, state, { config: {}, now: '2025-02-25T00:00:00Z' });
    expect(result(outcome).message).toBe('Successfully added 3 GB of data for line L1004 for $0.30');
    const view = (await shim.view!((outcome as { state: TelecomDb }).state)) as any;
    const added = view.bills.at(-1);
    expect(added).toMatchObject({ customer_id: 'C1002', period_start: '2025-03-01', period_end: '2025-03-31', issue_date: '2025-03-01', due_date: '2025-03-15', status: 'Draft', total_due: 0.30000000000000004 });
    expect(added.bill_id).toMatch(/^B[0-9a-f]{8}$/);
    expect(record(view, 'customers', 'customer_id', 'C1002').bill_ids.at(-1)).toBe(added.bill_id);
  });

  it('tasks\' setup on the agent\'s side: data usage, roaming, an overdue bill that suspends the line', () => {
    const ids = { customer_id: 'C1001', line_id: 'L1002' };
    const db: TelecomDb = initializeTelecomDb(telecomDb(), [
      { env_type: 'user', func_name: 'set_user_info', arguments: { name: 'John Smith' } },
      { env_type: 'assistant', func_name: 'set_data_usage', arguments: { ...ids, data_used_gb: 15.1 } },
      { env_type: 'assistant', func_name: 'suspend_line_for_overdue_bill', arguments: { ...ids, new_bill_id: 'B1234321', contract_ended: true } },
    ]);
    expect(record(db, 'lines', 'line_id', 'L1002')).toMatchObject({ data_used_gb: 15.1, status: 'Suspended', suspension_start_date: '2025-02-25', contract_end_date: '2025-01-31' });
    expect(record(db, 'bills', 'bill_id', 'B1234321')).toEqual({
      bill_id: 'B1234321', customer_id: 'C1001', period_start: '2025-01-01', period_end: '2025-01-31', issue_date: '2025-01-01', total_due: 65, due_date: '2025-01-15',
      line_items: [{ description: 'Charge for line L1002', amount: 65, date: '2025-02-25', item_type: 'Charge' }], status: 'Overdue',
    });
    expect(() => initializeTelecomDb(db, [{ env_type: 'assistant', func_name: 'suspend_line_for_overdue_bill', arguments: { ...ids, new_bill_id: 'B2', contract_ended: false } }])).toThrow('Line must be active to suspend for unpaid bill');
    expect(() => initializeTelecomDb(db, [{ env_type: 'assistant', func_name: 'assert_line_status', arguments: {} }])).toThrow('Function assert_line_status not found in assistant tools');
  });

  it('offers only the toolkit\'s tools to the agent (its setup and assertion functions are not tools)', () => {
    expect(shim.actions.map((action) => action.name).sort()).toEqual(['disable_roaming', 'enable_roaming', 'get_bills_for_customer', 'get_customer_by_id', 'get_customer_by_name', 'get_customer_by_phone', 'get_data_usage', 'get_details_by_id', 'refuel_data', 'resume_line', 'send_payment_request', 'suspend_line', 'transfer_to_human_agents']);
  });
});
