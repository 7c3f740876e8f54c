/**
 * `tau_telecom`: the agent's side of τ²-bench's telecom domain (tau2-bench a2c0247, `domains/telecom/tools.py`):
 * a mobile carrier's plans, customers, lines, bills and devices, and the customer-service tools its agent works
 * with, under τ-bench's names, with its results and refusals. The state is the database as τ-bench's own hash
 * sees it (pydantic's `model_dump()` of `db.toml` in JSON, dates through `str()`: `2025-01-20 14:30:00`), shipped
 * as the telecom folder's `db.json` by bench/tau/reference_driver.py --dump-db. Today is τ-bench's fixed
 * 2025-02-25. The user's device, which the simulated user acts on with tools of their own, is the second world,
 * `tau_telecom_user` (telecom-user.ts), kept in step with this one by its `reconcile`.
 */
import type { Json } from '../../../core/shim.ts';
import { TRANSFER_ACTION, fail, objectSchema, pyFloatString, roundMoney, runAction, table, type JsonObject } from './shared.ts';
import { defineTauShim, type DbLoader, type TauShimDefinition } from './define.ts';
import { TELECOM_CHECKS } from './telecom-checks.ts';

interface Plan extends JsonObject { plan_id: string; data_limit_gb: number; price_per_month: number; data_refueling_price_per_gb: number }
interface Customer extends JsonObject { customer_id: string; full_name: string; date_of_birth: string; phone_number: string; line_ids: string[]; bill_ids: string[] }
interface Line extends JsonObject { line_id: string; phone_number: string; status: string; plan_id: string; data_used_gb: number; data_refueling_gb: number; roaming_enabled: boolean }
interface LineItem extends JsonObject { description: string; amount: number; date: string; item_type: string }
interface Bill extends JsonObject { bill_id: string; customer_id: string; issue_date: string; total_due: number; line_items: LineItem[]; status: string }

/** τ-bench's telecom database, its tables as lists (as its pydantic model keeps them). */
export interface TelecomDb extends JsonObject {
  plans: Plan[];
  customers: Customer[];
  lines: Line[];
  bills: Bill[];
  devices: JsonObject[];
}

const PLANS = table<Plan>('plan_id', 'list');
const CUSTOMERS = table<Customer>('customer_id', 'list');
const LINES = table<Line>('line_id', 'list');
const BILLS = table<Bill>('bill_id', 'list');
const DEVICES = table<JsonObject>('device_id', 'list');

/** τ-bench's telecom today (`utils.get_today`), and its rendering by `str()`. */
export const TELECOM_TODAY = '2025-02-25';

type Params = Record<string, unknown>;
type Outcome = { result: Json; state?: TelecomDb };

const customer = (db: TelecomDb, id: unknown) => CUSTOMERS.get(db.customers, id) ?? fail('not_found', `Customer with ID ${id} not found`);
const line = (db: TelecomDb, id: unknown) => LINES.get(db.lines, id) ?? fail('not_found', `Line with ID ${id} not found`);
const plan = (db: TelecomDb, id: unknown) => PLANS.get(db.plans, id) ?? fail('not_found', `Plan with ID ${id} not found`);
const bill = (db: TelecomDb, id: unknown) => BILLS.get(db.bills, id) ?? fail('not_found', `Bill with ID ${id} not found`);
const device = (db: TelecomDb, id: unknown) => DEVICES.get(db.devices, id) ?? fail('not_found', `Device with ID ${id} not found`);

/** `_get_target_line`: the customer's line, refused when the customer does not own it. */
function targetLine(db: TelecomDb, params: Params): Line {
  const owner = customer(db, params.customer_id);
  if (!owner.line_ids.includes(params.line_id as string)) fail('not_found', `Line ${params.line_id} not found for customer ${params.customer_id}`);
  return line(db, params.line_id);
}

const withLine = (db: TelecomDb, updated: Line): TelecomDb => ({ ...db, lines: LINES.put(db.lines, updated) });

