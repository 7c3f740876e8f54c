#!/usr/bin/env node
// Throughput of authenticated `GET /api/info` against a bare hono hello-world served by the same adapter
// (@hono/node-server), both measured in this run with autocannon (50 connections, 10 s each, after a 2 s
// warm-up). Goals: the service sustains at least 95% of the requests per second of a bare hono app doing the
// route's HTTP work (reads the key header, answers a body of /api/info's size with a request id: what a route
// can reach is bounded by that work itself; issue 36), and at least 80% of the hello-world's (issue 26 item 9).
// Each server runs alone in its own process (the compiled service, as `npm start` runs it); autocannon runs
// here. A public `GET /healthz` of the same service is measured too, to separate the framework and middleware
// cost from authentication and the body. Usage: node bench/info-throughput.mjs [--duration 10] [--rounds 1]
// [--storage fs|memory] [--pin]
// --pin runs every server on CPU 0 and autocannon (this process) on CPU 1 (taskset): on a 2-core machine the
// client and the server otherwise take turns on both cores, and the req/s ratio swings by tens of points.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { argument, BENCH_KEY, ensureBuilt, fmt, freePort, freshRoot, load, median, repoRoot, serviceEnv, spawnProcess, waitForOk } from './lib.mjs';

const duration = Number(argument('duration', '10'));
const storage = argument('storage', 'fs');
const rounds = Number(argument('rounds', '1'));
const GOAL = 0.8;
const SHAPED_GOAL = 0.95;
const PIN = process.argv.includes('--pin');
if (PIN) spawnSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

async function measure(title, command, args, env, url, headers = {}) {
  const server = PIN ? spawnProcess('taskset', ['-c', '0', command, ...args], { env }) : spawnProcess(command, args, { env });
  try {
    await waitForOk(url, { headers });
    await load({ url, headers, duration: 2, title: `${title} (warm-up)` });
    return await load({ url, headers, duration, title, pid: server.child.pid });
  } catch (error) {
    throw new Error(`${error.message}\n${server.output()}`);
  } finally {
    await server.stop();
  }
}

ensureBuilt();

const basePort = await freePort();
const port = await freePort();
const env = serviceEnv({
  PORT: String(port),
  PROJECT_ROOT: freshRoot(),
  DASHBOARD_API_KEY: BENCH_KEY,
  AEH_STORAGE: storage,
  // One principal sends every request here; the default per-principal limit would answer 429 within a second.
  AEH_RATE_LIMIT_PER_MINUTE: '1000000000',
  AEH_PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000000',
});
// The size of the service's answer, for the diagnostic baseline.
const probe = spawnProcess(process.execPath, [join(repoRoot, 'dist', 'runtime', 'node.js')], { env });
let infoBytes;
try {
  await waitForOk(`http://127.0.0.1:${port}/api/info`, { headers: { 'X-API-Key': BENCH_KEY } });
  infoBytes = (await (await fetch(`http://127.0.0.1:${port}/api/info`, { headers: { 'X-API-Key': BENCH_KEY } })).arrayBuffer()).byteLength;
} finally {
  await probe.stop();
}
const shapedPort = await freePort();
const servers = {
  baseline: { title: 'hono hello-world', args: [join(repoRoot, 'bench', 'fixtures', 'hello-hono.mjs')], env: serviceEnv({ PORT: String(basePort) }), url: `http://127.0.0.1:${basePort}/` },
  healthz: { title: 'GET /healthz (public, same app)', args: [join(repoRoot, 'dist', 'runtime', 'node.js')], env, url: `http://127.0.0.1:${port}/healthz` },
  info: { title: 'GET /api/info (X-API-Key)', args: [join(repoRoot, 'dist', 'runtime', 'node.js')], env, url: `http://127.0.0.1:${port}/api/info`, headers: { 'X-API-Key': BENCH_KEY } },
  shaped: { title: `hono doing the route's HTTP work (key header, ${infoBytes} bytes)`, args: [join(repoRoot, 'bench', 'fixtures', 'hello-hono-shaped.mjs')], env: serviceEnv({ PORT: String(shapedPort), BENCH_KEY, INFO_BYTES: String(infoBytes) }), url: `http://127.0.0.1:${shapedPort}/info`, headers: { 'X-API-Key': BENCH_KEY } },
};

