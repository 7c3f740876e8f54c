#!/usr/bin/env node
// Public verification throughput: `GET /api/v1/verify/:run_id` of a run with a 1 MiB trace, over HTTP with
// autocannon (50 connections, after a 2 s warm-up), the service on the fs store in its own process.
// Goal (issue 5): at least 500 verifications per second.
// Re-hashing 1 MiB of SHA3-256 on every request caps throughput at what one core hashes per second, so the
// service reuses the artefact hashes of a certificate for AEH_VERIFY_CACHE_MS (default 1000 ms; see
// plugins/certification/verify-run.ts and docs/certificates.md). Measured here: serving the certificate alone
// (baseline, same server), the default verify, AEH_VERIFY_CACHE_MS=0 (re-hash every request), and the raw
// SHA3-256 rate of 1 MiB in this process, which bounds the uncached figure per core.
// Usage: node bench/verify.mjs [--duration 10] [--trace-bytes 1048576]
import { createHash, randomFillSync } from 'node:crypto';
import { join } from 'node:path';
import { ensureBuilt, fmt, freePort, freshRoot, load, repoRoot, serviceEnv, spawnProcess, BENCH_KEY } from './lib.mjs';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const duration = Number(argument('duration', '10'));
const traceBytes = Number(argument('trace-bytes', String(1 << 20)));
const GOAL = 500;

let dist = true;
try {
  ensureBuilt();
} catch {
  // Someone's work in progress does not compile: measure the sources through tsx instead.
  dist = false;
}

async function startFixture(cacheMs) {
  const port = await freePort();
  const env = serviceEnv({
    PORT: String(port),
    HOST: '127.0.0.1',
    PROJECT_ROOT: freshRoot(),
    DASHBOARD_API_KEY: BENCH_KEY,
    AEH_STORAGE: 'fs',
    AEH_VERIFY_CACHE_MS: String(cacheMs),
    TRACE_BYTES: String(traceBytes),
    // Every request comes from one address: the default public limit (600/min) would answer 429 at once.
    AEH_PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000000',
  });
  const server = spawnProcess(process.execPath, [join(repoRoot, 'bench', 'fixtures', 'verify-server.mjs'), ...(dist ? ['--dist'] : [])], { env });
  const deadline = Date.now() + 120_000;
  while (!/READY (\S+) (\S+)/.test(server.output())) {
    if (Date.now() > deadline || server.child.exitCode !== null) throw new Error(`fixture did not start:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [, runId, url] = /READY (\S+) (\S+)/.exec(server.output());
  return { server, url: `${url}/api/v1/verify/${runId}`, certificateUrl: `${url}/v1/certificates/${runId}` };
}

async function measure(title, cacheMs, connections, withBaseline = false) {
  const { server, url, certificateUrl } = await startFixture(cacheMs);
  try {
    const check = await (await fetch(url)).json();
    if (check.valid !== true) throw new Error(`${title}: the run does not verify: ${JSON.stringify(check.checks)}`);
    const results = [];
    if (withBaseline) {
      // Same server, same run, no verification: what serving the certificate alone costs.
      const baseTitle = 'baseline: GET /v1/certificates/:run_id (same server, no verification)';
      await load({ url: certificateUrl, duration: 2, connections, title: `${baseTitle} (warm-up)` });
      results.push({ ...(await load({ url: certificateUrl, duration, connections, title: baseTitle })), connections });
    }
    await load({ url, duration: 2, connections, title: `${title} (warm-up)` });
    results.push({ ...(await load({ url, duration, connections, title })), connections });
    return results;
  } finally {
    await server.stop();
  }
}

const chunk = randomFillSync(Buffer.alloc(traceBytes));
const started = performance.now();
let hashed = 0;
while (performance.now() - started < 2000) {
  createHash('sha3-256').update(chunk).digest();
  hashed++;
}
const hashesPerSecond = hashed / ((performance.now() - started) / 1000);

const [certificateOnly, cached] = await measure('GET /api/v1/verify/:run_id (default: artefact hashes reused ≤ 1 s)', 1000, 50, true);
// CPU-bound at one hash per request: a few connections saturate it; 50 would only queue into time-outs.
const [uncached] = await measure('GET /api/v1/verify/:run_id (AEH_VERIFY_CACHE_MS=0: re-hash every request)', 0, 4);

console.log(`\nNode ${process.versions.node}, ${dist ? 'compiled dist/' : 'sources via tsx'}, trace ${fmt(traceBytes)} bytes, ${duration} s per measurement`);
console.log('| measurement | connections | per second | p50 ms | p99 ms |');
console.log('|---|---:|---:|---:|---:|');
console.log(`| baseline: SHA3-256 of ${fmt(traceBytes / 1048576, 2)} MiB in this process (node:crypto, one core) | | ${fmt(hashesPerSecond)} | | |`);
for (const result of [certificateOnly, cached, uncached]) console.log(`| ${result.title} | ${result.connections} | ${fmt(result.requestsPerSecond)} | ${result.latencyP50} | ${result.latencyP99} |`);
console.log(`\ndefault verify: ${fmt(cached.requestsPerSecond)}/s (goal >= ${GOAL}/s), ${(cached.requestsPerSecond / certificateOnly.requestsPerSecond * 100).toFixed(0)}% of serving the certificate alone; re-hashing every request: ${fmt(uncached.requestsPerSecond)}/s`);
const ok = cached.requestsPerSecond >= GOAL;
console.log(ok ? 'PASS' : 'FAIL');
process.exit(ok ? 0 : 1);
