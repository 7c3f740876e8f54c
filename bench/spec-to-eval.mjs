#!/usr/bin/env node
// spec-to-eval conversion time (issue 7 "Speed"): goal, a 1 MiB PRD converts in under 300 ms.
// For each document shape (1 MiB of bullets; 1 MiB of H3 test cases with labels), alternating trials of:
//   baseline: the bare mdast parse (mdast-util-from-markdown + GFM) of the same text, nothing else;
//   ours:     convertSpec: front matter, parse, sections, labels, topology, tasks, metric choice, stubs
//             validated with normalizeScenario (the route adds only JSON serialisation).
// Prints best and median per side, ours/baseline, and PASS/FAIL against the goal (best trial: on a shared
// machine, the fastest run is the one least disturbed by others).
// Usage: node bench/spec-to-eval.mjs [--trials 3] [--mib 1]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { fmt, median, repoRoot } from './lib.mjs';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const trials = Number(argument('trials', '3'));
const size = Math.round(Number(argument('mib', '1')) * 1024 * 1024);
const GOAL_MS = 300;

const load = (path) => tsImport(pathToFileURL(join(repoRoot, path)).href, import.meta.url);
const { convertSpec } = await load('plugins/spec-to-eval/convert.ts');
const { parseMarkdownOnly } = await load('plugins/spec-to-eval/parse.ts');

const HEADER = '# PRD: Returns at scale\n\n## Overview\n**Industry:** Retail\n**Use Case:** Returns\n\n## Agent Topology\n**Intake:** writes to [tickets], reads from [chat]\n**Refunds:** writes to [ledger], reads from [tickets]\n\n';

function bullets() {
  let text = `${HEADER}## Tasks\n`;
  for (let index = 1; text.length < size; index++) {
    text += index % 7 === 0
      ? `- Refuse the return of order ${index}, bought ${90 + (index % 30)} days ago\n`
      : `- Accept the return of order ${index} within 30 days (Expect: "return accepted")\n`;
  }
  return text;
}

function cases() {
  let text = `${HEADER}## Test Cases\n\n`;
  for (let index = 1; text.length < size; index++) {
    text += `### Case ${index}\n- **Description**: A customer asks to return item ${index}, bought ${index % 120} days ago.\n- **Expected Outcome**: "return ${index % 120 <= 30 ? 'accepted' : 'refused'}"\n- **Criteria:** task_success (2), refusal (1)\n\n`;
  }
  return text;
}

async function timed(action) {
  const started = performance.now();
  const result = await action();
  return { ms: performance.now() - started, result };
}

const rows = [];
for (const [name, build] of [['bullets', bullets], ['H3 test cases', cases]]) {
  const markdown = build();
  const baseTimes = [];
  const ourTimes = [];
  let tasks = 0;
  // Warm-up, untimed: the first parse also pays for JIT compilation of micromark.
  parseMarkdownOnly(markdown.slice(0, 64 * 1024));
  for (let trial = 0; trial < trials; trial++) {
    const runBase = async () => baseTimes.push((await timed(() => parseMarkdownOnly(markdown))).ms);
    const runOurs = async () => {
      const run = await timed(() => convertSpec(markdown));
      ourTimes.push(run.ms);
      tasks = run.result.scenarios.reduce((sum, scenario) => sum + scenario.tasks.length, 0);
    };
    if (trial % 2) {
      await runBase();
      await runOurs();
    } else {
      await runOurs();
      await runBase();
    }
  }
  rows.push({ name, bytes: markdown.length, tasks, base: baseTimes, ours: ourTimes });
}

console.log(`\nNode ${process.versions.node}, ${fmt(size / 1024 / 1024, 2)} MiB documents, best and median of ${trials} alternating trial(s)`);
console.log('| document | tasks | bare mdast parse ms (best / median) | convertSpec ms (best / median) | ours / baseline | parse MiB/s |');
console.log('|---|---:|---:|---:|---:|---:|');
let ok = true;
for (const row of rows) {
  const bestBase = Math.min(...row.base);
  const bestOurs = Math.min(...row.ours);
  ok &&= bestOurs < GOAL_MS;
  console.log(`| ${row.name} | ${row.tasks} | ${fmt(bestBase)} / ${fmt(median(row.base))} | ${fmt(bestOurs)} / ${fmt(median(row.ours))} | ${(bestOurs / bestBase).toFixed(2)}x | ${fmt(row.bytes / 1024 / 1024 / (bestBase / 1000), 2)} |`);
}
console.log(`\ngoal: a 1 MiB PRD converts in under ${GOAL_MS} ms`);
console.log(ok ? 'PASS' : 'FAIL');
process.exit(ok ? 0 : 1);
