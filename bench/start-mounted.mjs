#!/usr/bin/env node
// `npm start` with the 5,028 published AES scenarios of ../shared/aes-catalog mounted (AEH_CATALOG_DIRS), against
// a bare hono hello-world started the same way (bench/fixtures/hello-hono.mjs, same adapter), in the same run.
// Each start is a fresh process in a fresh PROJECT_ROOT (a first start: the key is generated, the data folder
// made), timed from spawn to its first successful answer (/healthz; the hello-world's /); starts alternate so
// load from elsewhere on the machine hits both alike. Goals (issue 26 item 9): at most 6x the hello-world's start,
// and under 1.5 s. Issue 36: from spawn to the first answer of a search over the mounted catalog at most 2.5x the
// floor, a hello-world that reads and parses every catalog file before it answers (bench/fixtures/
// hello-hono-catalog.mjs), judged on `npm start`; the same from `node scripts/start.mjs` (the issue quotes both) is
// printed beside it, and the same for a restart of one project (its catalog cache kept). Also printed: the
// compiled entry without npm and npm start without the mount.
// Usage: node bench/start-mounted.mjs [--runs 5]
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { argument, BENCH_KEY, ensureBuilt, fmt, freePort, freshRoot, median, repoRoot, serviceEnv, spawnProcess, waitForOk } from './lib.mjs';

const runs = Number(argument('runs', '5'));
const RATIO_GOAL = 6;
const MS_GOAL = 1500;
const aesRoot = resolve(repoRoot, '..', 'shared', 'aes-catalog');
if (!existsSync(join(aesRoot, 'industries'))) {
  console.error(`${aesRoot} is absent: this benchmark needs the published AES catalog beside the repository.`);
  process.exit(2);
}

const mounted = { AEH_CATALOG_DIRS: aesRoot };
const modes = [
  { name: 'baseline', title: 'hono hello-world (node bench/fixtures/hello-hono.mjs)', command: process.execPath, args: [join(repoRoot, 'bench', 'fixtures', 'hello-hono.mjs')], path: '/' },
  { name: 'floor', title: 'hono hello-world reading and parsing every catalog file first (bench/fixtures/hello-hono-catalog.mjs)', command: process.execPath, args: [join(repoRoot, 'bench', 'fixtures', 'hello-hono-catalog.mjs')], path: '/', env: mounted },
  { name: 'mounted', title: 'npm start, 5,028 AES scenarios mounted', command: 'npm', args: ['start', '--silent'], path: '/healthz', env: mounted, search: true },
  // The issue's own measure of the first search (issue 36 quotes `node scripts/start.mjs` beside `npm start`):
  // the same start without npm 11's own ~0.25 s of CPU, which is outside the project's code.
  { name: 'started', title: 'node scripts/start.mjs, mounted (npm start without npm)', command: process.execPath, args: [join(repoRoot, 'scripts', 'start.mjs')], path: '/healthz', env: mounted, search: true },
  // A restart: the same project started again, its catalog cache (runtime/node/catalog-cache.ts) kept by a first
  // start before the runs; every other row is a first start in a fresh project.
  { name: 'restarted', title: 'node scripts/start.mjs, mounted, restarting the same project (catalog cache kept)', command: process.execPath, args: [join(repoRoot, 'scripts', 'start.mjs')], path: '/healthz', env: mounted, search: true, kept: true },
  { name: 'compiled', title: 'node dist/runtime/node.js, mounted (without npm)', command: process.execPath, args: [join(repoRoot, 'dist', 'runtime', 'node.js')], path: '/healthz', env: mounted },
  { name: 'bare', title: 'npm start, nothing mounted', command: 'npm', args: ['start', '--silent'], path: '/healthz' },
];

/**
 * Spawn to first answer (ms); for `search`, also to the first answer of a search over the whole catalog. A `kept`
 * mode starts in the same project every time; `linger` keeps the service up that long after (the cache's write).
 */
