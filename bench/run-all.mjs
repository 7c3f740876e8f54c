#!/usr/bin/env node
// `npm run bench`: every benchmark that needs nothing beyond `npm install`, one after the other (never side by
// side: each measures a baseline in its own run, and two at once would measure each other). Each prints its own
// figures and ratio; this prints which ran and how each ended. Run it on a quiet machine: no test suite, no build.
// Left out, because they need more than the repository: scale-out.mjs (redis-server), concurrency.mjs (promptfoo
// in bench/.scratch), verify-workerd.mjs (workerd build), catalog.mjs (../shared/aes-catalog).
// Usage: node bench/run-all.mjs [name ...]   (names without .mjs; default: all below)
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const DEFAULT = ['startup', 'info-throughput', 'jwt-throughput', 'evaluate-throughput', 'verify', 'hash', 'mutate', 'spec-to-eval', 'shim-call', 'sql-shim', 'mcp-call', 'console', 'detector-cost'];
const names = process.argv.slice(2).length ? process.argv.slice(2) : DEFAULT;

const build = spawnSync(process.execPath, [join(here, '..', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const results = [];
for (const name of names) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const run = spawnSync(process.execPath, [join(here, `${name}.mjs`)], { stdio: 'inherit' });
  results.push({ name, status: run.status, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log('\n=== summary ===');
for (const { name, status, seconds } of results) console.log(`${status === 0 ? 'ok  ' : 'FAIL'} ${name} (${seconds} s)`);
process.exit(results.every((result) => result.status === 0) ? 0 : 1);
