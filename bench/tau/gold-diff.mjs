#!/usr/bin/env node
// What judging a unit by its gold actions adds (issue 27 "Speed": ≤ 10 ms per unit for the retail database):
// per unit, a fresh task world from the initial state, the task's gold actions replayed on it as the engine
// does (plugins/evaluation/worlds/gold-world.ts: a fresh scenario object each time, so nothing is cached across
// units), its views, and the whole-world diff against the agent's final world (core/domain/json-diff.ts) as
// `state_match` runs it (scored inline since the world shares structure: plugins/evaluation/scoring/score-metrics.ts).
// The agent's final worlds are made beforehand by the oracle (its calls are the gold actions) and, for a second
// row, by an agent that also changed one more order than the gold (so the diff reports a path).
//
// Baseline in the same run: the agent's own side of a unit with no gold (a fresh world, the same calls, its
// views), so the ratio shows what the gold judging adds against what a unit already costs. Also printed: what
// copying the unit's world to a metric worker costs (a structured clone of initial, final and expected views,
// what the engine paid per unit before `state_match` was scored inline).
//
// Usage: node bench/tau/gold-diff.mjs [--data <τ-bench data dir>] [--rounds 5] [--split base]
// Without --data (nor AEH_TAU_DATA_DIR), the synthetic database of bench/tau/synthetic-db.mjs with tasks made up
// over it (its size and shape are τ-bench's; the τ-bench data is not needed).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { argument, ensureBuilt, fmt, median, numberArgument, tauDataDir, importDist } from '../lib.mjs';
import { syntheticRetailDb } from './synthetic-db.mjs';

const DATA = argument('data', process.env.AEH_TAU_DATA_DIR);
const ROUNDS = numberArgument('rounds', 5);
const SPLIT = argument('split', 'base');
const GOAL_MS = 10;

ensureBuilt();
const tau = await importDist('plugins/shims/tau/index.js');
const { createTaskWorld } = await importDist('plugins/evaluation/worlds/world.js');
const { goldWorldOf } = await importDist('plugins/evaluation/worlds/gold-world.js');
const { createRegistry } = await importDist('core/registry.js');
const { jsonDifferences } = await importDist('core/domain/json-diff.js');

/** The scenario (the database inline as the initial state) and its source, from τ-bench's data or made up. */
async function load() {
  if (DATA) {
    const data = tauDataDir(DATA);
    const { scenario } = await tau.tauScenario('retail', data, { split: SPLIT });
    const db = await tau.readTauDb(data, 'retail');
    return { scenario: { ...scenario, initial_state: { tau_retail: db } }, source: `τ-bench retail ${SPLIT} split (${DATA})` };
  }
  const db = syntheticRetailDb();
  // Tasks of τ-bench's usual shape: look the user and order up, then one write.
  const tasks = Array.from({ length: 100 }, (_, n) => {
    const pending = `#W${(n * 2) % 1000}`;
    const delivered = `#W${(n * 2 + 1) % 1000}`;
    const order = db.orders[delivered];
    const write = n % 2 === 0
      ? { name: 'tau_retail.cancel_pending_order', arguments: { order_id: pending, reason: 'no longer needed' } }
      : { name: 'tau_retail.return_delivered_order_items', arguments: { order_id: delivered, item_ids: [order.items[0].item_id], payment_method_id: order.payment_history[0].payment_method_id } };
    return { id: `task_${n}`, input: 'Hi', metrics: [{ id: 'state_match' }], expected_actions: [
      { name: 'tau_retail.get_user_details', arguments: { user_id: order.user_id } },
      { name: 'tau_retail.get_order_details', arguments: { order_id: write.arguments.order_id } },
      write,
    ] };
  });
  return { scenario: { id: 'synthetic', title: 'synthetic', industry: 'retail', use_case: 'x', tags: [], policy_ref: 'x', agent: { adapter: 'scripted' }, topology: [], tool_names: 'bare', enabled_shims: ['tau_retail'], initial_state: { tau_retail: db }, tasks }, source: 'synthetic retail database (bench/tau/synthetic-db.mjs), 100 made-up tasks' };
}

