#!/usr/bin/env node
// World shim call overhead (issue 15 "Speed"): what an in-memory shim call adds to a tool round trip, goal
// <= 50 µs median, and the SQL shim's query time, reported.
// Measured on the compiled service (dist/): `world.call(name, args)` of a task world exactly as the engine
// builds it (plugins/evaluation/worlds/world.ts): the tool looked up, the arguments validated against the action's
// JSON Schema, the shim's pure `call`, the RFC 6902 diff of a changed state, and the trace events recorded
// through a real trace writer (buffered, as the engine's are between flushes).
// Baseline, measured in the same run: the same result object returned by a plain async function (the round
// trip with no shim at all). The difference of the medians is what the world adds.
// τ-bench rows (issue 27 "Speed": ≤ 50 µs per tool call for the tau shims; issue 34: the telecom user's too): tau_retail's tools on a database of
// τ-bench's size and shape (tau_telecom's on the release's own, small database) (bench/tau/synthetic-db.mjs; no τ-bench data needed), each also timed as the bare
// function in the same run (the shim's pure `call` on the same state, no world): the difference of the medians
// is the harness's overhead per tool call (lookup, schema check, the call queue, the diff, the trace events).
// AgentDojo rows (issue 35 "Speed": ≤ 50 µs per tool call, as for the other shims): agentdojo_banking's and
// agentdojo_slack's tools on each suite's own environment (catalog/data/agentdojo, the vectors at their defaults),
// each also timed as the bare function (the shim's `call` on the same state: the tool, pydantic-like argument
// checks and the PyYAML-exact output), so the difference is the harness's overhead as for the tau shims.
// Usage: node bench/shim-call.mjs [--calls 20000] [--trials 3] [--only tau|agentdojo]
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { argument, ensureBuilt, fmt, median, numberArgument, importDist, repoRoot } from './lib.mjs';

const CALLS = numberArgument('calls', 20_000);
const TRIALS = numberArgument('trials', 3);
const GOAL_US = 50;

ensureBuilt();
const { createTaskWorld } = await importDist('plugins/evaluation/worlds/world.js');
const { createRegistry } = await importDist('core/registry.js');
const { createTraceWriter, runningSha3 } = await importDist('core/domain/trace.js');
const { BUNDLED_SHIMS } = await importDist('plugins/shims/index.js');
const { tauRetailShim, tauTelecomShim, tauTelecomUserShim, initializeTelecomWorlds } = await importDist('plugins/shims/tau/index.js');
const { syntheticRetailDb } = await import('./tau/synthetic-db.mjs');
const { AGENTDOJO_SUITES, agentdojoScenario, readAgentDojoSuite } = await importDist('plugins/shims/agentdojo/index.js');

const shims = createRegistry('shim', (shim) => shim.name);
for (const shim of BUNDLED_SHIMS) shims.register(shim);
shims.register(tauRetailShim());
shims.register(tauTelecomShim());
shims.register(tauTelecomUserShim());
for (const suite of AGENTDOJO_SUITES) shims.register(suite.shim);

const writer = createTraceWriter({ runId: 'run_bench', append: async () => undefined, now: Date.now, digest: runningSha3() });
const record = (type, data) => {
  const seq = writer.emit(type, { task_id: 't1', agent: null, data });
  if (writer.buffered() > 512) void writer.flush();
  return seq;
};

function scenario(shim, initial) {
  return { id: 'bench', title: 'bench', industry: 'x', use_case: 'x', tags: [], policy_ref: 'x', agent: { adapter: 'scripted' }, topology: [], enabled_shims: [shim], initial_state: { [shim]: initial }, tasks: [{ id: 't1', input: 'x', metrics: [{ id: 'state_match' }] }] };
}

async function world(shim, initial) {
  const built = scenario(shim, initial);
  return createTaskWorld({ shims, scenario: built, task: built.tasks[0], now: '2026-11-24T00:00:00.000Z', record });
}

/** A task takes at most this many tool calls (plugins/evaluation/worlds/world.ts): a fresh world every batch. */
const PER_WORLD = 150;

