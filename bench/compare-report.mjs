#!/usr/bin/env node
// Compare and report speed (issue 17): "the compare of two 1,000-task runs answers in under 200 ms; the HTML
// report of a 1,000-task run renders in under 1 s and opens in Chromium with no errors".
// The service is built in-process on the embedded `fs` store (the default), so the times are the server's own.
// 1. Two real 1,000-task evaluations of one scenario (scripted agent, answers of ~400 characters, a tool call
//    every fifth task); the head answers one task in ten differently, and fails one in twenty.
// 2. Times GET /api/v1/compare (50 changed answers shown, the default, and all of them) and
//    GET /api/v1/runs/:id/report, the first request and the median of --iterations, against baselines measured
//    in the same run: GET /api/v1/runs/:id (the record alone) and reading both raw traces (the bytes a
//    comparison must at least read) for compare; reading the raw trace for the report.
// 3. Opens the report from file:// in Chromium (/usr/bin/chromium, when present): time to `load`, and every
//    console message and page error.
// Usage: node bench/compare-report.mjs [--tasks 1000] [--iterations 20]
import { join } from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { argument, BENCH_KEY, ensureBuilt, fmt, freshRoot, median, importDist } from './lib.mjs';

const tasks = Number(argument('tasks', '1000'));
const iterations = Number(argument('iterations', '20'));
const COMPARE_GOAL_MS = 200;
const REPORT_GOAL_MS = 1000;

ensureBuilt();
const { buildNodeApp } = await importDist('runtime/node/start.js');
const { silentLogger } = await importDist('core/capabilities.js');

const root = freshRoot('aeh-bench-compare-');
const { app } = await buildNodeApp({ PROJECT_ROOT: root, DASHBOARD_API_KEY: BENCH_KEY, AEH_MAX_BODY_BYTES: String(16 * 1024 * 1024) }, root, silentLogger);
await app.ready;
const headers = { 'x-api-key': BENCH_KEY };
const request = async (path, init = {}) => {
  const response = await app.request(path, { ...init, headers: { ...headers, ...init.headers } });
  const body = await response.text();
  if (response.status !== 200 && response.status !== 202) throw new Error(`${path} answered ${response.status}: ${body.slice(0, 200)}`);
  return body;
};

