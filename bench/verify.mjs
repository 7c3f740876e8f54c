#!/usr/bin/env node
// Public verification throughput: `GET /api/v1/verify/:run_id` of a run with a 1 MiB trace, over HTTP with
// autocannon (after a 2 s warm-up), the service on the fs store in its own process.
// Goals (issue 13, raised by issue 36): re-hashing every artefact on every request (AEH_VERIFY_REHASH=always), at least 0.9 x the
// rate at which node:crypto alone hashes the same bytes on one core, measured side by side in this script
// (before and after the verify run, in this process); and (issue 5) the default at least 500/s. The default
// re-hashes only what the store cannot prove unchanged (fs: one stat per artefact; plugins/certification/
// verify-run.ts, docs/certificates.md "Verification cost"). Also printed: serving the certificate alone (same
// server) and the server's CPU time per request, which the load of other processes distorts far less; and the
// floor (bench/fixtures/hash-file-server.mjs): a bare hono app that reads the same size of file and hashes it,
// what any re-hashing verification over HTTP must spend at least.
// With --base <tree> (a checkout of the base commit with its dist/ built, e.g. `git archive <commit> | tar -x -C
// <tree>`, node_modules linked), that tree's service runs beside this one in every round: an A/B in the same run;
// --base-env KEY=VALUE[,KEY=VALUE] starts the base (this tree when --base is absent) with those settings, e.g.
// `--base-env AEH_HASH_WORKERS=0` for the fs store hashing in-thread.
// Usage: node bench/verify.mjs [--duration 10] [--trace-bytes 1048576] [--connections 4] [--rounds 3] [--base <tree>] [--base-env K=V]
import { createHash, randomFillSync } from 'node:crypto';
import { join } from 'node:path';
import { argument, BENCH_KEY, ensureBuilt, fmt, freePort, freshRoot, load, median, repoRoot, serviceEnv, spawnProcess } from './lib.mjs';