/**
 * Median microseconds of one call, over `CALLS` calls after a warm-up. `make` builds a fresh task world (not
 * timed) every PER_WORLD calls; `call(world, index)` is one call.
 */
async function timeCalls(make, call) {
  let current;
  for (let index = 0; index < 2000; index++) {
    if (index % PER_WORLD === 0) current = await make();
    const outcome = await call(current, index);
    if (outcome && 'error' in outcome) throw new Error(`the benchmark's call failed: ${JSON.stringify(outcome.error)}`);
  }
  const samples = new Float64Array(CALLS);
  for (let index = 0; index < CALLS; index++) {
    if (index % PER_WORLD === 0) current = await make();
    const start = performance.now();
    await call(current, index);
    samples[index] = (performance.now() - start) * 1000;
  }
  return median([...samples]);
}

const payments = { currency: 'EUR', balances: Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`c${index}`, 1e9])), charges: Array.from({ length: 100 }, (_, index) => ({ id: `ch_${index}`, customer: `c${index}`, amount: 10 })) };
const kv = { entries: Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`flags/f${index}`, index % 2 === 0])) };
const sql = {
  schema: ['CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT, balance REAL)'],
  rows: { customers: Array.from({ length: 1000 }, (_, index) => ({ id: index + 1, name: `Customer ${index}`, city: ['Lisbon', 'Porto', 'Faro'][index % 3], balance: index * 1.5 })) },
};

const tauRetail = syntheticRetailDb();
// exchange_delivered_order_items of each delivered order (odd n): its first item for another available variant.
const exchanges = Array.from({ length: 500 }, (_, k) => {
  const order = tauRetail.orders[`#W${k * 2 + 1}`];
  const line = order.items[0];
  const swap = Object.values(tauRetail.products[line.product_id].variants).find((variant) => variant.available && variant.item_id !== line.item_id);
  return { order_id: order.order_id, item_ids: [line.item_id], new_item_ids: [swap.item_id], payment_method_id: order.payment_history[0].payment_method_id };
});
const address = (index) => ({ address1: `${index} Elm Street`, address2: '', city: 'Springfield', state: 'IL', country: 'USA', zip: '62701' });
// Every write touches another order within a world (a fresh world every PER_WORLD calls), so none is refused.
const tauCases = [
  { action: 'get_order_details', kind: 'read', params: (index) => ({ order_id: `#W${index % 1000}` }) },
  { action: 'get_user_details', kind: 'read', params: (index) => ({ user_id: `user_${index % 500}` }) },
  { action: 'cancel_pending_order', kind: 'write + diff', params: (index) => ({ order_id: `#W${(index % 500) * 2}`, reason: 'no longer needed' }) },
  { action: 'exchange_delivered_order_items', kind: 'write + diff', params: (index) => exchanges[index % 500] },
  { action: 'modify_pending_order_address', kind: 'write + diff', params: (index) => ({ order_id: `#W${(index % 500) * 2}`, ...address(index) }) },
];

// τ-bench telecom (the agent's side): the release's database itself (small: 4 customers, 9 lines, 6 bills).
const tauTelecom = JSON.parse(gunzipSync(readFileSync(join(repoRoot, 'catalog/data/tau-bench/domains/telecom/db.json.gz'))).toString('utf8'));
const telecomCases = [
  { action: 'get_customer_by_phone', kind: 'read', params: (index) => ({ phone_number: `555-123-200${1 + (index % 9)}` }) },
  { action: 'get_bills_for_customer', kind: 'read', params: () => ({ customer_id: 'C1001' }) },
  { action: 'get_data_usage', kind: 'read', params: (index) => ({ customer_id: 'C1001', line_id: `L100${1 + (index % 3)}` }) },
  { action: 'refuel_data', kind: 'write + diff', params: (index) => ({ customer_id: 'C1001', line_id: `L100${1 + (index % 2)}`, gb_amount: 1 + (index % 3) }) },
];

