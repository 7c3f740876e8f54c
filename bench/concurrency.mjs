#!/usr/bin/env node
// Concurrent tasks (issue 15 "Speed"): 400 independent tasks against an HTTP agent that answers in 100 ms, in
// one scenario (`conversation: "per_task"`, concurrency 16), must finish within 1.3x the ideal
// (400 x 100 ms / 16 = 2.5 s) and at least as fast as promptfoo evaluating the same 400 calls through its http
// provider at the same concurrency, measured side by side in this run against the same agent.
// Ours: the real service (`node dist/runtime/node.js`, fs storage), timed from POST /api/evaluate to the run's
// final status, so it includes queueing, metrics (task_success on every answer), the trace, checkpoints and
// certification. promptfoo: `promptfoo eval` (its own process start included, as a user runs it) with
// --max-concurrency 16, no cache, nothing written; promptfoo needs Node >= 22, so it runs on the Node 24 the
// test suite already fetches (scripts/test-node24.mjs), installed once into bench/.scratch/promptfoo.
// Usage: node bench/concurrency.mjs [--tasks 400] [--delay-ms 100] [--concurrency 16] [--rounds 3] [--no-promptfoo]
import { createServer } from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH_KEY, ensureBuilt, fmt, freePort, freshRoot, median, node24, numberArgument, PROMPTFOO_VERSION, promptfooInstall, repoRoot, serviceEnv, spawnProcess, waitForOk } from './lib.mjs';

const TASKS = numberArgument('tasks', 400);
const DELAY_MS = numberArgument('delay-ms', 100);
const CONCURRENCY = numberArgument('concurrency', 16);
const ROUNDS = numberArgument('rounds', 3);
const ideal = (TASKS * DELAY_MS) / CONCURRENCY;

// The agent: answers every POST after DELAY_MS, whatever the client (our http adapter or promptfoo's).
let inFlight = 0;
let peak = 0;
const agent = createServer((request, response) => {
  let raw = '';
  request.on('data', (chunk) => (raw += chunk));
  request.on('end', () => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    setTimeout(() => {
      inFlight--;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ output: 'Your balance is 42 EUR.' }));
    }, DELAY_MS);
  });
});
await new Promise((resolve) => agent.listen(0, '127.0.0.1', resolve));
const agentUrl = `http://127.0.0.1:${agent.address().port}/agent`;

async function runOurs() {
  ensureBuilt();
  const root = freshRoot();
  const port = await freePort();
  const service = spawnProcess(process.execPath, ['dist/runtime/node.js'], {
    env: serviceEnv({ PROJECT_ROOT: root, PORT: String(port), DASHBOARD_API_KEY: BENCH_KEY, AEH_STORAGE: 'fs', AEH_ALLOW_HOSTS: `127.0.0.1:${agent.address().port}`, AEH_RUN_CONCURRENCY: String(CONCURRENCY), NODE_ENV: 'production' }),
  });
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' };
  try {
    await waitForOk(`${base}/healthz`);
    const scenario = {
      id: 'bench-concurrency', title: 'Concurrency bench', industry: 'bench', use_case: 'bench', tags: ['bench'], policy_ref: 'NIST AI 100-1',
      agent: { adapter: 'http', url: agentUrl }, topology: [{ agent: 'Agent', writes: ['out'], reads: ['in'] }],
      conversation: 'per_task', concurrency: CONCURRENCY,
      tasks: Array.from({ length: TASKS }, (_, index) => ({ id: `t${index}`, input: `question ${index}`, expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] })),
    };
    peak = 0;
    const started = performance.now();
    const accepted = await (await fetch(`${base}/api/evaluate`, { method: 'POST', headers, body: JSON.stringify({ scenario }) })).json();
    if (!accepted.run_id) throw new Error(`evaluate refused: ${JSON.stringify(accepted)}`);
    for (;;) {
      const task = await (await fetch(`${base}${accepted.status_url}`, { headers })).json();
      if (['succeeded', 'failed', 'cancelled'].includes(task.status)) {
        if (task.status !== 'succeeded') throw new Error(`the run ended ${task.status}`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { ms: performance.now() - started, peak };
  } finally {
    await service.stop();
  }
}

/** Runs a command to its end without blocking this process (the agent it calls is served from here). */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (status) => resolve({ status, output }));
  });
}

async function runPromptfoo() {
  const binary = node24();
  const { dir, main } = promptfooInstall('main.js');
  const config = join(dir, 'promptfooconfig.json');
  writeFileSync(config, JSON.stringify({
    description: 'concurrency bench',
    prompts: ['{{question}}'],
    providers: [{ id: agentUrl, config: { method: 'POST', headers: { 'content-type': 'application/json' }, body: { input: '{{prompt}}' }, transformResponse: 'json.output' } }],
    defaultTest: { assert: [{ type: 'contains', value: '42 EUR' }] },
    tests: Array.from({ length: TASKS }, (_, index) => ({ vars: { question: `question ${index}` } })),
  }));
  peak = 0;
  const started = performance.now();
  const result = await run(binary, [main, 'eval', '-c', config, '--max-concurrency', String(CONCURRENCY), '--no-cache', '--no-write', '--no-table', '--no-progress-bar'], {
    cwd: dir, env: { ...process.env, PROMPTFOO_DISABLE_TELEMETRY: '1', PROMPTFOO_DISABLE_UPDATE: '1', PROMPTFOO_CONFIG_DIR: join(dir, '.promptfoo') },
  });
  const ms = performance.now() - started;
  const passed = /(\d+)\s+passed/i.exec(result.output) ?? /Successes:\s*(\d+)/i.exec(result.output);
  if (!passed || Number(passed[1]) !== TASKS) {
    console.log(result.output.slice(-2000));
    throw new Error(`promptfoo eval did not report ${TASKS} passes (exit ${result.status})`);
  }
  return { ms, peak };
}

console.log(`${TASKS} tasks against an agent answering in ${DELAY_MS} ms, concurrency ${CONCURRENCY}: ideal ${fmt(ideal)} ms; ${ROUNDS} rounds, medians`);
const ours = [];
const theirs = [];
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which goes first, so neither always runs on a warmer machine.
  const order = round % 2 === 0 ? ['ours', 'promptfoo'] : ['promptfoo', 'ours'];
  for (const who of order) {
    if (who === 'ours') ours.push(await runOurs());
    else if (!process.argv.includes('--no-promptfoo')) theirs.push(await runPromptfoo());
  }
}
const ourMs = median(ours.map((run) => run.ms));
console.log(`  ours:      ${fmt(ourMs)} ms (${fmt(ourMs / ideal, 2)}x ideal, goal <= 1.3x), agent calls in flight at peak ${Math.max(...ours.map((run) => run.peak))}`);
if (theirs.length) {
  const theirMs = median(theirs.map((run) => run.ms));
  console.log(`  promptfoo: ${fmt(theirMs)} ms (${fmt(theirMs / ideal, 2)}x ideal), agent calls in flight at peak ${Math.max(...theirs.map((run) => run.peak))}`);
  console.log(`  ours / promptfoo: ${fmt(ourMs / theirMs, 2)} (goal <= 1.0)`);
}
agent.close();
process.exit(0);
