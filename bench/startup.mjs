#!/usr/bin/env node
// Start-up time: from spawning the command to the first successful `GET /healthz`, for a first start in a fresh
// PROJECT_ROOT (the key is generated, the data folder created). Goal: `npm start` under 1.5 s.
// Also measures the alternatives the start script could use, in the same run, to show why `npm start` runs the
// compiled dist/ rather than the TypeScript sources through tsx.
// Usage: node bench/startup.mjs [--runs 5]
import { join } from 'node:path';
import { ensureBuilt, fmt, freePort, freshRoot, median, repoRoot, serviceEnv, spawnProcess, waitForOk } from './lib.mjs';

const runsIndex = process.argv.indexOf('--runs');
const runs = runsIndex > 0 ? Number(process.argv[runsIndex + 1]) : 5;
const GOAL_MS = 1500;

const modes = [
  { title: 'npm start (up-to-date check and dist/runtime/node.js in one process)', command: 'npm', args: ['start', '--silent'] },
  { title: 'node dist/runtime/node.js (compiled, without npm)', command: process.execPath, args: [join(repoRoot, 'dist', 'runtime', 'node.js')] },
  { title: 'node --import tsx runtime/node.ts (sources, tsx loader)', command: process.execPath, args: ['--import', 'tsx', join(repoRoot, 'runtime', 'node.ts')] },
  { title: 'tsx runtime/node.ts (the tsx CLI)', command: join(repoRoot, 'node_modules', '.bin', 'tsx'), args: [join(repoRoot, 'runtime', 'node.ts')] },
];

async function timeStart(mode) {
  const port = await freePort();
  const started = performance.now();
  const service = spawnProcess(mode.command, mode.args, { env: serviceEnv({ PORT: String(port), PROJECT_ROOT: freshRoot('aeh-startup-') }) });
  try {
    await waitForOk(`http://127.0.0.1:${port}/healthz`, { timeoutMs: 60_000, intervalMs: 5 });
    return performance.now() - started;
  } catch (error) {
    throw new Error(`${mode.title}: ${error.message}\n${service.output()}`);
  } finally {
    await service.stop();
  }
}

ensureBuilt();
const results = modes.map((mode) => ({ ...mode, times: [] }));
// Interleaved, so a burst of load from elsewhere on the machine does not land on one mode only.
for (let run = 0; run < runs; run++) {
  for (const result of results) result.times.push(await timeStart(result));
}

console.log(`\nNode ${process.versions.node}, ${runs} first starts per mode, each in a fresh PROJECT_ROOT`);
console.log('| command | median ms | min ms | max ms |');
console.log('|---|---:|---:|---:|');
for (const result of results) console.log(`| ${result.title} | ${fmt(median(result.times))} | ${fmt(Math.min(...result.times))} | ${fmt(Math.max(...result.times))} |`);
const npmStart = median(results[0].times);
console.log(`\nnpm start: ${fmt(npmStart)} ms median (goal < ${GOAL_MS} ms): ${npmStart < GOAL_MS ? 'PASS' : 'FAIL'}`);
process.exitCode = npmStart < GOAL_MS ? 0 : 1;