const { scenario, source } = await load();
const shims = createRegistry('shim', (shim) => shim.name);
shims.register(tau.tauRetailShim());
const now = '2026-11-24T00:00:00.000Z';
const tasks = scenario.tasks.filter((task) => task.expected_actions?.length);
const bare = (name) => name.slice(name.indexOf('.') + 1);

/** The agent's side of a unit: a fresh world, its calls, its views. */
async function agentUnit(scope, task, extra) {
  const world = await createTaskWorld({ shims, scenario: scope, task, now, record: () => -1 });
  for (const action of task.expected_actions) await world.call(bare(action.name), action.arguments ?? {});
  if (extra) await world.call(extra.name, extra.arguments);
  const views = await world.views();
  world.close();
  return { initial: world.initial, final: views };
}

// An extra write the gold does not make: the last pending order's address.
const initialOrders = Object.values((await agentUnit(scenario, tasks[0])).initial.tau_retail.orders);
const lastPending = initialOrders.filter((order) => order.status === 'pending').at(-1).order_id;
const extra = { name: 'modify_pending_order_address', arguments: { order_id: lastPending, address1: '1 Elm Street', address2: '', city: 'Springfield', state: 'IL', country: 'USA', zip: '62701' } };
const finals = { oracle: [], wrong: [] };
for (const task of tasks) {
  finals.oracle.push(await agentUnit(scenario, task));
  finals.wrong.push(await agentUnit(scenario, task, extra));
}

/** What the gold judging adds per unit: replay on a fresh world (fresh scenario object), views, diff. */
async function goldUnits(kind) {
  const started = performance.now();
  let paths = 0;
  for (const [index, task] of tasks.entries()) {
    const gold = await goldWorldOf(shims, { ...scenario }, task, now);
    if (!gold.expected) throw new Error(`task ${task.id}: ${gold.expectedError}`);
    paths += jsonDifferences(gold.expected, finals[kind][index].final, 1000).length;
  }
  return { ms: (performance.now() - started) / tasks.length, paths };
}

async function agentUnits() {
  const started = performance.now();
  for (const task of tasks) await agentUnit({ ...scenario }, task);
  return (performance.now() - started) / tasks.length;
}

function cloneCost() {
  const started = performance.now();
  const sample = tasks.slice(0, 20);
  for (const [index] of sample.entries()) structuredClone({ initial: finals.oracle[index].initial, final: finals.oracle[index].final, expected: finals.wrong[index].final });
  return (performance.now() - started) / sample.length;
}

await goldUnits('oracle'); // warm-up
await agentUnits();
const rows = { oracle: [], wrong: [], agent: [], clone: [] };
let wrongPaths = 0;
for (let round = 0; round < ROUNDS; round++) {
  rows.agent.push(await agentUnits());
  rows.oracle.push((await goldUnits('oracle')).ms);
  const wrong = await goldUnits('wrong');
  rows.wrong.push(wrong.ms);
  wrongPaths = wrong.paths;
  rows.clone.push(cloneCost());
}
const agentMs = median(rows.agent);
console.log(`gold judging per unit, ${source}: ${tasks.length} tasks with gold actions, median of ${ROUNDS} rounds; load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
console.log(`  baseline: the agent's side of a unit (fresh world, the same calls, its views): ${fmt(agentMs, 3)} ms`);
for (const [kind, label] of [['oracle', 'agent world equal to the gold'], ['wrong', `agent world differing (one order more changed: ${fmt(wrongPaths / tasks.length, 1)} differing paths per unit)`]]) {
  const ms = median(rows[kind]);
  console.log(`  replay on a fresh world + views + whole-world diff, ${label}: ${fmt(ms, 3)} ms per unit (${fmt(ms / agentMs, 2)}x the baseline; goal <= ${GOAL_MS} ms: ${ms <= GOAL_MS ? 'met' : 'NOT met'})`);
}
console.log(`  for comparison, a structured clone of the unit's world (initial, final, expected views; a metric worker's copy): ${fmt(median(rows.clone), 2)} ms per unit`);
process.exit(0);
