#!/usr/bin/env node
// Console speed with 10,000 runs stored (issue 10: pages render in under 100 ms server-side, paged lists, no
// full scans). The service is built in-process on the embedded `fs` store (the default), so the times are the
// server's own: routing, authentication, the in-process API calls the fragments make, JSX rendering.
// 1. Seeds run records the way the engine leaves them (runs/<id>/run.json through store.setJson, then the run
//    index through the engine's own indexer), plus real evaluations with a trace, sidecars and a certificate.
// 2. Times each console route (the first request, then median and p95 of --iterations requests after a warm-up) at 100 runs and again at
//    10,000, against baselines measured in the same run: GET /healthz (the framework floor), GET /api/v1/runs
//    (the API the runs fragment reads) and a naive listing that reads every run.json (what paging avoids).
// Usage: node bench/console.mjs [--runs 10000] [--iterations 60]
import { join } from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import { argument, BENCH_KEY, ensureBuilt, fmt, freshRoot, median, importDist } from './lib.mjs';

const totalRuns = Number(argument('runs', '10000'));
const iterations = Number(argument('iterations', '60'));
const GOAL_MS = 100;

ensureBuilt();
const { buildNodeApp } = await importDist('runtime/node/start.js');
const { silentLogger } = await importDist('core/capabilities.js');
const { keys } = await importDist('core/domain/runs.js');
const { createRunIndexer } = await importDist('plugins/evaluation/listing/run-index.js');

const root = freshRoot('aeh-bench-console-');
const { app } = await buildNodeApp({ PROJECT_ROOT: root, DASHBOARD_API_KEY: BENCH_KEY }, root, silentLogger);
const services = await app.ready;
const store = services.store;
const headers = { 'x-api-key': BENCH_KEY };
const request = async (path, init = {}) => {
  const response = await app.request(path, { ...init, headers: { ...headers, ...init.headers } });
  const body = await response.text();
  if (response.status !== 200 && response.status !== 202) throw new Error(`${path} answered ${response.status}: ${body.slice(0, 200)}`);
  return body;
};

const SCENARIOS = ['fin-card-dispute-triage', 'hc-chest-pain-triage', 'sec-phishing-triage', 'edu-algebra-tutor', 'ins-fnol-auto-claim'];
const STATUSES = ['succeeded', 'succeeded', 'succeeded', 'failed', 'cancelled'];
const indexer = createRunIndexer(store);
let seeded = 0;

/** A finished run record as the engine writes it (core/domain/runs.ts RunRecord). */
function runRecord(position) {
  const runId = `run_bench_${String(position).padStart(6, '0')}`;
  const status = STATUSES[position % STATUSES.length];
  const scenarioId = SCENARIOS[position % SCENARIOS.length];
  const index = status === 'succeeded' ? Math.round(((position * 37) % 100)) / 100 : 0;
  const compliance = status === 'cancelled' ? null : { status: status === 'failed' ? 'error' : index >= 0.8 ? 'pass' : index >= 0.5 ? 'warning' : 'fail', score: index, policy_ref: 'NIST AI 100-1' };
  const created = new Date(Date.UTC(2026, 0, 1) + position * 60_000).toISOString();
  return {
    run_id: runId, task_id: `task_${runId}`, scenario_id: scenarioId, scenario_title: `Scenario ${scenarioId}`, status,
    created_at: created, started_at: created, finished_at: created,
    dimensions: { safety: null, security: index, reliability: index, fairness: null, explainability: null, privacy: null, resilience: null },
    index, compliance,
    failures: index < 0.8 && status === 'succeeded' ? [{ code: 'LOGIC.TASK_FAILED', metric: 'task_success', task_id: 't1', event_index: 3, severity: 'high', message: 'output does not equal "x"' }] : [],
    trace_file: 'trace.jsonl', certificate_url: `/v1/certificates/${runId}`, verify_url: `/api/v1/verify/${runId}`,
    ...(status === 'failed' ? { error: { code: 'agent_error', message: 'HTTP 502 from the agent' } } : {}),
  };
}

/** Stores runs up to `count`, 32 at a time (the engine's runs are concurrent too). */
async function seedUpTo(count) {
  const started = performance.now();
  while (seeded < count) {
    const batch = [];
    for (let n = 0; n < 32 && seeded < count; n++, seeded++) batch.push(runRecord(seeded));
    await Promise.all(batch.map(async (run) => {
      await store.setJson(keys.run(run.run_id), run);
      await indexer.add(run.run_id);
    }));
  }
  return performance.now() - started;
}

