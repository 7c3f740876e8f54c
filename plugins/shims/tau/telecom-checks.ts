/**
 * The env assertions of τ²-bench's telecom toolkit on the agent's side (tau2-bench a2c0247,
 * `domains/telecom/tools.py`, `assert_*`): what a task's gold asserts of the carrier's database once the
 * conversation is over (`world_checks` on `tau_telecom`). Each throws a `Refusal` where the reference raises.
 */
import { fail, type JsonObject } from './shared.ts';

/** The tables the assertions read (telecom.ts's `TelecomDb`, which holds this file's checks). */
type TelecomDb = { customers: JsonObject[]; lines: JsonObject[]; bills: JsonObject[] };

type Params = Record<string, unknown>;

const byId = (rows: readonly JsonObject[], field: string, id: unknown) => rows.find((row) => row[field] === id);
const customer = (db: TelecomDb, id: unknown) => byId(db.customers, 'customer_id', id) ?? fail('not_found', `Customer with ID ${id} not found`);
const bill = (db: TelecomDb, id: unknown) => byId(db.bills, 'bill_id', id) ?? fail('not_found', `Bill with ID ${id} not found`);

/** `_get_target_line`: the customer's line, refused when the customer does not own it. */
function targetLine(db: TelecomDb, params: Params): JsonObject {
  const owner = customer(db, params.customer_id);
  if (!(owner.line_ids as string[]).includes(params.line_id as string)) fail('not_found', `Line ${params.line_id} not found for customer ${params.customer_id}`);
  return byId(db.lines, 'line_id', params.line_id) ?? fail('not_found', `Line with ID ${params.line_id} not found`);
}

/** The agent side's env assertions, by name: true when the carrier's database is as expected. */
export const TELECOM_CHECKS: Record<string, (db: TelecomDb, params: Params) => boolean> = {
  assert_data_refueling_amount: (db, params) => Math.abs((targetLine(db, params).data_refueling_gb as number) - (params.expected_amount as number)) < 1e-6,
  assert_line_status: (db, params) => targetLine(db, params).status === params.expected_status,
  assert_overdue_bill_exists: (db, params) => {
    const owner = customer(db, params.customer_id);
    if (!(owner.bill_ids as string[]).includes(params.overdue_bill_id as string)) fail('not_found', `Overdue bill ${params.overdue_bill_id} not found`);
    if (bill(db, params.overdue_bill_id).status !== 'Overdue') fail('conflict', `Overdue bill ${params.overdue_bill_id} is not overdue`);
    return true;
  },
  // Either the bill is gone or it is paid.
  assert_no_overdue_bill: (db, params) => {
    const found = byId(db.bills, 'bill_id', params.overdue_bill_id);
    return !found || found.status === 'Paid';
  },
};
