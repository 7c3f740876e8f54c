#!/usr/bin/env node
// What the SQL shim adds to SQLite (issues 24 and 25): every `sql.query` call is compiled with EXPLAIN and its
// bytecode read (what kind of statement it is, which table columns it reads), runs with the world's chance and
// clock, inside a savepoint, and logs what it read. Measured on the compiled service (dist/).
// Baseline, measured in the same run on the same database: the same statement through sql.js alone
// (prepare, bind, step through the rows, free), which is what any SQL call costs. Printed: each case's median,
// what the shim adds over the baseline, and the ratio; plus the bytecode reading alone, and a task world's call
// as the engine makes it (the per-world queue included) with the shim inline and in the worker pool (where a
// fresh copy of the state rebuilds its database on every call).
// Usage: node bench/sql-shim.mjs [--calls 5000] [--trials 3]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ensureBuilt, fmt, median, numberArgument, repoRoot } from './lib.mjs';

const CALLS = numberArgument('calls', 5_000);
const TRIALS = numberArgument('trials', 3);

ensureBuilt();
const dist = (path) => import(pathToFileURL(join(repoRoot, 'dist', path)).href);
const { default: sql } = await dist('plugins/shims/sql/shim.js');
const { openWorldDatabase } = await dist('plugins/shims/sql/database.js');
const { compile } = await dist('plugins/shims/sql/program.js');
const { createTaskWorld } = await dist('plugins/evaluation/worlds/world.js');
const { createRegistry } = await dist('core/registry.js');
const { createWorkerPool } = await dist('runtime/node/offload.js');

const context = { config: {}, now: '2026-11-24T00:00:00.000Z' };
const seed = {
  schema: ['CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT, balance REAL, ssn TEXT)', 'CREATE INDEX customers_by_city ON customers (city)'],
  rows: { customers: Array.from({ length: 1000 }, (_, index) => ({ id: index + 1, name: `Customer ${index}`, city: ['Lisbon', 'Porto', 'Faro'][index % 3], balance: index * 1.5, ssn: `${100 + (index % 900)}-00-${1000 + index}` })) },
};
const state = await sql.initialState(seed, context);
// The baseline's own database with the same rows (the shim's cache may close the databases it stops using).
const { db } = await openWorldDatabase();
for (const statement of state.schema) db.run(statement);
const insert = db.prepare(`INSERT INTO customers (${state.tables.customers.columns.join(', ')}) VALUES (${state.tables.customers.columns.map(() => '?').join(', ')})`);
for (const row of state.tables.customers.rows) insert.run(row);
insert.free();

const statements = [
  ['SELECT by primary key', 'SELECT name, balance FROM customers WHERE id = ?', (index) => [1 + (index % 1000)]],
  ['SELECT through an index, aliased', 'SELECT name AS n, ssn AS b FROM customers WHERE city = ? LIMIT 5', (index) => [['Lisbon', 'Porto', 'Faro'][index % 3]]],
  ['SELECT aggregate over 1,000 rows', 'SELECT city, count(*), avg(balance) FROM customers GROUP BY city', () => []],
];

/** A task's most calls is 200: worlds start again every PER_WORLD calls, and those calls are not timed. */
const PER_WORLD = 150;

/** Median microseconds of one `run(index)` over CALLS calls (each world's first call left out), after a warm-up. */
async function timeCalls(run) {
  for (let index = 0; index < 500; index++) await run(index);
  const samples = [];
  for (let index = 0; index < CALLS; index++) {
    const start = performance.now();
    await run(index);
    if (index % PER_WORLD !== 0) samples.push((performance.now() - start) * 1000);
  }
  return median(samples);
}

async function trials(run) {
  const runs = [];
  for (let trial = 0; trial < TRIALS; trial++) runs.push(await timeCalls(run));
  return median(runs);
}

function plainSqlJs(text, params) {
  const statement = db.prepare(text);
  statement.bind(params);
  const rows = [];
  while (statement.step()) rows.push(statement.get());
  statement.free();
  return rows;
}

console.log(`SQL shim overhead: ${CALLS} calls per measurement, median of ${TRIALS} trials (1,000-row table)`);
for (const [label, text, params] of statements) {
  const baseline = await trials((index) => plainSqlJs(text, params(index)));
  const bytecode = await trials(() => compile(db, text));
  // One call after another on a world, as an agent makes them: each on the state the last one left, whose
  // database is the cached one.
  let current = state;
  const shim = await trials(async (index) => {
    if (index % PER_WORLD === 0) current = state;
    const outcome = await sql.call('query', { sql: text, params: params(index) }, current, context);
    if ('error' in outcome) throw new Error(outcome.error.message);
    current = outcome.state;
  });
  console.log(`  ${label.padEnd(36)} sql.js ${fmt(baseline, 1)} µs, shim ${fmt(shim, 1)} µs: adds ${fmt(shim - baseline, 1)} µs (${fmt(shim / baseline, 2)}x); reading the bytecode alone ${fmt(bytecode, 1)} µs`);
}

// A task world's call, as the engine makes it: the tool looked up, arguments checked, the per-world queue, the
// state diffed and recorded.
const shims = createRegistry('shim', (shim) => shim.name);
shims.register(sql);
const scenario = { id: 'bench', title: 'bench', industry: 'x', use_case: 'x', tags: [], policy_ref: 'x', agent: { adapter: 'scripted' }, topology: [], enabled_shims: ['sql'], initial_state: { sql: seed }, tasks: [{ id: 't1', input: 'x', metrics: [] }] };
const record = () => 0;
async function worldCalls(execution) {
  let world;
  return trials(async (index) => {
    if (index % PER_WORLD === 0) world = await createTaskWorld({ shims, scenario, task: scenario.tasks[0], now: context.now, record, execution });
    const outcome = await world.call('sql.query', { sql: statements[0][1], params: statements[0][2](index) });
    if ('error' in outcome) throw new Error(outcome.error.message);
  });
}
console.log(`  world.call sql.query by primary key, inline            ${fmt(await worldCalls(undefined), 1)} µs median`);
const pool = createWorkerPool({ size: 1, typescript: 'native' });
console.log(`  world.call sql.query by primary key, in the worker pool ${fmt(await worldCalls({ offload: pool, budgetMs: 2000 }), 1)} µs median (database rebuilt per call)`);
await pool.close();
process.exit(0);
