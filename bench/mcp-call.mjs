#!/usr/bin/env node
// What the MCP endpoint adds to a tool call (issue 15 item 3): the same task world called directly (the way the
// http and openai adapters run the calls the agent asks for) and through its MCP endpoint, in the same run.
// Measured on the compiled service (dist/), in process through `app.fetch` (no sockets: the network is the
// agent's, not the harness's): a JSON-RPC `tools/call` of `kv__get` with the run's bearer token, answered by a
// fresh SDK server and stateless transport per request. A task world takes at most 200 calls, so each batch of
// PER_WORLD calls runs in the next task of a held run.
// Baseline, measured in the same run: `world.call('kv.get', …)` on the same kind of world. The difference of the
// medians is what MCP adds; `GET /healthz` through `app.fetch` is printed as the cost of any request at all.
// Usage: node bench/mcp-call.mjs [--calls 6000] [--trials 3]
import { performance } from 'node:perf_hooks';
import { BENCH_KEY, ensureBuilt, fmt, freshRoot, median, numberArgument, importDist } from './lib.mjs';

const CALLS = numberArgument('calls', 6000);
const TRIALS = numberArgument('trials', 3);
const PER_WORLD = 150;

ensureBuilt();
const { createApp } = await importDist('core/app.js');
const { parseConfig } = await importDist('core/config.js');
const { silentLogger } = await importDist('core/capabilities.js');
const { nodeCapabilities } = await importDist('runtime/node/capabilities.js');
const { nodePlugins } = await importDist('runtime/node/plugins.js');

/** Each task of a held run waits here until the bench has used its world. */
const handed = [];
let notify;
const holding = {
  name: 'bench-holding-agent',
  setup(host) {
    host.agents.register({
      name: 'holding',
      description: 'bench: hands its world over and waits',
      call: (_input, { tools, mcp }) => new Promise((resolve) => {
        handed.push({ tools, mcp, release: () => resolve({ output: 'done' }) });
        notify?.();
      }),
    }, 'bench-holding-agent');
  },
};

const root = freshRoot();
const config = parseConfig({ DASHBOARD_API_KEY: BENCH_KEY, AEH_STORAGE: 'memory', PROJECT_ROOT: root }, root);
const app = createApp(config, [...nodePlugins(), holding], { ...nodeCapabilities(root, silentLogger), logger: silentLogger });
await app.ready;

const entries = Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`flags/f${index}`, index % 2 === 0]));
const taskCount = Math.ceil(((CALLS + 2000) * TRIALS * 2 + 4000) / PER_WORLD) + 2;
const scenario = {
  id: 'bench-mcp', title: 'bench', industry: 'x', use_case: 'x', tags: [], policy_ref: 'x', agent: { adapter: 'holding', timeout_ms: 300_000 }, topology: [],
  enabled_shims: ['kv'], initial_state: { kv: { entries } },
  tasks: Array.from({ length: taskCount }, (_, index) => ({ id: `t${index}`, input: 'x', metrics: [{ id: 'state_match' }] })),
};
const accepted = await app.request('/api/evaluate', { method: 'POST', headers: { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ scenario }) });
if (accepted.status !== 202) throw new Error(`evaluate answered ${accepted.status}: ${await accepted.text()}`);

let current;
/** The next task's world, once the engine has started it. */
async function nextWorld() {
  current?.release();
  if (!handed.length) await new Promise((resolve) => { notify = resolve; });
  notify = undefined;
  current = handed.shift();
  return current;
}

const body = (index) => JSON.stringify({ jsonrpc: '2.0', id: index, method: 'tools/call', params: { name: 'kv__get', arguments: { key: `flags/f${index % 200}` } } });
async function viaMcp(task, index) {
  const response = await app.fetch(new Request(task.mcp.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${task.mcp.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: body(index),
  }));
  const answer = await response.json();
  if (answer.result?.isError || answer.error) throw new Error(`the benchmark's call failed: ${JSON.stringify(answer)}`);
}
async function direct(task, index) {
  const outcome = await task.tools.call('kv.get', { key: `flags/f${index % 200}` });
  if ('error' in outcome) throw new Error(`the benchmark's call failed: ${JSON.stringify(outcome.error)}`);
}

/** Median microseconds of one call over CALLS calls, after a warm-up; a fresh world every PER_WORLD calls. */
async function timeCalls(call) {
  let task;
  for (let index = 0; index < 2000; index++) {
    if (index % PER_WORLD === 0) task = await nextWorld();
    await call(task, index);
  }
  const samples = new Float64Array(CALLS);
  for (let index = 0; index < CALLS; index++) {
    if (index % PER_WORLD === 0) task = await nextWorld();
    const start = performance.now();
    await call(task, index);
    samples[index] = (performance.now() - start) * 1000;
  }
  return median([...samples]);
}

const health = [];
for (let index = 0; index < 5000; index++) {
  const start = performance.now();
  await (await app.fetch(new Request('http://127.0.0.1/healthz'))).text();
  health.push((performance.now() - start) * 1000);
}
console.log(`MCP tool call overhead: ${CALLS} calls per measurement, median of ${TRIALS} trials, in process (no sockets)`);
console.log(`  GET /healthz through app.fetch (any request):   ${fmt(median(health.slice(1000)), 2)} µs`);
const directRuns = [];
const mcpRuns = [];
// Alternated, so that neither gets the warmer process.
for (let trial = 0; trial < TRIALS; trial++) {
  directRuns.push(await timeCalls(direct));
  mcpRuns.push(await timeCalls(viaMcp));
}
const directUs = median(directRuns);
const mcpUs = median(mcpRuns);
console.log(`  kv.get, world.call (the baseline):              ${fmt(directUs, 2)} µs median`);
console.log(`  kv.get, tools/call over MCP through app.fetch:  ${fmt(mcpUs, 2)} µs median, adds ${fmt(mcpUs - directUs, 2)} µs (${fmt(mcpUs / directUs, 1)}x baseline)`);
current?.release();
for (const task of handed) task.release();
await app.close().catch(() => undefined);
process.exit(0);