async function timeStart(mode, linger = 0) {
  const port = await freePort();
  const started = performance.now();
  if (mode.kept) mode.root ??= freshRoot('aeh-restart-');
  const env = serviceEnv({ PORT: String(port), PROJECT_ROOT: mode.root ?? freshRoot('aeh-start-'), DASHBOARD_API_KEY: BENCH_KEY, ...mode.env });
  const server = spawnProcess(mode.command, mode.args, { env });
  try {
    await waitForOk(`http://127.0.0.1:${port}${mode.path}`, { timeoutMs: 60_000, intervalMs: 2 });
    const answered = performance.now() - started;
    if (!mode.search) return { answered };
    const response = await fetch(`http://127.0.0.1:${port}/api/scenarios?limit=0`, { headers: { 'X-API-Key': BENCH_KEY } });
    const { total } = await response.json();
    if (total < 5000) throw new Error(`the mounted catalog answered ${total} scenarios`);
    const searched = performance.now() - started;
    if (linger) await new Promise((resolve) => setTimeout(resolve, linger));
    return { answered, searched };
  } catch (error) {
    throw new Error(`${mode.title}: ${error.message}\n${server.output()}`);
  } finally {
    await server.stop();
  }
}

ensureBuilt();
const times = Object.fromEntries(modes.map((mode) => [mode.name, []]));
const searches = { mounted: [], started: [], restarted: [] };
const ratios = [];
const searchRatios = { mounted: [], started: [], restarted: [] };
// The restarted project's first start, not timed: it loads every file and keeps them (written a second after).
for (const mode of modes.filter((candidate) => candidate.kept)) await timeStart(mode, 3_000);
const SEARCH_RATIO_GOAL = 2.5;
for (let run = 0; run < runs; run++) {
  const round = {};
  for (const mode of modes) {
    const { answered, searched } = await timeStart(mode);
    times[mode.name].push(answered);
    round[mode.name] = answered;
    if (searched !== undefined) {
      searches[mode.name].push(searched);
      searchRatios[mode.name].push(searched / round.floor);
    }
  }
  ratios.push(round.mounted / round.baseline);
}

const load = (await import('node:os')).loadavg()[0];
console.log(`\nNode ${process.versions.node}; load average ${fmt(load, 1)}; ${runs} first starts per command, alternating`);
console.log('| command | median ms | min ms | max ms |');
console.log('|---|---:|---:|---:|');
for (const mode of modes) console.log(`| ${mode.title} | ${fmt(median(times[mode.name]))} | ${fmt(Math.min(...times[mode.name]))} | ${fmt(Math.max(...times[mode.name]))} |`);
const searchTitles = { mounted: 'npm start', started: 'node scripts/start.mjs', restarted: 'node scripts/start.mjs, restarting' };
for (const name of ['mounted', 'started', 'restarted']) console.log(`| (${searchTitles[name]}, mounted: until the first search over the catalog answers) | ${fmt(median(searches[name]))} | ${fmt(Math.min(...searches[name]))} | ${fmt(Math.max(...searches[name]))} |`);
const ratio = median(ratios);
const mountedMs = median(times.mounted);
console.log(`\nper-run ratios: ${ratios.map((value) => `${fmt(value, 2)}x`).join(', ')}`);
console.log(`ratio: npm start with the catalog mounted is ${fmt(ratio, 2)}x the hello-world's start (goal <= ${RATIO_GOAL}x): ${ratio <= RATIO_GOAL ? 'PASS' : 'FAIL'}`);
console.log(`time: ${fmt(mountedMs)} ms median (goal < ${fmt(MS_GOAL)} ms): ${mountedMs < MS_GOAL ? 'PASS' : 'FAIL'}`);
// Judged on `npm start`, the stricter of the two the issue quotes; `node scripts/start.mjs` printed beside it.
const searchRatio = median(searchRatios.mounted);
const describe = (name) => `${fmt(median(searches[name]))} ms median, ${fmt(median(searchRatios[name]), 2)}x the floor's first answer (${fmt(median(times.floor))} ms; per run ${searchRatios[name].map((value) => `${fmt(value, 2)}x`).join(', ')})`;
console.log(`first search, node scripts/start.mjs (not judged): ${describe('started')}`);
console.log(`first search, node scripts/start.mjs restarting the same project (not judged): ${describe('restarted')}`);
console.log(`first search, npm start: ${describe('mounted')}; goal <= ${SEARCH_RATIO_GOAL}x: ${searchRatio <= SEARCH_RATIO_GOAL ? 'PASS' : 'FAIL'}`);
process.exitCode = ratio <= RATIO_GOAL && mountedMs < MS_GOAL && searchRatio <= SEARCH_RATIO_GOAL ? 0 : 1;