const cases = [
  { label: 'kv.get (read)', shim: 'kv', initial: kv, call: (w, index) => w.call('kv.get', { key: `flags/f${index % 200}` }) },
  { label: 'payments.get_charge (read)', shim: 'payments', initial: payments, call: (w, index) => w.call('payments.get_charge', { charge_id: `ch_${index % 100}` }) },
  { label: 'payments.create_charge (write + diff)', shim: 'payments', initial: payments, call: (w, index) => w.call('payments.create_charge', { customer: `c${index % 100}`, amount: 1 }) },
  { label: 'kv.set (write + diff)', shim: 'kv', initial: kv, call: (w, index) => w.call('kv.set', { key: `flags/f${index % 200}`, value: index }) },
];

const only = process.argv.includes('--only') ? argument('only') : undefined;

/** A suite's environment seed as the engine hands it to the shim: the text, each vector at its default. */
async function agentdojoSeed(suite) {
  const data = await readAgentDojoSuite(join(repoRoot, 'catalog/data/agentdojo'), suite, async (path) => new Uint8Array(readFileSync(path)));
  const scenario = agentdojoScenario(data);
  const seed = scenario.initial_state[`agentdojo_${suite}`];
  return { ...seed, injections: Object.fromEntries(Object.entries(scenario.injection_vectors).map(([name, vector]) => [name, vector.default])) };
}
const agentdojoCases = {
  banking: [
    { action: 'get_balance', kind: 'read', params: () => ({}) },
    { action: 'get_most_recent_transactions', kind: 'read, YAML of 5 models', params: () => ({ n: 5 }) },
    { action: 'get_scheduled_transactions', kind: 'read, YAML', params: () => ({}) },
    { action: 'send_money', kind: 'write + diff', params: (index) => ({ recipient: 'US122000000121212121212', amount: 10 + (index % 50), subject: `bench ${index}`, date: '2022-03-10' }) },
    { action: 'update_scheduled_transaction', kind: 'write + diff', params: (index) => ({ id: 7, amount: 1000 + (index % 50) }) },
  ],
  slack: [
    { action: 'get_channels', kind: 'read', params: () => ({}) },
    { action: 'read_channel_messages', kind: 'read, YAML', params: () => ({ channel: 'general' }) },
    { action: 'send_channel_message', kind: 'write + diff', params: (index) => ({ channel: 'general', body: `bench ${index}` }) },
    { action: 'send_direct_message', kind: 'write + diff', params: (index) => ({ recipient: 'Bob', body: `bench ${index}` }) },
  ],
};

const baseline = async () => ({ result: { key: 'flags/f1', value: true, version: 1 } });
console.log(`shim call overhead: ${CALLS} calls per measurement, median of ${TRIALS} trials`);
const baselineRuns = [];
for (let trial = 0; trial < TRIALS; trial++) baselineRuns.push(await timeCalls(async () => null, () => baseline()));
const baselineUs = median(baselineRuns);
console.log(`  baseline (plain async round trip): ${fmt(baselineUs, 2)} µs`);
let worst = 0;
for (const item of only ? [] : cases) {
  const runs = [];
  for (let trial = 0; trial < TRIALS; trial++) runs.push(await timeCalls(() => world(item.shim, item.initial), item.call));
  const added = median(runs) - baselineUs;
  worst = Math.max(worst, added);
  console.log(`  ${item.label.padEnd(56)} ${fmt(median(runs), 2)} µs median, adds ${fmt(added, 2)} µs (${fmt(median(runs) / baselineUs, 1)}x baseline)`);
}