const FILLER = 'The refund policy allows returns within 30 days of delivery when the item is unused and in its original packaging; ';
/** A 1,000-task scenario; `variant` changes one answer in ten and fails one task in twenty. */
function scenario(variant) {
  const replies = {};
  for (let n = 1; n <= tasks; n++) {
    const changed = variant && n % 10 === 0;
    const output = `${changed ? 'Changed: ' : ''}${variant && n % 20 === 0 ? 'no idea' : `ok ${n}`}. ${FILLER.repeat(3)}`;
    replies[`t${n}`] = n % 5 === 0 ? { output, tool_calls: [{ name: 'orders.lookup', arguments: { order: `R-${n}` }, result: { order: `R-${n}`, status: 'delivered', items: 2 } }] } : output;
  }
  return {
    id: 'bench-compare', title: 'Compare bench', industry: 'retail', use_case: 'returns', tags: ['bench'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted', replies }, topology: [], conversation: 'per_task',
    tasks: Array.from({ length: tasks }, (_, position) => ({ id: `t${position + 1}`, input: `Can I return order R-${position + 1}?`, expected: { contains: 'ok' }, metrics: [{ id: 'task_success' }] })),
  };
}

async function evaluate(body) {
  const accepted = JSON.parse(await request('/api/evaluate', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }));
  for (;;) {
    const task = JSON.parse(await request(accepted.status_url));
    if (['succeeded', 'failed', 'cancelled'].includes(task.status)) return accepted.run_id;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function time(name, work, runs = iterations) {
  const coldStarted = performance.now();
  await work();
  const first = performance.now() - coldStarted;
  for (let warm = 0; warm < 2; warm++) await work();
  const samples = [];
  for (let n = 0; n < runs; n++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { name, first, p50: median(samples), max: samples[samples.length - 1] };
}

function print(results, goalMs) {
  console.log(`${'measure'.padEnd(48)} ${'first ms'.padStart(9)} ${'p50 ms'.padStart(8)} ${'max ms'.padStart(8)}  goal`);
  for (const result of results) {
    const goal = result.name.startsWith('baseline') ? '' : Math.max(result.first, result.p50) < goalMs ? `ok (<${goalMs})` : `OVER ${goalMs}`;
    console.log(`${result.name.padEnd(48)} ${fmt(result.first, 1).padStart(9)} ${fmt(result.p50, 1).padStart(8)} ${fmt(result.max, 1).padStart(8)}  ${goal}`);
  }
}

console.log(`compare/report bench: two ${tasks}-task runs on the fs store in ${root}, ${iterations} timed requests each, Node ${process.version}`);
const base = await evaluate({ scenario: scenario(false) });
const head = await evaluate({ scenario: scenario(true) });
const traceBytes = (await request(`/api/v1/runs/${head}/trace`)).length;
console.log(`runs ${base} and ${head}; the head's trace is ${fmt(traceBytes / 1024)} KiB`);

const compare = [
  await time('baseline: GET /api/v1/runs/:id', () => request(`/api/v1/runs/${head}`)),
  await time('baseline: read both raw traces', () => Promise.all([request(`/api/v1/runs/${base}/trace`), request(`/api/v1/runs/${head}/trace`)])),
  await time('GET /api/v1/compare (50 answers shown)', () => request(`/api/v1/compare?base=${base}&head=${head}`)),
  await time('GET /api/v1/compare (all changed answers)', () => request(`/api/v1/compare?base=${base}&head=${head}&answers=1000`)),
];
console.log('\ncompare');
print(compare, COMPARE_GOAL_MS);
console.log(`compare p50 / reading both traces p50: x${fmt(compare[2].p50 / compare[1].p50, 2)}`);

let html = '';
const report = [
  await time('baseline: read the raw trace', () => request(`/api/v1/runs/${head}/trace`), Math.min(iterations, 10)),
  await time('GET /api/v1/runs/:id/report', async () => (html = await request(`/api/v1/runs/${head}/report`)), Math.min(iterations, 10)),
];
console.log('\nreport');
print(report, REPORT_GOAL_MS);
console.log(`report p50 / raw trace p50: x${fmt(report[1].p50 / report[0].p50, 1)}; the report is ${fmt(html.length / 1024)} KiB`);

if (existsSync('/usr/bin/chromium')) {
  const { chromium } = await import('playwright-core');
  const file = join(root, 'report.html');
  writeFileSync(file, html);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const loads = [];
  const messages = [];
  for (let n = 0; n < 3; n++) {
    const page = await browser.newPage();
    page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => messages.push(`pageerror: ${error.message}`));
    const started = performance.now();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    loads.push(performance.now() - started);
    await page.close();
  }
  await browser.close();
  console.log(`\nChromium opens the ${tasks}-task report: load in ${fmt(median(loads), 0)} ms (median of 3); console messages and page errors: ${messages.length ? messages.join(' | ') : 'none'}`);
}

const missed = [...compare.slice(2).filter((result) => Math.max(result.first, result.p50) >= COMPARE_GOAL_MS), ...report.slice(1).filter((result) => Math.max(result.first, result.p50) >= REPORT_GOAL_MS)];
console.log(missed.length ? `\nGOAL MISSED: ${missed.map((result) => result.name).join(', ')}` : `\nGOAL MET: compare under ${COMPARE_GOAL_MS} ms and the report under ${REPORT_GOAL_MS} ms (first request and p50) with ${tasks}-task runs`);
console.log(`load average ${loadavg().map((value) => value.toFixed(1)).join(' ')} on ${availableParallelism()} cores`);
await app.close();
