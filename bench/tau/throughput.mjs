#!/usr/bin/env node
// τ-bench retail throughput (issue 27 "Speed"): the whole `base` split × --trials against an oracle agent that
// plays each task's gold actions, through the service's HTTP API, beside the reference implementation's own
// environment step over the same gold actions, in the same run; prints tasks/s of each and the ratio.
//
// Ours: the service started in this process (dist/, every bundled plugin, fs storage in a fresh PROJECT_ROOT
// unless --storage memory), the split as `aeh bench tau` builds it (plugins/shims/tau/tasks.ts: the policy,
// τ-bench's tool names, expected_actions, required outputs) submitted as a suite (POST /api/v1/suites, so the
// run is certified) with `trials`. The agent is the in-process `scripted` adapter playing the oracle: for each
// task, every gold action of tasks.json (those the world refuses too) as a tool call on the task's world, then
// the task's required outputs as its answer. The simulated user is left out (no model: the oracle needs none),
// so each task is one turn, and so are the natural-language assertions (they need a judge model). Every task must pass every trial, else the bench measured something else and
// fails. Time: from the POST to the suite finished with its certificate issued (polled every 10 ms).
//
// Reference: bench/tau/reference_driver.py --evaluate, τ-bench's own data model and tools (tau2-bench's
// src/tau2/domains/retail, from --src or extracted from the git mirror) doing per task and trial what its run
// does without a model: the simulation's environment loaded from db.json, the oracle's calls, then
// calculate_reward's database check (two more environments, the trajectory and the gold actions replayed, two
// hashes). Timed inside Python (start-up and imports excluded, which only favours the reference).
//
// Usage: node bench/tau/throughput.mjs [--data <τ-bench data dir>] [--trials 4] [--split base] [--rounds 1]
//        [--tasks N] [--storage fs|memory] [--src <tau2-bench checkout>/src | --mirror <git dir>] [--reference-trials N] [--skip-reference]
// The reference takes about a second per unit (three environments loaded from db.json and validated, two hashes):
// --reference-trials 1 times it on the split once, the same rate in a quarter of the time.
// --data defaults to AEH_TAU_DATA_DIR, else the data shipped in catalog/data/tau-bench (docs/shims.md, "τ-bench domains").
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { BENCH_KEY, argument, ensureBuilt, fmt, freePort, freshRoot, median, numberArgument, repoRoot, tauDataDir, importDist, runSuiteToCertificate } from '../lib.mjs';
import { DEFAULT_MIRROR, referenceSources } from './reference-src.mjs';

// Default: the release's data shipped in catalog/data/tau-bench (JSON gzipped).
const DATA = argument('data', process.env.AEH_TAU_DATA_DIR ?? join(repoRoot, 'catalog', 'data', 'tau-bench', 'domains'));
const TRIALS = numberArgument('trials', 4);
const SPLIT = argument('split', 'base');
const ROUNDS = numberArgument('rounds', 1);
const STORAGE = argument('storage', 'fs');
// The reference's units are independent and alike whatever the trial: fewer trials measure its rate in less time.
const REFERENCE_TRIALS = numberArgument('reference-trials', TRIALS);
const SKIP_REFERENCE = process.argv.includes('--skip-reference');

ensureBuilt();
const tau = await importDist('plugins/shims/tau/index.js');
const { startNodeService } = await importDist('runtime/node/start.js');
const { silentLogger } = await importDist('core/capabilities.js');

const data = tauDataDir(DATA);
const tauTaskList = await tau.readTauJson(data, 'retail', 'tasks.json');
const tauTasks = new Map(tauTaskList.map((task) => [task.id, task]));
// --tasks N: the split's first N tasks only (a quick try; the figures are for the whole split).
const ids = (await tau.readTauJson(data, 'retail', 'split_tasks.json'))[SPLIT].slice(0, numberArgument('tasks', Infinity));

