#!/usr/bin/env node
// A speed goal of the form "this change adds at most X% to bench/<script>" (issue 24: the verdict work adds at most
// 5% to evaluate-throughput), measured before and after in the same run: a worktree of the base commit is checked
// out beside this one (sharing node_modules, built once), and the same bench script runs from each tree in turn,
// for --rounds rounds, in alternating order. Prints each round's figure and the median ratio head/base.
// Usage: node bench/against-commit.mjs --base <commit> [--rounds 3] [--script bench/evaluate-throughput.mjs]
//        [--metric 'tasks/s'] [--better higher|lower] -- [arguments of the script]
import { join } from 'node:path';
import { repoRoot, runOrThrow, withBaseTree } from './lib.mjs';

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const own = split < 0 ? argv : argv.slice(0, split);
const passed = split < 0 ? [] : argv.slice(split + 1);
const option = (name, fallback) => {
  const index = own.indexOf(`--${name}`);
  return index >= 0 ? own[index + 1] : fallback;
};
const base = option('base');
const rounds = Number(option('rounds', '3'));
const script = option('script', 'bench/evaluate-throughput.mjs');
// The first number before this unit on the script's output is the figure compared. A time (`ms per run`,
// `µs`, `s`) is better lower, anything else (`tasks/s`) higher; --better lower|higher says it outright.
const unit = option('metric', 'tasks/s');
const lowerIsBetter = option('better', /^(ns|µs|us|ms|s)\b/.test(unit) ? 'lower' : 'higher') === 'lower';
if (!base) {
  console.error('usage: node bench/against-commit.mjs --base <commit> [--rounds 3] [--script bench/evaluate-throughput.mjs] [--metric tasks/s] -- [script arguments]');
  process.exit(2);
}

await withBaseTree(base, async (tree) => {
  const figureOf = (output) => {
    const pattern = new RegExp(`([\\d,.]+) ${unit.replace(/[/]/g, '\\/')}`);
    const lines = output.split('\n').filter((line) => line.includes(unit) && !line.startsWith('baseline'));
    const found = lines.map((line) => pattern.exec(line)?.[1]).find(Boolean);
    if (!found) throw new Error(`no "${unit}" figure in the output:\n${output}`);
    return Number(found.replace(/,/g, ''));
  };
  const figures = { base: [], head: [] };
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so neither always runs on a warmer (or hotter) machine.
    const order = round % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
    for (const side of order) {
      const root = side === 'base' ? tree : repoRoot;
      const figure = figureOf(runOrThrow(process.execPath, [join(root, script), ...passed], root));
      figures[side].push(figure);
      console.log(`round ${round + 1} ${side}: ${figure} ${unit}`);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const ratio = median(figures.head) / median(figures.base);
  // How much faster head is, in the figure's own sense: for a time, base/head; for a rate, head/base.
  const speedup = lowerIsBetter ? 1 / ratio : ratio;
  const verdict = speedup >= 1 ? `${((speedup - 1) * 100).toFixed(1)}% faster` : `${((1 / speedup - 1) * 100).toFixed(1)}% slower`;
  console.log(`median: base ${median(figures.base)} ${unit}, head ${median(figures.head)} ${unit}; head/base ${ratio.toFixed(3)} (head ${verdict}, ${lowerIsBetter ? 'lower' : 'higher'} is better)`);
});