const duration = Number(argument('duration', '10'));
const traceBytes = Number(argument('trace-bytes', String(1 << 20)));
const rehashConnections = Number(argument('connections', '4'));
const rehashRoundsCount = Number(argument('rounds', '3'));
const baseEnv = Object.fromEntries(argument('base-env', '').split(',').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const baseTree = argument('base', '') || (Object.keys(baseEnv).length ? repoRoot : '');
const baseName = `${baseTree === repoRoot ? 'this tree' : baseTree}${Object.keys(baseEnv).length ? ` with ${argument('base-env', '')}` : ''}`;
const GOAL = 500;
// Issue 36: 0.9 x the bare hash, by rate and by CPU per request (issue 13 asked 0.7 by rate).
const RATIO_GOAL = 0.9;

let dist = true;
try {
  ensureBuilt();
} catch {
  // Someone's work in progress does not compile: measure the sources through tsx instead.
  dist = false;
}

async function startFixture(rehash, tree = repoRoot, extraEnv = {}) {
  const port = await freePort();
  const env = serviceEnv({
    PORT: String(port),
    HOST: '127.0.0.1',
    PROJECT_ROOT: freshRoot(),
    DASHBOARD_API_KEY: BENCH_KEY,
    AEH_STORAGE: 'fs',
    AEH_VERIFY_REHASH: rehash,
    TRACE_BYTES: String(traceBytes),
    // Every request comes from one address: the default public limit (600/min) would answer 429 at once.
    AEH_PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000000',
    ...extraEnv,
  });
  const server = spawnProcess(process.execPath, [join(tree, 'bench', 'fixtures', 'verify-server.mjs'), ...(dist || tree !== repoRoot ? ['--dist'] : [])], { env });
  const deadline = Date.now() + 120_000;
  while (!/READY (\S+) (\S+)/.test(server.output())) {
    if (Date.now() > deadline || server.child.exitCode !== null) throw new Error(`fixture did not start:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [, runId, url] = /READY (\S+) (\S+)/.exec(server.output());
  return { server, url: `${url}/api/v1/verify/${runId}`, certificateUrl: `${url}/v1/certificates/${runId}` };
}

async function measure(title, rehash, connections, { withBaseline = false } = {}) {
  const { server, url, certificateUrl } = await startFixture(rehash);
  const pid = server.child.pid;
  try {
    const check = await (await fetch(url)).json();
    if (check.valid !== true) throw new Error(`${title}: the run does not verify: ${JSON.stringify(check.checks)}`);
    const results = [];
    if (withBaseline) {
      // Same server, same run, no verification: what serving the certificate alone costs.
      const baseTitle = 'baseline: GET /v1/certificates/:run_id (same server, no verification)';
      await load({ url: certificateUrl, duration: 2, connections, title: `${baseTitle} (warm-up)` });
      results.push({ ...(await load({ url: certificateUrl, duration, connections, title: baseTitle, pid })), connections });
    }
    await load({ url, duration: 2, connections, title: `${title} (warm-up)` });
    results.push({ ...(await load({ url, duration, connections, title, pid })), connections });
    return results;
  } finally {
    await server.stop();
  }
}

const chunk = randomFillSync(Buffer.alloc(traceBytes));
/** node:crypto alone: SHA3-256 of the same number of bytes, one core (this process), for 2 s. */
function hashRate() {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let hashed = 0;
  while (performance.now() - started < 2000) {
    createHash('sha3-256').update(chunk).digest();
    hashed++;
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond: hashed / ((performance.now() - started) / 1000), cpuMicros: (cpu.user + cpu.system) / hashed };
}

/** The floor: a bare hono app reading the same size of file from disk in slices and hashing it (bench/fixtures/hash-file-server.mjs). */
async function startFloor() {
  const port = await freePort();
  const server = spawnProcess(process.execPath, [join(repoRoot, 'bench', 'fixtures', 'hash-file-server.mjs')], { env: serviceEnv({ PORT: String(port), TRACE_BYTES: String(traceBytes) }) });
  const deadline = Date.now() + 30_000;
  while (!server.output().includes('READY')) {
    if (Date.now() > deadline || server.child.exitCode !== null) throw new Error(`the floor fixture did not start:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { server, url: `http://127.0.0.1:${port}/hash` };
}

/**
 * Re-hashing verify, the floor and the bare hash, alternated for --rounds rounds with both servers up: on a host
 * shared with other tenants the hash's own speed drifts by tens of percent within minutes, so each round's
 * ratios are taken from measurements seconds apart, and the medians of the rounds' ratios are reported.
 */
async function rehashRounds(title, connections) {
  const service = await startFixture('always');
  const base = baseTree ? await startFixture('always', baseTree, baseEnv) : null;
  const floor = await startFloor();
  const floorTitle = `floor: a bare hono app reading a ${fmt(traceBytes)}-byte file in 64 KiB slices and hashing it`;
  try {
    const check = await (await fetch(service.url)).json();
    if (check.valid !== true) throw new Error(`${title}: the run does not verify: ${JSON.stringify(check.checks)}`);
    await load({ url: service.url, duration: 2, connections, title: `${title} (warm-up)` });
    await load({ url: floor.url, duration: 2, connections, title: `${floorTitle} (warm-up)` });
    const baseTitle = `base (${baseName}): ${title}`;
    if (base) await load({ url: base.url, duration: 2, connections, title: `${baseTitle} (warm-up)` });
    const targets = {
      service: { url: service.url, title, pid: service.server.child.pid },
      floor: { url: floor.url, title: floorTitle, pid: floor.server.child.pid },
      ...(base ? { base: { url: base.url, title: baseTitle, pid: base.server.child.pid } } : {}),
    };
    const rounds = [];
    for (let round = 0; round < rehashRoundsCount; round++) {
      const before = hashRate();
      const sides = Object.keys(targets);
      const order = round % 2 === 0 ? sides : sides.reverse();
      const measured = {};
      for (const side of order) {
        const target = targets[side];
        measured[side] = { ...(await load({ ...target, duration, connections })), connections };
      }
      const after = hashRate();
      const hash = { before, after, perSecond: (before.perSecond + after.perSecond) / 2, cpuMicros: (before.cpuMicros + after.cpuMicros) / 2 };
      rounds.push({ ...measured, hash });
    }
    return rounds;
  } finally {
    await service.server.stop();
    await base?.server.stop();
    await floor.server.stop();
  }
}

const [certificateOnly, byDefault] = await measure('GET /api/v1/verify/:run_id (default: re-hash what the store cannot prove unchanged)', 'changed', 50, { withBaseline: true });
// CPU-bound at one hash per request: a few connections saturate it; 50 would only queue into time-outs.
const rounds = await rehashRounds('GET /api/v1/verify/:run_id (AEH_VERIFY_REHASH=always: re-hash every request)', rehashConnections);
const middle = (values) => median(values.filter((value) => Number.isFinite(value)));
const ratio = middle(rounds.map((round) => round.service.requestsPerSecond / round.hash.perSecond));
const cpuRatio = middle(rounds.map((round) => round.hash.cpuMicros / (round.service.cpuMicrosPerRequest ?? NaN))) || null;
const floorRatio = middle(rounds.map((round) => round.floor.requestsPerSecond / round.hash.perSecond));
const floorCpuRatio = middle(rounds.map((round) => round.hash.cpuMicros / (round.floor.cpuMicrosPerRequest ?? NaN)));
const serviceToFloor = middle(rounds.map((round) => round.service.requestsPerSecond / round.floor.requestsPerSecond));
const serviceToFloorCpu = middle(rounds.map((round) => (round.floor.cpuMicrosPerRequest ?? NaN) / (round.service.cpuMicrosPerRequest ?? NaN)));
const cpuCell = (result) => (result.cpuMicrosPerRequest ? fmt(result.cpuMicrosPerRequest) : '');

console.log(`\nNode ${process.versions.node}, ${dist ? 'compiled dist/' : 'sources via tsx'}, trace ${fmt(traceBytes)} bytes, ${duration} s per measurement`);
console.log('| measurement | connections | per second | p50 ms | p99 ms | server CPU µs per request |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [index, round] of rounds.entries()) {
  console.log(`| [round ${index + 1}] baseline: SHA3-256 of ${fmt(traceBytes / 1048576, 2)} MiB, node:crypto alone, one core (before / after the round) | | ${fmt(round.hash.before.perSecond)} / ${fmt(round.hash.after.perSecond)} | | | ${fmt(round.hash.cpuMicros)} per hash |`);
  for (const result of [round.service, round.base, round.floor].filter(Boolean)) console.log(`| [round ${index + 1}] ${result.title} | ${result.connections} | ${fmt(result.requestsPerSecond)} | ${result.latencyP50} | ${result.latencyP99} | ${cpuCell(result)} |`);
}
for (const result of [certificateOnly, byDefault]) console.log(`| ${result.title} | ${result.connections} | ${fmt(result.requestsPerSecond)} | ${result.latencyP50} | ${result.latencyP99} | ${cpuCell(result)} |`);
console.log(`\nre-hashing every request (medians of ${rounds.length} rounds' ratios): ${ratio.toFixed(2)} x node:crypto alone by rate${cpuRatio ? `, ${cpuRatio.toFixed(2)} x by CPU time per request` : ''} (goal >= ${RATIO_GOAL} by both)`);
console.log(`the floor (read the file and hash it, bare hono): ${floorRatio.toFixed(2)} x the bare hash by rate, ${floorCpuRatio.toFixed(2)} x by CPU; the service ${serviceToFloor.toFixed(2)} x the floor by rate, ${serviceToFloorCpu.toFixed(2)} x by CPU`);
if (baseTree) {
  const toBase = middle(rounds.map((round) => round.service.requestsPerSecond / round.base.requestsPerSecond));
  const toBaseCpu = middle(rounds.map((round) => (round.base.cpuMicrosPerRequest ?? NaN) / (round.service.cpuMicrosPerRequest ?? NaN)));
  const baseRatio = middle(rounds.map((round) => round.base.requestsPerSecond / round.hash.perSecond));
  const baseCpuRatio = middle(rounds.map((round) => round.hash.cpuMicros / (round.base.cpuMicrosPerRequest ?? NaN)));
  console.log(`the base (${baseName}): ${baseRatio.toFixed(2)} x the bare hash by rate, ${baseCpuRatio.toFixed(2)} x by CPU; this tree ${toBase.toFixed(2)} x the base by rate, ${toBaseCpu.toFixed(2)} x by CPU (above 1: this tree spends less)`);
}
console.log(`default verify: ${fmt(byDefault.requestsPerSecond)}/s (goal >= ${GOAL}/s), ${(byDefault.requestsPerSecond / certificateOnly.requestsPerSecond * 100).toFixed(0)}% of serving the certificate alone`);
const ok = ratio >= RATIO_GOAL && (cpuRatio === null || cpuRatio >= RATIO_GOAL) && byDefault.requestsPerSecond >= GOAL;
console.log(ok ? 'PASS' : 'FAIL');
process.exit(ok ? 0 : 1);