/** A number as Python's f-string prints it: an integral JSON number as an int (as τ-bench receives it), else a float. */
const pyNumber = (value: number) => (Number.isInteger(value) ? String(value) : pyFloatString(value));
/** Python's `f'{value:.2f}'` (the exact binary value rounded half to even). */
const pyFixed2 = (value: number) => roundMoney(value).toFixed(2);
/** A float field of τ-bench's models, printed by Python. */
const pyFloat = pyFloatString;

function getCustomerByPhone(db: TelecomDb, phone: unknown): Outcome {
  for (const candidate of db.customers) {
    if (candidate.phone_number === phone) return { result: candidate };
    for (const lineId of candidate.line_ids) if (line(db, lineId).phone_number === phone) return { result: candidate };
  }
  return fail('not_found', `Customer with phone number ${phone} not found`);
}

function getDetailsById(db: TelecomDb, id: string): Outcome {
  const lookup = ({ L: line, D: device, B: bill, C: customer, P: plan } as Record<string, (db: TelecomDb, id: string) => JsonObject>)[id[0]];
  return lookup ? { result: lookup(db, id) } : fail('invalid', `Unknown ID format or type: ${id}`);
}

function suspendLine(db: TelecomDb, params: Params): Outcome {
  const current = targetLine(db, params);
  if (current.status !== 'Active') fail('conflict', 'Line must be active to suspend');
  const updated: Line = { ...current, status: 'Suspended', suspension_start_date: TELECOM_TODAY };
  return { result: { message: 'Line suspended successfully. $5/month holding fee will apply.', line: updated }, state: withLine(db, updated) };
}

function resumeLine(db: TelecomDb, params: Params): Outcome {
  const current = targetLine(db, params);
  if (current.status !== 'Suspended' && current.status !== 'Pending Activation') fail('conflict', 'Line must be suspended to resume');
  const updated: Line = { ...current, status: 'Active', suspension_start_date: null };
  return { result: { message: 'Line resumed successfully', line: updated }, state: withLine(db, updated) };
}

function getBillsForCustomer(db: TelecomDb, params: Params): Outcome {
  const bills = customer(db, params.customer_id).bill_ids.map((id) => bill(db, id));
  // Python's sorted(..., reverse=True) keeps equal dates in their order; `str` dates sort as dates.
  const newestFirst = bills.map((entry, position) => ({ entry, position })).sort((a, b) => (a.entry.issue_date < b.entry.issue_date ? 1 : a.entry.issue_date > b.entry.issue_date ? -1 : a.position - b.position));
  // Python's [:limit] and JavaScript's slice(0, limit) agree, negative limits included.
  return { result: newestFirst.map(({ entry }) => entry).slice(0, (params.limit as number | undefined) ?? 12) };
}

function sendPaymentRequest(db: TelecomDb, params: Params): Outcome {
  const owner = customer(db, params.customer_id);
  if (owner.bill_ids.some((id) => bill(db, id).status === 'Awaiting Payment')) fail('conflict', 'A bill is already awaiting payment for this customer');
  if (!owner.bill_ids.includes(params.bill_id as string)) fail('not_found', `Bill ${params.bill_id} not found for customer ${params.customer_id}`);
  const current = bill(db, params.bill_id);
  return { result: `Payment request sent to the customer for bill ${current.bill_id}`, state: { ...db, bills: BILLS.put(db.bills, { ...current, status: 'Awaiting Payment' }) } };
}

/** The last day (`YYYY-MM-DD`) of month `month` (1-12) of `year`; month 0 is the December before. */
function monthEnd(year: number, month: number): string {
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}
const addDays = (isoDate: string, days: number) => new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * `_apply_one_time_charge`: a charge (or credit) on the customer's first draft bill, or on a new one for next
 * month, whose id τ-bench draws at random (`B` and 8 hex digits of a uuid4), as here.
 */