/** The split as `aeh bench tau` builds it, one turn per task, and the oracle as its agent. */
async function oracleScenario(limit = ids.length, trials = TRIALS) {
  const { scenario } = await tau.tauScenario('retail', data, { split: SPLIT });
  // The natural-language assertions need a judge model, which this bench has not: the oracle run leaves them out
  // (every other rule stays on: the reward basis, the database, the required outputs, conversation_end).
  const tasks = scenario.tasks.slice(0, limit).map(({ user_simulator: _user, provenance: { user_simulator: _imported, ...provenance } = {}, metrics, ...task }) => ({ ...task, metrics: metrics.filter((ref) => ref.id !== 'nl_assertions'), provenance }));
  const replies = Object.fromEntries(tasks.map((task) => {
    const criteria = tauTasks.get(task.id.slice('task_'.length)).evaluation_criteria ?? {};
    const calls = (criteria.actions ?? []).map((action) => ({ name: action.name, arguments: action.arguments }));
    return [task.id, { output: (criteria.communicate_info ?? []).join('; ') || 'Done.', tool_calls: calls }];
  }));
  return { ...scenario, trials, tasks, agent: { adapter: 'scripted', replies } };
}

/** Submits the oracle's suite and waits for it; seconds from the POST to the certified, finished suite. */
async function runSuite(service, scenario) {
  const headers = { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await fetch(`${service.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
        return { status: response.status, json: await response.json() };
      } catch (error) {
        // A kept-alive connection the server closed as the request went out (the event loop is shared): a GET
        // is safe to send again.
        if (method !== 'GET' || attempt >= 3) throw error;
      }
    }
  };
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  const suite = await runSuiteToCertificate(call, { name: scenario.title, scenarios: [{ scenario }], agents: [scenario.agent] });
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const runId = suite.runs?.[0]?.run_id;
  if (!runId) throw new Error(`the run was refused: ${JSON.stringify(suite.runs?.[0]).slice(0, 500)}`);
  const run = (await call('GET', `/api/v1/runs/${runId}`)).json;
  // The units' own time, by the service's clock: from the trace's run_start to its run_end (the rest is
  // submission, finishing the run's evidence and the certificate).
  const trace = await (await fetch(`${service.url}/api/v1/runs/${runId}/trace`, { headers })).text();
  const stamps = Object.fromEntries(trace.split('\n').filter((line) => line.includes('"run_start"') || line.includes('"run_end"')).map((line) => JSON.parse(line)).map((event) => [event.type, Date.parse(event.ts)]));
  const unitsSeconds = (stamps.run_end - stamps.run_start) / 1000;
  const passHat = run.trials?.pass_hat ?? [];
  if (run.status !== 'succeeded' || passHat.some((value) => value !== 1)) {
    throw new Error(`the oracle did not pass every task every trial (status ${run.status}, pass^k ${JSON.stringify(passHat)}, ${JSON.stringify(run.verdict?.tasks?.slice(0, 3))}): the bench measured something else`);
  }
  return { seconds, units: scenario.tasks.length * scenario.trials, certificate: suite.certificate?.status, passHat, maxStallMs: delay.max / 1e6, unitsSeconds };
}

async function ours() {
  const root = freshRoot('aeh-bench-tau-');
  const service = await startNodeService({
    DASHBOARD_API_KEY: BENCH_KEY, PROJECT_ROOT: root, AEH_STORAGE: STORAGE, PORT: String(await freePort()), HOST: '127.0.0.1',
    AEH_TAU_DATA_DIR: data.dir, AEH_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'production',
    // The oracle's scripted replies repeat every gold action beside the scenario's expected_actions.
    AEH_MAX_BODY_BYTES: String(16 * 1024 * 1024),
  }, root, silentLogger);
  try {
    await runSuite(service, await oracleScenario(10, 1)); // warm-up (JIT, the database loaded), not measured
    return await runSuite(service, await oracleScenario());
  } finally {
    await service.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

async function reference(src, work) {
  const idsFile = join(work, 'ids.json');
  writeFileSync(idsFile, JSON.stringify(ids));
  // The driver reads plain JSON files: the database and tasks as the data layer reads them (gunzipped).
  writeFileSync(join(work, 'db.json'), JSON.stringify(await tau.readTauDb(data, 'retail')));
  writeFileSync(join(work, 'tasks.json'), JSON.stringify(tauTaskList));
  const started = performance.now();
  const run = spawnSync('python3', [join(repoRoot, 'bench/tau/reference_driver.py'), '--src', src, '--db', join(work, 'db.json'), '--tasks', join(work, 'tasks.json'), '--ids', idsFile, '--domain', 'retail', '--evaluate', '--trials', String(REFERENCE_TRIALS)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`the reference driver failed:\n${run.stderr}`);
  const result = JSON.parse(run.stdout);
  if (result.matched !== result.units) throw new Error(`the reference's own check failed ${result.units - result.matched} of ${result.units} units`);
  return { ...result, wall };
}

const sources = SKIP_REFERENCE ? undefined : referenceSources(argument('src'), argument('mirror', DEFAULT_MIRROR));
const work = mkdtempSync(join(tmpdir(), 'tau-throughput-'));
try {
  console.log(`τ-bench retail ${SPLIT} split: ${ids.length} tasks × ${TRIALS} trials = ${ids.length * TRIALS} units per measurement, ${ROUNDS} round(s); load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  const results = { ours: [], units: [], reference: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating order, so a drift of the machine does not favour one side.
    const sides = round % 2 === 0 ? ['ours', 'reference'] : ['reference', 'ours'];
    for (const side of sides) {
      if (side === 'reference' && SKIP_REFERENCE) continue;
      if (side === 'ours') {
        const result = await ours();
        results.ours.push(result.units / result.seconds);
        results.units.push(result.units / result.unitsSeconds);
        console.log(`  round ${round + 1}, ours: ${result.units} units in ${fmt(result.seconds, 2)} s = ${fmt(result.units / result.seconds, 1)} tasks/s end to end (service over HTTP, ${STORAGE} storage, suite certificate ${result.certificate}, pass^1..${result.passHat.length} all 1)`);
        console.log(`    the units alone (the trace's run_start to run_end): ${fmt(result.unitsSeconds, 2)} s = ${fmt(result.units / result.unitsSeconds, 1)} units/s; submission, finishing the run (evidence, world.json) and the certificate took the other ${fmt(result.seconds - result.unitsSeconds, 2)} s; longest event-loop stall ${fmt(result.maxStallMs)} ms`);
      } else {
        const result = await reference(sources.src, work);
        results.reference.push(result.units / result.seconds);
        console.log(`  round ${round + 1}, reference (${sources.commit}, python3): ${result.units} units in ${fmt(result.seconds, 2)} s = ${fmt(result.units / result.seconds, 2)} tasks/s (${fmt(result.wall, 2)} s with interpreter start-up)`);
      }
    }
  }
  const oursRate = median(results.ours);
  const unitsRate = median(results.units);
  const referenceRate = median(results.reference);
  const versus = (rate) => (SKIP_REFERENCE ? '' : ` (${fmt(rate / referenceRate, 1)}x the reference)`);
  console.log(`ours: ${fmt(oursRate, 1)} tasks/s end to end${versus(oursRate)}, ${fmt(unitsRate, 1)} units/s for the units alone${versus(unitsRate)}, medians${SKIP_REFERENCE ? '' : `; reference: ${fmt(referenceRate, 2)} tasks/s median`}`);
  if (!SKIP_REFERENCE) console.log(`ratio ours/reference, end to end: ${fmt(oursRate / referenceRate, 1)}x`);
  console.log(`load average now ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
} finally {
  rmSync(work, { recursive: true, force: true });
  sources?.cleanup();
}
process.exit(0);