// τ-bench's retail database at its real size (2.8 MB; a made-up one of the same shape): a write copies the
// changed table's array of references once and the diff walks only the changed records.
const tauContext = { config: {}, now: '2026-11-24T00:00:00.000Z' };
let worstTau = 0;
for (const [name, db, items] of only === 'agentdojo' ? [] : [['tau_retail', tauRetail, tauCases], ['tau_telecom', tauTelecom, telecomCases]]) {
  const tauShim = shims.get(name);
  const tauState = await tauShim.initialState(db, tauContext);
  for (const item of items) {
    const inWorld = [];
    const bare = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      bare.push(await timeCalls(async () => null, (_, index) => tauShim.call(item.action, item.params(index), tauState, tauContext)));
      inWorld.push(await timeCalls(() => world(name, db), (w, index) => w.call(`${name}.${item.action}`, item.params(index))));
    }
    const added = median(inWorld) - median(bare);
    worstTau = Math.max(worstTau, added);
    worst = Math.max(worst, median(inWorld) - baselineUs);
    console.log(`  ${`${name}.${item.action} (${item.kind})`.padEnd(68)} ${fmt(median(inWorld), 2)} µs median in a world, ${fmt(median(bare), 2)} µs the bare function: the harness adds ${fmt(added, 2)} µs`);
  }
}
// τ-bench telecom, the user's side (issue 34 item 3): the simulated user's calls on its device in a world of both
// telecom shims (user_shims: the device), each write followed by the worlds' reconcile (τ²-bench's sync with the
// carrier's line and bills), which is harness work too; the device of the first base task's user (John Smith's
// line, synced), a fresh world every PER_WORLD calls.
const device = only === 'agentdojo' ? undefined : initializeTelecomWorlds(await shims.get('tau_telecom').initialState(tauTelecom, tauContext), [{ env_type: 'user', func_name: 'set_user_info', arguments: { name: 'John Smith', phone_number: '555-123-2002' } }]).user;
const dualWorld = () => {
  const built = { ...scenario('tau_telecom', tauTelecom), enabled_shims: ['tau_telecom', 'tau_telecom_user'], user_shims: ['tau_telecom_user'], initial_state: { tau_telecom: tauTelecom, tau_telecom_user: device } };
  return createTaskWorld({ shims, scenario: built, task: built.tasks[0], now: '2026-11-24T00:00:00.000Z', record });
};
const userCases = [
  { action: 'check_status_bar', kind: 'read', params: () => ({}) },
  { action: 'check_app_permissions', kind: 'read', params: () => ({ app_name: 'messaging' }) },
  { action: 'toggle_airplane_mode', kind: 'write + diff + sync', params: () => ({}) },
  { action: 'set_network_mode_preference', kind: 'write + diff + sync', params: (index) => ({ mode: ['4g_only', '3g_only', '2g_only', '4g_5g_preferred'][index % 4] }) },
  { action: 'grant_app_permission', kind: 'write + diff + sync', params: (index) => ({ app_name: 'browser', permission: ['sms', 'phone'][index % 2] }) },
];
const userShim = shims.get('tau_telecom_user');
const deviceState = only === 'agentdojo' ? undefined : await userShim.initialState(device, tauContext);
let worstUser = 0;
for (const item of only === 'agentdojo' ? [] : userCases) {
  const inWorld = [];
  const bare = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    bare.push(await timeCalls(async () => null, (_, index) => userShim.call(item.action, item.params(index), deviceState, tauContext)));
    inWorld.push(await timeCalls(dualWorld, (w, index) => w.user.call(`tau_telecom_user.${item.action}`, item.params(index))));
  }
  const added = median(inWorld) - median(bare);
  worstUser = Math.max(worstUser, added);
  worstTau = Math.max(worstTau, added);
  console.log(`  ${`tau_telecom_user.${item.action} (${item.kind})`.padEnd(68)} ${fmt(median(inWorld), 2)} µs median in a world, ${fmt(median(bare), 2)} µs the bare function: the harness adds ${fmt(added, 2)} µs`);
}
if (only !== 'agentdojo') console.log(`  telecom, the user's side: the harness adds at most ${fmt(worstUser, 2)} µs median per user tool call (the worlds' sync included) over the bare function (goal <= ${GOAL_US} µs): ${worstUser <= GOAL_US ? 'met' : 'NOT met'}`);
if (only !== 'agentdojo') console.log(`  tau shims: the harness adds at most ${fmt(worstTau, 2)} µs median per tool call over the bare function (goal <= ${GOAL_US} µs): ${worstTau <= GOAL_US ? 'met' : 'NOT met'}`);