function applyOneTimeCharge(db: TelecomDb, customerId: string, amount: number, description: string): TelecomDb {
  const owner = customer(db, customerId);
  let draft: Bill | undefined;
  for (const id of owner.bill_ids) {
    const candidate = bill(db, id);
    if (candidate.status === 'Draft') {
      draft = candidate;
      break;
    }
  }
  let next = db;
  if (!draft) {
    const [year, month] = TELECOM_TODAY.split('-').map(Number);
    const start = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
    const [startYear, startMonth] = start.split('-').map(Number);
    const id = `B${crypto.randomUUID().replaceAll('-', '').slice(0, 8)}`;
    draft = { bill_id: id, customer_id: customerId, period_start: start, period_end: monthEnd(startYear, startMonth), issue_date: start, total_due: 0, due_date: addDays(start, 14), line_items: [], status: 'Draft' };
    next = { ...db, bills: [...db.bills, draft], customers: CUSTOMERS.put(db.customers, { ...owner, bill_ids: [...owner.bill_ids, id] }) };
  }
  const item: LineItem = { description, amount, date: TELECOM_TODAY, item_type: amount < 0 ? 'Credit' : 'Charge' };
  return { ...next, bills: BILLS.put(next.bills, { ...draft, line_items: [...draft.line_items, item], total_due: draft.total_due + amount }) };
}

function refuelData(db: TelecomDb, params: Params): Outcome {
  const current = targetLine(db, params);
  const amount = params.gb_amount as number;
  if (amount <= 0) fail('invalid', 'Refuel amount must be positive');
  const price = plan(db, current.plan_id).data_refueling_price_per_gb;
  const charge = amount * price;
  const updated: Line = { ...current, data_refueling_gb: current.data_refueling_gb + amount };
  const next = applyOneTimeCharge(withLine(db, updated), params.customer_id as string, charge, `Data refueling: ${pyNumber(amount)} GB at $${pyFloat(price)}/GB`);
  return { result: { message: `Successfully added ${pyNumber(amount)} GB of data for line ${params.line_id} for $${pyFixed2(charge)}`, new_data_refueling_gb: updated.data_refueling_gb, charge }, state: next };
}

function setRoaming(db: TelecomDb, params: Params, enabled: boolean): Outcome {
  const current = targetLine(db, params);
  const word = enabled ? 'enabled' : 'disabled';
  if (current.roaming_enabled === enabled) return { result: `Roaming was already ${word}` };
  return { result: `Roaming ${word} successfully`, state: withLine(db, { ...current, roaming_enabled: enabled }) };
}

const ACTIONS: Record<string, (db: TelecomDb, params: Params) => Outcome> = {
  get_customer_by_phone: (db, params) => getCustomerByPhone(db, params.phone_number),
  get_customer_by_id: (db, params) => ({ result: customer(db, params.customer_id) }),
  get_customer_by_name: (db, params) => ({
    result: db.customers.filter((candidate) => candidate.full_name.toLowerCase() === (params.full_name as string).toLowerCase() && candidate.date_of_birth === params.dob),
  }),
  get_details_by_id: (db, params) => getDetailsById(db, params.id as string),
  suspend_line: suspendLine,
  resume_line: resumeLine,
  get_bills_for_customer: getBillsForCustomer,
  send_payment_request: sendPaymentRequest,
  get_data_usage: (db, params) => {
    const current = targetLine(db, params);
    const limit = plan(db, current.plan_id).data_limit_gb;
    const [year, month] = TELECOM_TODAY.split('-').map(Number);
    return { result: { line_id: params.line_id as string, data_used_gb: current.data_used_gb, data_limit_gb: limit, data_refueling_gb: current.data_refueling_gb, cycle_end_date: monthEnd(year, month) } };
  },
  enable_roaming: (db, params) => setRoaming(db, params, true),
  disable_roaming: (db, params) => setRoaming(db, params, false),
  transfer_to_human_agents: () => ({ result: 'Transfer successful' }),
  refuel_data: refuelData,
};

/**
 * The functions of τ-bench's telecom toolkit that are not the agent's tools: what a task's initialization
 * actions on the agent's side (`env_type: "assistant"`) run before the conversation. Each returns the new
 * database, or throws a `Refusal` with τ-bench's message.
 */