// Rounds alternate baseline and service so that load from other processes on the machine hits both alike;
// the ratio reported is the median of the per-round ratios.
const rows = [];
const ratios = [];
for (let round = 1; round <= rounds; round++) {
  const measured = {};
  for (const [name, server] of Object.entries(servers)) {
    measured[name] = { ...(await measure(`${server.title}${rounds > 1 ? ` [round ${round}]` : ''}`, process.execPath, server.args, server.env, server.url, server.headers)), server: name };
    rows.push(measured[name]);
  }
  ratios.push(measured.info.requestsPerSecond / measured.baseline.requestsPerSecond);
}

const ratio = median(ratios);
console.log(`\nNode ${process.versions.node}, ${duration} s per server, 50 connections, AEH_STORAGE=${storage}, ${rounds} round(s)${PIN ? ', servers on CPU 0 and the client on CPU 1' : ''}`);
console.log('| server | req/s | p50 ms | p99 ms | server CPU µs/request |');
console.log('|---|---:|---:|---:|---:|');
for (const row of rows) console.log(`| ${row.title} | ${fmt(row.requestsPerSecond)} | ${row.latencyP50} | ${row.latencyP99} | ${row.cpuMicrosPerRequest === null ? 'n/a' : fmt(row.cpuMicrosPerRequest, 1)} |`);
// The hello-world's rows only: the diagnostic app's title starts with "hono" too, and its heavier requests once
// raised the baseline's median (and so this ratio).
const cpuOf = (server) => median(rows.filter((row) => row.server === server).map((row) => row.cpuMicrosPerRequest ?? NaN));
const cpuRatio = cpuOf('baseline') / cpuOf('info');
console.log(`\nCPU-time ratio (baseline CPU per request / service CPU per request, medians): ${(cpuRatio * 100).toFixed(1)}%`);
console.log(`per-round ratios: ${ratios.map((value) => `${(value * 100).toFixed(1)}%`).join(', ')}`);
// Load from other tenants only ever slows a server down, so each server's best round is the nearest to what it
// can do; on a shared machine the ratio of the bests is the steadiest figure after the CPU-time ratio.
const best = (server) => Math.max(...rows.filter((row) => row.server === server).map((row) => row.requestsPerSecond));
console.log(`best rounds: ${fmt(best('info'))} vs ${fmt(best('baseline'))} req/s = ${((best('info') / best('baseline')) * 100).toFixed(1)}%`);
const shapedRatios = [];
for (let round = 0; round < rounds; round++) shapedRatios.push(rows[round * 4 + 3].requestsPerSecond / rows[round * 4].requestsPerSecond);
console.log(`the route's HTTP work alone (diagnostic, not judged): ${(median(shapedRatios) * 100).toFixed(1)}% of the baseline`);
// What the service's own pipeline costs, with the route's HTTP shape taken out: the service against that app.
const againstShaped = [];
for (let round = 0; round < rounds; round++) againstShaped.push(rows[round * 4 + 2].requestsPerSecond / rows[round * 4 + 3].requestsPerSecond);
const shapedRatio = median(againstShaped);
const shapedCpu = cpuOf('shaped') / cpuOf('info');
console.log(`the service against a bare app doing the same HTTP work: ${(shapedRatio * 100).toFixed(1)}% by requests per second (median of the rounds' ratios; goal >= ${SHAPED_GOAL * 100}%), ${(shapedCpu * 100).toFixed(1)}% by server CPU per request: ${shapedRatio >= SHAPED_GOAL ? 'PASS' : 'FAIL'}`);
console.log(`ratio: ${(ratio * 100).toFixed(1)}% of the hello-world (goal >= ${GOAL * 100}%): ${ratio >= GOAL ? 'PASS' : 'FAIL'}`);
process.exitCode = ratio >= GOAL && shapedRatio >= SHAPED_GOAL ? 0 : 1;
