#!/usr/bin/env node
// τ-bench v1's published trajectories replayed through the harness (issue 34 item 4; docs/shims.md "Published
// trajectories"). Each of the 200 GPT-4o airline trajectories (50 tasks × 4 trials) becomes a task whose recorded
// tool calls the `replay` agent runs on a fresh airline world in order, its messages the answer; v1's gold
// (tasks_test.py: the gold database and the required outputs) judges it, through the service as a certified run.
// Prints how many trajectories get their recorded reward, both average rewards, and each difference with its cause.
//
// Usage: node bench/tau/trajectories.mjs                      the committed records (plugins/shims/tau/fixtures)
//        node bench/tau/trajectories.mjs --file <gpt-4o-airline.json>   a published file (v1's historical_trajectories/)
//        node bench/tau/trajectories.mjs --write-fixture [--mirror <git dir of sierra-research/tau-bench>]
// --write-fixture reads the published file and v1's airline tasks (tasks_test.py, loaded by python3 from the
// mirror's 59a200c, litellm stubbed) and writes the records the test replays (fixtures/v1-airline-gpt-4o.json.gz):
// only what the reward depends on, no reference code.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_KEY, argument, ensureBuilt, freePort, freshRoot, importDist, repoRoot } from '../lib.mjs';

const MIRROR = argument('mirror', '/work/.mirror/sierra-research+tau-bench/repo');
const COMMIT = '59a200c';
const PUBLISHED = 'historical_trajectories/gpt-4o-airline.json';
const FIXTURE = join(repoRoot, 'plugins/shims/tau/fixtures/v1-airline-gpt-4o.json.gz');

ensureBuilt();
const { v1TrajectoryOf, v1ReplayScenario, v1ReplayOf, compareRewards, rewardsOfTrace } = await importDist('plugins/shims/tau/trajectories.js');
const tau = await importDist('plugins/shims/tau/index.js');
const { startNodeService } = await importDist('runtime/node/start.js');
const { silentLogger } = await importDist('core/capabilities.js');

/** v1's airline tasks as its own Python declares them (tasks_test.py), from the mirror. */
function v1Tasks() {
  const dir = mkdtempSync(join(tmpdir(), 'tau-v1-'));
  try {
    execFileSync('tar', ['-x', '-C', dir], { input: execFileSync('git', ['--git-dir', MIRROR, 'archive', COMMIT, 'tau_bench'], { maxBuffer: 256 * 1024 * 1024, stdio: 'pipe' }) });
    // The package's __init__ imports its model client (litellm), which the tasks do not need.
    execFileSync('mkdir', ['-p', join(dir, 'stubs/litellm')]);
    writeFileSync(join(dir, 'stubs/litellm/__init__.py'), 'def completion(*a, **k):\n    raise RuntimeError("stub")\n');
    const code = 'import json\nfrom tau_bench.envs.airline.tasks_test import TASKS\nprint(json.dumps([task.model_dump() for task in TASKS]))';
    return JSON.parse(execFileSync('python3', ['-c', code], { cwd: dir, env: { ...process.env, PYTHONPATH: `${dir}/stubs:${dir}` }, maxBuffer: 64 * 1024 * 1024 }).toString());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const published = (text) => JSON.parse(text);
let records;
if (process.argv.includes('--write-fixture')) {
  const trajectories = published(execFileSync('git', ['--git-dir', MIRROR, 'show', `${COMMIT}:${PUBLISHED}`], { maxBuffer: 256 * 1024 * 1024 }).toString());
  const tasks = v1Tasks().map(({ user_id, actions, instruction, outputs }) => ({ user_id, actions, instruction, outputs }));
  // The published file carries each trajectory's task: it must be tasks_test.py's.
  const differing = trajectories.filter((trajectory) => JSON.stringify(trajectory.info.task.actions) !== JSON.stringify(tasks[trajectory.task_id].actions) || JSON.stringify(trajectory.info.task.outputs) !== JSON.stringify(tasks[trajectory.task_id].outputs));
  if (differing.length) throw new Error(`${differing.length} trajectories carry another task than tasks_test.py's`);
  records = { source: `sierra-research/tau-bench ${COMMIT}: ${PUBLISHED} (MIT), tau_bench/envs/airline/tasks_test.py`, tasks, trajectories: trajectories.map(v1TrajectoryOf) };
  writeFileSync(FIXTURE, gzipSync(JSON.stringify(records), { level: 9 }));
  console.log(`wrote ${FIXTURE} (${records.trajectories.length} trajectories, ${tasks.length} tasks)`);
} else {
  records = JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString());
  const file = argument('file');
  if (file) records = { ...records, source: file, trajectories: published(readFileSync(file, 'utf8')).map(v1TrajectoryOf) };
}

const files = { readFile: (path) => Promise.resolve(readFileSync(path)), stat: async (path) => ({ isFile: true, size: readFileSync(path).length }) };
const bundled = join(repoRoot, 'catalog/data/tau-bench/domains');
const shim = tau.tauAirlineShim();
const db = await tau.readTauDb({ dir: bundled, files }, 'airline');
const replay = await v1ReplayScenario(records.trajectories, records.tasks, shim, db);

const root = freshRoot('aeh-bench-trajectories-');
writeFileSync(join(root, 'trajectories.jsonl'), replay.recording);
const service = await startNodeService({
  DASHBOARD_API_KEY: BENCH_KEY, PROJECT_ROOT: root, AEH_STORAGE: 'memory', PORT: String(await freePort()), HOST: '127.0.0.1',
  AEH_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'production', AEH_MAX_BODY_BYTES: String(16 * 1024 * 1024),
}, root, silentLogger);
const headers = { 'x-api-key': BENCH_KEY, 'content-type': 'application/json' };
try {
  const started = performance.now();
  const scenario = v1ReplayOf(replay, shim, 'trajectories.jsonl');
  const accepted = await (await fetch(`${service.url}/api/v1/suites`, { method: 'POST', headers, body: JSON.stringify({ name: scenario.title, scenarios: [{ scenario }], agents: [scenario.agent] }) })).json();
  if (!accepted.suite_id) throw new Error(`refused: ${JSON.stringify(accepted).slice(0, 500)}`);
  let suite;
  do {
    await new Promise((done) => setTimeout(done, 50));
    suite = await (await fetch(`${service.url}/api/v1/suites/${accepted.suite_id}`, { headers })).json();
  } while (!(suite.status === 'finished' && suite.certificate?.status !== 'pending'));
  const runId = suite.runs[0].run_id;
  const trace = (await (await fetch(`${service.url}/api/v1/runs/${runId}/trace`, { headers })).text()).split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const result = compareRewards(records.trajectories, rewardsOfTrace(trace));
  const seconds = (performance.now() - started) / 1000;
  console.log(`τ-bench v1 published trajectories (${records.source}), replayed through the harness (run ${runId}, certificate ${suite.certificate?.status}) in ${seconds.toFixed(1)} s; load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  console.log(`  reward reproduced: ${result.reproduced}/${result.total} trajectories (${(100 * result.reproduced / result.total).toFixed(1)}%)`);
  console.log(`  average reward: recorded ${result.recordedAverage.toFixed(3)}, reproduced ${result.reproducedAverage.toFixed(3)}`);
  for (const difference of result.differences) console.log(`  ${difference.task_id}: recorded ${difference.recorded}, reproduced ${difference.reproduced}: ${difference.cause}`);
} finally {
  await service.stop();
  rmSync(root, { recursive: true, force: true });
}
process.exit(0);