export const TELECOM_ENV_FUNCTIONS: Record<string, (db: TelecomDb, params: Params) => TelecomDb> = {
  set_data_usage: (db, params) => withLine(db, { ...targetLine(db, params), data_used_gb: params.data_used_gb as number }),
  suspend_line_for_overdue_bill: suspendLineForOverdueBill,
  enable_roaming: (db, params) => setRoaming(db, params, true).state ?? db,
  disable_roaming: (db, params) => setRoaming(db, params, false).state ?? db,
  refuel_data: (db, params) => refuelData(db, params).state ?? db,
};

function suspendLineForOverdueBill(db: TelecomDb, params: Params): TelecomDb {
  const current = line(db, params.line_id);
  if (current.status !== 'Active') fail('conflict', 'Line must be active to suspend for unpaid bill');
  const amount = plan(db, current.plan_id).price_per_month;
  if (amount <= 0) fail('invalid', 'Amount must be positive for overdue bill');
  const owner = customer(db, params.customer_id);
  if (owner.bill_ids.some((id) => bill(db, id).status === 'Overdue')) fail('conflict', 'Customer already has an overdue bill');
  const [year, month] = TELECOM_TODAY.split('-').map(Number);
  const lastMonthEnd = monthEnd(year, month - 1);
  const lastMonthStart = `${lastMonthEnd.slice(0, 8)}01`;
  const billId = params.new_bill_id as string;
  const overdue: Bill = {
    bill_id: billId, customer_id: params.customer_id as string, period_start: lastMonthStart, period_end: lastMonthEnd, issue_date: lastMonthStart, total_due: amount,
    due_date: addDays(lastMonthStart, 14), line_items: [{ description: `Charge for line ${current.line_id}`, amount, date: TELECOM_TODAY, item_type: 'Charge' }], status: 'Overdue',
  };
  const suspended: Line = { ...current, status: 'Suspended', suspension_start_date: TELECOM_TODAY, ...(params.contract_ended ? { contract_end_date: lastMonthEnd } : {}) };
  return withLine({ ...db, bills: [...db.bills, overdue], customers: CUSTOMERS.put(db.customers, { ...owner, bill_ids: [...owner.bill_ids, billId] }) }, suspended);
}

/** Runs a task's initialization actions on the agent's side (the user's are the device's) on `db`, in order. */
export function initializeTelecomDb(db: TelecomDb, calls: ReadonlyArray<{ env_type: string; func_name: string; arguments?: Params }>): TelecomDb {
  let next = db;
  for (const call of calls) {
    if (call.env_type !== 'assistant') continue;
    const run = TELECOM_ENV_FUNCTIONS[call.func_name] ?? fail('invalid', `Function ${call.func_name} not found in assistant tools`);
    next = run(next, call.arguments ?? {});
  }
  return next;
}

const ID = (what: string) => ({ type: 'string', description: `ID of the ${what}.` });
const LINE_PARAMS = (what: string) => ({ customer_id: { type: 'string', description: 'ID of the customer who owns the line.' }, line_id: { type: 'string', description: `ID of the line to ${what}.` } });
const OWNED_LINE = (what: string) => objectSchema(['customer_id', 'line_id'], LINE_PARAMS(what));

/**
 * The shim's definition but for its loader, built once per process: its schemas are then the same objects in every
 * app, whose validators core/validate.ts keeps by object (built anew per app, ajv compiled them at every start:
 * most of a test app's build, issue 36).
 */
