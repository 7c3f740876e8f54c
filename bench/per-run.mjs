#!/usr/bin/env node
// Per-run overhead (issue 36): what a run costs beyond its tasks (signing, evidence, certificate, storage), and
// 20-task scripted runs through the HTTP API against promptfoo evaluating the same cases in-process.
// 1. Ours: bench/evaluate-throughput.mjs on a fresh service, once with 20-task runs and once with 1-task runs.
//    The server's CPU per run (all threads, from /proc) at both sizes gives the cost per task (the slope) and the
//    fixed cost per run (the intercept). With --base <commit>, the same at that commit, in the same run
//    (alternating order), and the head/base ratio of the fixed cost: the goal is <= 0.5.
// 2. promptfoo 0.123.1 (Node 24, installed once into bench/.scratch/promptfoo as bench/concurrency.mjs does):
//    `evaluate()` of the same 20 cases (bench/fixtures/promptfoo-evaluate.mjs), one call per run, 4 at a time
//    inside a run, nothing cached or written. The ratio of tasks/s (ours / promptfoo's): the goal is >= 3.
//    promptfoo signs, stores and certifies nothing; the harness does all three for every run.
// Usage: node bench/per-run.mjs [--runs 1000] [--rounds 2] [--base <commit>] [--no-promptfoo]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { argument, fmt, median, node24, PROMPTFOO_VERSION, promptfooInstall, repoRoot, withBaseTree } from './lib.mjs';

const RUNS = Number(argument('runs', '1000'));
const ROUNDS = Number(argument('rounds', '2'));
const BASE = argument('base', undefined);

/** One evaluate-throughput measure in `tree`: tasks/s and server CPU ms per run. */
function ours(tree, tasks) {
  const result = spawnSync(process.execPath, [join(tree, 'bench', 'evaluate-throughput.mjs'), '--runs', String(RUNS), '--tasks', String(tasks)], { cwd: tree, encoding: 'utf8', maxBuffer: 16 << 20 });
  const rate = /([\d,.]+) tasks\/s, [\d,.]+ runs\/s end to end/.exec(result.stdout);
  const cpu = /server CPU: ([\d,.]+) ms per run/.exec(result.stdout);
  if (!rate || !cpu) throw new Error(`evaluate-throughput in ${tree} printed no figures:\n${result.stdout}\n${result.stderr}`);
  return { tasksPerSecond: Number(rate[1].replaceAll(',', '')), cpuMsPerRun: Number(cpu[1].replaceAll(',', '')) };
}

/** Fixed cost and cost per task from CPU per run at 1 and 20 tasks. */
function costs(tree) {
  const twenty = ours(tree, 20);
  const one = ours(tree, 1);
  const perTask = (twenty.cpuMsPerRun - one.cpuMsPerRun) / 19;
  return { tasksPerSecond: twenty.tasksPerSecond, fixedMs: one.cpuMsPerRun - perTask, perTaskMs: perTask, twenty, one };
}

function promptfoo() {
  const { dir, main } = promptfooInstall('index.js');
  const runs = Math.max(50, Math.floor(RUNS / 2));
  const result = spawnSync(node24(), [join(repoRoot, 'bench', 'fixtures', 'promptfoo-evaluate.mjs'), main, String(runs), '20', '4'], {
    cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20,
    env: { ...process.env, PROMPTFOO_DISABLE_TELEMETRY: '1', PROMPTFOO_DISABLE_UPDATE: '1', PROMPTFOO_CONFIG_DIR: join(dir, '.promptfoo'), LOG_LEVEL: 'error' },
  });
  const line = result.stdout.trim().split('\n').pop();
  if (result.status !== 0 || !line?.startsWith('{')) throw new Error(`promptfoo's evaluation failed (exit ${result.status}):\n${result.stderr.slice(-2000)}`);
  const { runs: done, tasks, seconds, cpuMs } = JSON.parse(line);
  return { tasksPerSecond: (done * tasks) / seconds, cpuMsPerRun: cpuMs / done };
}

const rounds = [];
const measureAll = (baseTree) => {
  for (let round = 0; round < ROUNDS; round++) {
    const row = {};
    const order = round % 2 === 0 ? ['head', 'base', 'promptfoo'] : ['promptfoo', 'base', 'head'];
    for (const who of order) {
      if (who === 'head') row.head = costs(repoRoot);
      else if (who === 'base' && baseTree) row.base = costs(baseTree);
      else if (who === 'promptfoo' && !process.argv.includes('--no-promptfoo')) row.promptfoo = promptfoo();
    }
    rounds.push(row);
    const cell = (entry) => (entry ? `${fmt(entry.tasksPerSecond)} tasks/s, fixed ${fmt(entry.fixedMs, 2)} ms + ${fmt(entry.perTaskMs * 1000)} µs per task of server CPU` : '');
    console.log(`round ${round + 1}: head ${cell(row.head)}${row.base ? ` | base ${cell(row.base)}` : ''}${row.promptfoo ? ` | promptfoo ${fmt(row.promptfoo.tasksPerSecond)} tasks/s (${fmt(row.promptfoo.cpuMsPerRun, 2)} ms CPU per run)` : ''}`);
  }
};

if (BASE) await withBaseTree(BASE, async (tree) => measureAll(tree));
else measureAll(undefined);

const med = (pick) => median(rounds.map(pick).filter((value) => Number.isFinite(value)));
console.log(`\n${RUNS} runs per measure, ${ROUNDS} rounds, medians:`);
console.log(`ours (head): ${fmt(med((row) => row.head.tasksPerSecond))} tasks/s with 20-task runs; fixed cost ${fmt(med((row) => row.head.fixedMs), 2)} ms of server CPU per run, ${fmt(med((row) => row.head.perTaskMs) * 1000)} µs per task`);
if (BASE) {
  const ratio = med((row) => row.head.fixedMs / row.base.fixedMs);
  console.log(`base ${BASE}: ${fmt(med((row) => row.base.tasksPerSecond))} tasks/s; fixed cost ${fmt(med((row) => row.base.fixedMs), 2)} ms per run; head/base fixed cost ${ratio.toFixed(2)} (goal <= 0.5)`);
}
if (rounds[0].promptfoo) {
  const ratio = med((row) => row.head.tasksPerSecond / row.promptfoo.tasksPerSecond);
  console.log(`promptfoo ${PROMPTFOO_VERSION} in-process: ${fmt(med((row) => row.promptfoo.tasksPerSecond))} tasks/s; ours / promptfoo ${ratio.toFixed(2)} x (goal >= 3)`);
}
