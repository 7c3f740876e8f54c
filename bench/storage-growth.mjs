#!/usr/bin/env node
// Storage that scales with what changed (issue 27 item 5): bytes under the data directory (a) after one 30-unit
// τ-bench retail run and (b) after --runs runs of it, for this tree and for a base commit checked out beside it
// (sharing node_modules, built once), in the same run; prints both and the ratio head/base (goal ≤ 0.10).
// Each tree's service (`node dist/runtime/node.js`, fs storage, every bundled plugin, certification signing every
// run) gets a fresh PROJECT_ROOT. The agent is the scripted adapter answering each task with its gold actions,
// so every unit changes the world as τ-bench's solution does.
// τ-bench data: AEH_TAU_DATA_DIR (or --data), laid out as tau2-bench's data/tau2/domains/; without it, the
// synthetic databases of plugins/shims/tau/fixtures (the tests' data; the figure then says so).
// Usage: node bench/storage-growth.mjs [--base f0f3e8b] [--units 30] [--runs 100] [--data DIR] [--side head|base]
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { argument, BENCH_KEY, fmt, freePort, freshRoot, numberArgument, repoRoot, runOrThrow, serviceEnv, spawnProcess, waitForOk, withBaseTree, tauDataDir } from './lib.mjs';

const UNITS = numberArgument('units', 30);
const RUNS = numberArgument('runs', 100);
const BASE = argument('base', 'f0f3e8b');
const SIDE = argument('side', undefined);

/** Bytes of every file under `dir` (what the medium holds, not block-rounded). */
function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The data directory to use: the operator's τ-bench data, else the tests' synthetic database in its format. */
async function tauData() {
  const given = argument('data', process.env.AEH_TAU_DATA_DIR);
  if (given) return { dir: given, synthetic: false };
  const { retailDb } = await import(pathToFileURL(join(repoRoot, 'dist', 'plugins', 'shims', 'tau', 'fixtures', 'synthetic.js')).href);
  const dir = mkdtempSync(join(tmpdir(), 'tau-data-'));
  mkdirSync(join(dir, 'retail'));
  const tasks = [
    { id: '0', user_scenario: { instructions: 'Cancel #W1.' }, evaluation_criteria: { actions: [{ name: 'cancel_pending_order', arguments: { order_id: '#W1', reason: 'ordered by mistake' } }] } },
    { id: '1', user_scenario: { instructions: 'Status of #W2.' }, evaluation_criteria: { actions: [{ name: 'get_order_details', arguments: { order_id: '#W2' } }] } },
  ];
  writeFileSync(join(dir, 'retail', 'db.json'), JSON.stringify(retailDb()));
  writeFileSync(join(dir, 'retail', 'tasks.json'), JSON.stringify(tasks));
  writeFileSync(join(dir, 'retail', 'split_tasks.json'), JSON.stringify({ base: ['0', '1'] }));
  writeFileSync(join(dir, 'retail', 'policy.md'), '# Retail agent policy\n');
  return { dir, synthetic: true };
}

/** A scenario of `UNITS` τ-bench retail tasks, each answered by the scripted agent with its gold actions. */
async function scenarioOf(root, dir) {
  const { tauScenario } = await import(pathToFileURL(join(root, 'dist', 'plugins', 'shims', 'tau', 'index.js')).href);
  const { scenario } = await tauScenario('retail', tauDataDir(dir));
  const picked = Array.from({ length: UNITS }, (_, n) => scenario.tasks[n % scenario.tasks.length]);
  const tasks = picked.map((task, n) => ({ ...task, id: `${task.id}_${n}`, user_simulator: undefined, input: 'Please help me with my order.' }));
  const replies = Object.fromEntries(tasks.map((task) => [task.id, { output: 'Done.', tool_calls: task.expected_actions ?? [] }]));
  return { ...scenario, agent: { adapter: 'scripted', replies }, tasks };
}

/** Runs `count` runs of `scenario` one after the other; resolves when the last is final. */
async function runAll(url, scenario, count) {
  const headers = { 'content-type': 'application/json', 'x-api-key': BENCH_KEY };
  for (let n = 0; n < count; n++) {
    const answer = await fetch(`${url}/api/evaluate`, { method: 'POST', headers, body: JSON.stringify({ scenario }) });
    const { task_id: taskId } = await answer.json();
    if (answer.status !== 202) throw new Error(`POST /api/evaluate answered ${answer.status}`);
    for (;;) {
      const task = await (await fetch(`${url}/api/v1/tasks/${taskId}`, { headers })).json();
      if (['succeeded', 'failed', 'cancelled'].includes(task.status)) {
        if (task.status !== 'succeeded') throw new Error(`run ${n} ended ${task.status}: ${JSON.stringify(task.error)}`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** One side: a fresh service from `root`, one run, then the rest; bytes under its data directory after each. */
async function measure(root, dir) {
  const scenario = await scenarioOf(root, dir);
  const project = freshRoot('aeh-storage-');
  const port = await freePort();
  const env = serviceEnv({ PORT: String(port), HOST: '127.0.0.1', PROJECT_ROOT: project, DASHBOARD_API_KEY: BENCH_KEY, AEH_TAU_DATA_DIR: dir, AEH_LOG_LEVEL: 'error' });
  const service = spawnProcess(process.execPath, [join(root, 'dist', 'runtime', 'node.js')], { env, cwd: project });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(`${url}/healthz`);
    const empty = bytesUnder(join(project, '.aeh'));
    await runAll(url, scenario, 1);
    const one = bytesUnder(join(project, '.aeh')) - empty;
    await runAll(url, scenario, RUNS - 1);
    const many = bytesUnder(join(project, '.aeh')) - empty;
    return { one, many };
  } catch (error) {
    throw new Error(`${error.message}\n${service.output().slice(-2000)}`);
  } finally {
    await service.stop();
    rmSync(project, { recursive: true, force: true });
  }
}

const mb = (bytes) => `${fmt(bytes / 1e6, 2)} MB`;

if (SIDE) {
  // A child: measure the tree at --root (its dist/) and print one JSON line.
  const { dir, synthetic } = await tauData();
  console.log(JSON.stringify({ ...(await measure(argument('root', repoRoot), dir)), synthetic }));
} else {
  await withBaseTree(BASE, async (tree) => {
    // The head's script measures both trees, so the two sides run the very same driver.
    const sides = {};
    for (const [side, root] of [['base', tree], ['head', repoRoot]]) {
      const data = argument('data', undefined);
      const args = [join(repoRoot, 'bench', 'storage-growth.mjs'), '--side', side, '--root', root, '--units', String(UNITS), '--runs', String(RUNS), ...(data ? ['--data', data] : [])];
      sides[side] = JSON.parse(runOrThrow(process.execPath, args, root).trim().split('\n').at(-1));
      console.log(`${side} (${side === 'base' ? BASE : 'this tree'}): one ${UNITS}-unit run ${mb(sides[side].one)}; ${RUNS} runs ${mb(sides[side].many)}`);
    }
    const data = sides.head.synthetic ? ' (synthetic τ-bench fixtures: AEH_TAU_DATA_DIR not set)' : '';
    console.log(`one ${UNITS}-unit τ-bench retail run${data}: head/base ${(sides.head.one / sides.base.one).toFixed(3)} (goal ≤ 0.10)`);
    console.log(`.aeh/ growth over ${RUNS} runs: base ${mb(sides.base.many)}, head ${mb(sides.head.many)}; head/base ${(sides.head.many / sides.base.many).toFixed(3)}`);
  });
}