/** Runs a real evaluation (trace, sidecars, certificate) and returns its run id. */
async function realRun(scenarioId) {
  const accepted = JSON.parse(await request('/api/evaluate', { method: 'POST', body: JSON.stringify({ scenario_id: scenarioId }), headers: { 'content-type': 'application/json' } }));
  for (;;) {
    const task = JSON.parse(await request(accepted.status_url));
    if (['succeeded', 'failed', 'cancelled'].includes(task.status)) return accepted.run_id;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function time(path) {
  // The first request reads what no request read before (finished runs' summaries are then remembered).
  const coldStarted = performance.now();
  await request(path);
  const first = performance.now() - coldStarted;
  for (let warm = 0; warm < 4; warm++) await request(path);
  const samples = [];
  for (let n = 0; n < iterations; n++) {
    const started = performance.now();
    await request(path);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { first, p50: median(samples), p95: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.95))] };
}

/** The listing paging avoids: every run.json read to show the newest 25. */
async function naiveScan() {
  const started = performance.now();
  const runKeys = (await store.keys('runs')).filter((key) => key.endsWith('/run.json'));
  const runs = [];
  for (let offset = 0; offset < runKeys.length; offset += 64) runs.push(...(await Promise.all(runKeys.slice(offset, offset + 64).map((key) => store.getJson(key)))));
  runs.sort((a, b) => (a.created_at < b.created_at ? 1 : -1)).slice(0, 25);
  return { ms: performance.now() - started, read: runs.length };
}

async function measure(label, detailRunId, deepCursor) {
  const routes = [
    ['baseline: GET /healthz', '/healthz'],
    ['baseline: GET /api/v1/runs?limit=25', '/api/v1/runs?limit=25'],
    ['console page shell /', '/'],
    ['runs fragment (newest 25)', '/console/fragments/runs'],
    ['runs fragment, status=failed', '/console/fragments/runs?status=failed'],
    ['runs fragment, status+scenario', '/console/fragments/runs?status=succeeded&scenario_id=hc-chest-pain-triage'],
    ...(deepCursor ? [['runs fragment, deep page (cursor)', `/console/fragments/runs?cursor=${deepCursor}`]] : []),
    ['run detail fragment', `/console/fragments/runs/${detailRunId}`],
    ['catalog fragment', '/console/fragments/catalog'],
    ['catalog fragment, q + facet', '/console/fragments/catalog?q=refund&industry=finance'],
  ];
  const results = [];
  for (const [name, path] of routes) results.push({ name, ...(await time(path)) });
  const floor = results[0].p50;
  console.log(`\n${label}`);
  console.log(`${'route'.padEnd(38)} ${'first ms'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'x healthz'.padStart(10)}  goal`);
  for (const result of results) {
    const goal = result.name.startsWith('baseline') ? '' : Math.max(result.p95, result.first) < GOAL_MS ? `ok (<${GOAL_MS})` : `OVER ${GOAL_MS}`;
    console.log(`${result.name.padEnd(38)} ${fmt(result.first, 2).padStart(9)} ${fmt(result.p50, 2).padStart(8)} ${fmt(result.p95, 2).padStart(8)} ${fmt(result.p50 / floor, 1).padStart(10)}  ${goal}`);
  }
  return results;
}

console.log(`console bench: ${totalRuns} runs on the fs store in ${root}, ${iterations} timed requests per route, Node ${process.version}`);
await services.use('catalog').ready();
const seedSmall = await seedUpTo(100);
const detailRunId = await realRun('sec-incident-handoff');
const small = await measure(`with ${seeded + 1} runs stored (seeded in ${fmt(seedSmall)} ms)`, detailRunId);
const seedLarge = await seedUpTo(totalRuns);
const realId = await realRun('nrg-outage-customer-update');
// A cursor 300 pages back: paging must cost the same at any depth.
const page = JSON.parse(await request(`/api/v1/runs?limit=25&cursor=${Buffer.from(`runs:${Math.floor(totalRuns / 2)}`).toString('base64').replace(/=+$/, '')}`));
const large = await measure(`with ${seeded + 2} runs stored (seeded ${fmt(totalRuns - 100)} more in ${fmt(seedLarge)} ms)`, realId, page.next_cursor);
const scans = [];
for (let n = 0; n < 3; n++) scans.push(await naiveScan());
console.log(`\nnaive listing (read every run.json, sort, keep 25): median ${fmt(median(scans.map((scan) => scan.ms)), 0)} ms over ${scans[0].read} runs`);

console.log('\nrunning time at 10,000 runs / at 100 runs (p50): paging through the index keeps the lists flat');
for (const [position, result] of large.entries()) {
  const before = small.find((entry) => entry.name === result.name);
  if (before) console.log(`  ${result.name.padEnd(36)} x${fmt(result.p50 / before.p50, 2)}`);
}
const over = large.filter((result) => !result.name.startsWith('baseline') && Math.max(result.p95, result.first) >= GOAL_MS);
console.log(over.length ? `\nGOAL MISSED: ${over.map((result) => result.name).join(', ')}` : `\nGOAL MET: every console route under ${GOAL_MS} ms (first request and p95) with ${seeded} runs`);
console.log(`load average ${loadavg().map((value) => value.toFixed(1)).join(' ')} on ${availableParallelism()} cores`);
await app.close();