const TELECOM: Omit<TauShimDefinition<TelecomDb>, 'load'> = {
  name: 'tau_telecom',
  domain: 'telecom',
  tables: { plans: PLANS, customers: CUSTOMERS, lines: LINES, bills: BILLS, devices: DEVICES } as never,
  checks: TELECOM_CHECKS,
  initialize: initializeTelecomDb,
  description: "τ-bench telecom, the agent's side: a mobile carrier's plans, customers, lines, bills and devices, with τ-bench's customer-service tools (look up customers, lines and bills, suspend or resume a line, send a payment request, roaming, data refueling).",
  actions: [
    { name: 'get_customer_by_phone', description: 'Finds a customer by their primary contact or line phone number.', readOnly: true, parameters: objectSchema(['phone_number'], { phone_number: { type: 'string', description: 'The phone number to search for.' } }) },
    { name: 'get_customer_by_id', description: 'Retrieves a customer directly by their unique ID.', readOnly: true, parameters: objectSchema(['customer_id'], { customer_id: { type: 'string', description: 'The unique identifier of the customer.' } }) },
    { name: 'get_customer_by_name', description: 'Searches for customers by name and DOB. May return multiple matches if names are similar, DOB helps disambiguate.', readOnly: true, parameters: objectSchema(['full_name', 'dob'], { full_name: { type: 'string', description: 'The full name of the customer.' }, dob: { type: 'string', description: 'Date of birth for verification, in the format YYYY-MM-DD.' } }) },
    { name: 'get_details_by_id', description: 'Retrieves the details for a given ID. The ID must be a valid ID for a Customer, Line, Device, Bill, or Plan.', readOnly: true, parameters: objectSchema(['id'], { id: { type: 'string', description: 'The ID of the object to retrieve.' } }) },
    { name: 'suspend_line', description: 'Suspends a specific line (max 6 months). Checks: Line status must be Active. Logic: Sets line status to Suspended, records suspension_start_date.', parameters: objectSchema(['customer_id', 'line_id', 'reason'], { ...LINE_PARAMS('suspend'), reason: { type: 'string', description: 'Reason for suspension.' } }) },
    { name: 'resume_line', description: 'Resumes a suspended line. Checks: Line status must be Suspended or Pending Activation. Logic: Sets line status to Active, clears suspension_start_date.', parameters: OWNED_LINE('resume') },
    { name: 'get_bills_for_customer', description: "Retrieves a list of the customer's bills, most recent first.", readOnly: true, parameters: objectSchema(['customer_id'], { customer_id: ID('customer'), limit: { type: 'integer', default: 12, description: 'Maximum number of bills to return.' } }) },
    { name: 'send_payment_request', description: 'Sends a payment request to the customer for a specific bill. Checks: - Customer exists - Bill exists and belongs to the customer - No other bills are already awaiting payment for this customer Logic: Sets bill status to AWAITING_PAYMENT and notifies customer. Warning: This method does not check if the bill is already PAID. Always check the bill status before calling this method.', parameters: objectSchema(['customer_id', 'bill_id'], { customer_id: { type: 'string', description: 'ID of the customer who owns the bill.' }, bill_id: { type: 'string', description: 'ID of the bill to send payment request for.' } }) },
    { name: 'get_data_usage', description: 'Retrieves current billing cycle data usage for a line, including data refueling amount, data limit, and cycle end date.', readOnly: true, parameters: OWNED_LINE('check usage for') },
    { name: 'enable_roaming', description: 'Enables international roaming on a line.', parameters: OWNED_LINE('enable roaming for') },
    { name: 'disable_roaming', description: 'Disables international roaming on a line.', parameters: OWNED_LINE('disable roaming for') },
    TRANSFER_ACTION,
    { name: 'refuel_data', description: "Refuels data for a specific line, adding to the customer's bill. Checks: Line status must be Active, Customer owns the line. Logic: Adds data to the line and charges customer based on the plan's refueling rate.", parameters: objectSchema(['customer_id', 'line_id', 'gb_amount'], { ...LINE_PARAMS('refuel data for'), gb_amount: { type: 'number', description: 'Amount of data to add in gigabytes.' } }) },
  ],
  run: (action, params, db) => runAction(db, () => ACTIONS[action]?.(db, params) ?? fail('invalid', `Tool '${action}' not found.`)),
};

/** Builds the `tau_telecom` shim; `load` gives the database when a scenario sets no `initial_state.tau_telecom`. */
export function tauTelecomShim(load?: DbLoader) {
  return defineTauShim<TelecomDb>({ ...TELECOM, load });
}
