/**
 * What ties τ²-bench's two telecom worlds together (tau2-bench a2c0247, `domains/telecom/environment.py`,
 * `TelecomEnvironment.sync_tools`, which its orchestrator runs after every step): the phone follows the carrier's
 * line (active or not, roaming allowed, data used past the plan), a bill the agent asks payment for becomes the
 * user's payment request, and a request the user paid makes the bill paid at the carrier. Also a task's
 * initialization on both sides, in order, each function followed by a sync (`Environment.set_state`).
 */
import { fail, table, type JsonObject } from './shared.ts';
import { TELECOM_ENV_FUNCTIONS, type TelecomDb } from './telecom.ts';
import { defaultUserDb, editable, type TelecomUserDb } from './telecom-device.ts';
import { USER_ENV_FUNCTIONS } from './telecom-user-env.ts';

const LINES = table<JsonObject>('line_id', 'list');
const PLANS = table<JsonObject>('plan_id', 'list');
const BILLS = table<JsonObject>('bill_id', 'list');

const bill = (agent: TelecomDb, id: unknown) => BILLS.get(agent.bills, id) ?? fail('not_found', `Bill with ID ${id} not found`);

/** `get_customer_by_phone`: the first customer whose number, or one of whose lines' numbers, it is. */
function customerByPhone(agent: TelecomDb, phone: string): JsonObject {
  for (const customer of agent.customers) {
    if (customer.phone_number === phone) return customer;
    for (const lineId of customer.line_ids) if (LINES.get(agent.lines, lineId)?.phone_number === phone) return customer;
  }
  return fail('not_found', `Customer with phone number ${phone} not found`);
}

/**
 * `sync_tools`: both worlds after the sync, each the same object when the sync left it as it was. Throws (as
 * the reference raises) when the user's number has no line or the line's plan is unknown.
 */
export function syncTelecom(agent: TelecomDb, user: TelecomUserDb): { agent: TelecomDb; user: TelecomUserDb } {
  const phone = user.surroundings.phone_number;
  if (phone === null || phone === undefined) return { agent, user };
  const line = agent.lines.find((candidate) => candidate.phone_number === phone) ?? fail('invalid', `Line with phone number ${phone} not found`);
  const plan = PLANS.get(agent.plans, line.plan_id) ?? fail('not_found', `Plan with ID ${line.plan_id} not found`);
  const surroundings = { ...user.surroundings };
  surroundings.line_active = line.status === 'Active';
  surroundings.roaming_allowed = Boolean(line.roaming_enabled);
  surroundings.mobile_data_usage_exceeded = line.data_used_gb >= (plan.data_limit_gb as number) + line.data_refueling_gb;
  let nextAgent = agent;
  if (surroundings.payment_request?.paid) {
    const paid = bill(agent, surroundings.payment_request.bill_id);
    nextAgent = { ...agent, bills: BILLS.put(agent.bills, { ...paid, status: 'Paid' }) as TelecomDb['bills'] };
    surroundings.payment_request = null;
  }
  if (!surroundings.payment_request) {
    const customer = customerByPhone(nextAgent, phone);
    const awaiting = (customer.bill_ids as string[]).map((id) => bill(nextAgent, id)).find((candidate) => candidate.status === 'Awaiting Payment');
    if (awaiting) surroundings.payment_request = { bill_id: awaiting.bill_id as string, amount_due: awaiting.total_due as number, paid: false };
  }
  const same = (Object.keys(surroundings) as Array<keyof typeof surroundings>).every((key) => surroundings[key] === user.surroundings[key]);
  return { agent: nextAgent, user: same ? user : { ...user, surroundings } };
}

/** A task's initialization action (`EnvFunctionCall`): a function of either side's toolkit, with its arguments. */
export interface TelecomInitCall { env_type: string; func_name: string; arguments?: Record<string, unknown> }

/**
 * Both worlds after a task's initialization actions, run in order on `agent` and the release's device, each
 * followed by a sync, as `Environment.set_state` runs them (starting, as the environment does, with a sync).
 */
export function initializeTelecomWorlds(agent: TelecomDb, calls: readonly TelecomInitCall[], user: TelecomUserDb = defaultUserDb()): { agent: TelecomDb; user: TelecomUserDb } {
  let worlds = syncTelecom(agent, user);
  for (const call of calls) {
    const params = call.arguments ?? {};
    if (call.env_type === 'assistant') {
      const run = TELECOM_ENV_FUNCTIONS[call.func_name] ?? fail('invalid', `Function ${call.func_name} not found in assistant tools`);
      worlds = { ...worlds, agent: run(worlds.agent, params) };
    } else {
      const run = USER_ENV_FUNCTIONS[call.func_name] ?? fail('invalid', `Function ${call.func_name} not found in user tools`);
      const device = editable(worlds.user);
      run(device, params);
      worlds = { ...worlds, user: device };
    }
    worlds = syncTelecom(worlds.agent, worlds.user);
  }
  return worlds;
}