// AgentDojo's suites on their own environments: the world's overhead over the shim's own call (bare).
let worstDojo = 0;
for (const [suite, items] of only === 'tau' ? [] : Object.entries(agentdojoCases)) {
  const name = `agentdojo_${suite}`;
  const dojoShim = shims.get(name);
  const seed = await agentdojoSeed(suite);
  const dojoState = await dojoShim.initialState(seed, tauContext);
  for (const item of items) {
    const inWorld = [];
    const bare = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      bare.push(await timeCalls(async () => null, (_, index) => dojoShim.call(item.action, item.params(index), dojoState, tauContext)));
      inWorld.push(await timeCalls(() => world(name, seed), (w, index) => w.call(`${name}.${item.action}`, item.params(index))));
    }
    const added = median(inWorld) - median(bare);
    worstDojo = Math.max(worstDojo, added);
    console.log(`  ${`${name}.${item.action} (${item.kind})`.padEnd(64)} ${fmt(median(inWorld), 2)} µs median in a world, ${fmt(median(bare), 2)} µs the bare function: the harness adds ${fmt(added, 2)} µs`);
  }
}
if (only !== 'tau') console.log(`  agentdojo shims: the harness adds at most ${fmt(worstDojo, 2)} µs median per tool call over the bare function (goal <= ${GOAL_US} µs): ${worstDojo <= GOAL_US ? 'met' : 'NOT met'}`);
if (!only) console.log(`  worst in-memory shim: adds ${fmt(worst, 2)} µs median per call (goal <= ${GOAL_US} µs): ${worst <= GOAL_US ? 'met' : 'NOT met'}`);
if (only) process.exit(0);

// The SQL shim executes real SQL on SQLite compiled to WebAssembly: reported, not held to the in-memory goal.
const sqlCases = [
  ['SELECT by primary key', (index) => ({ sql: 'SELECT name, balance FROM customers WHERE id = ?', params: [1 + (index % 1000)] })],
  ['SELECT aggregate over 1,000 rows', () => ({ sql: 'SELECT city, count(*), avg(balance) FROM customers GROUP BY city' })],
];
for (const [label, args] of sqlCases) {
  const runs = [];
  for (let trial = 0; trial < TRIALS; trial++) runs.push(await timeCalls(() => world('sql', sql), (w, index) => w.call('sql.query', args(index))));
  console.log(`  sql.query ${label.padEnd(31)} ${fmt(median(runs), 1)} µs median (reported)`);
}
const writeRuns = [];
for (let trial = 0; trial < TRIALS; trial++) writeRuns.push(await timeCalls(() => world('sql', { ...sql, read_only: false }), (w, index) => w.call('sql.query', { sql: 'UPDATE customers SET balance = balance + 1 WHERE id = ?', params: [1 + (index % 1000)] })));
console.log(`  sql.query UPDATE one row (1,000-row table dumped) ${fmt(median(writeRuns), 1)} µs median (reported)`);

// As the engine runs it: the SQL shim names its module, so each call goes to the offload pool under the shim
// budget, and the worker rebuilds the database from the state (the per-state cache does not cross threads).
const { createWorkerPool } = await importDist('runtime/node/offload.js');
const pool = createWorkerPool({ size: 1, typescript: 'native' });
const pooled = async (initial) => {
  const built = scenario('sql', initial);
  return createTaskWorld({ shims, scenario: built, task: built.tasks[0], now: '2026-11-24T00:00:00.000Z', record, execution: { offload: pool, budgetMs: 2000 } });
};
const pooledRuns = [];
for (let trial = 0; trial < TRIALS; trial++) pooledRuns.push(await timeCalls(() => pooled(sql), (w, index) => w.call('sql.query', { sql: 'SELECT name, balance FROM customers WHERE id = ?', params: [1 + (index % 1000)] })));
console.log(`  sql.query SELECT by primary key, in the worker pool (1,000-row database rebuilt per call) ${fmt(median(pooledRuns), 1)} µs median (reported)`);
await pool.close();
process.exit(0);
