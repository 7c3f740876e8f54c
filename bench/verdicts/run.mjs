#!/usr/bin/env node
// The verdict benchmark (issue 24 item 8, issue 32): agents with known behaviour (a correct one, two that take a
// detour, eleven with one realistic bug each (one of them nests a forbidden call 20,000 levels deep), and five judged
// by a gold world: bench/verdicts/cases.ts) run through
// the HTTP API of a started service over
// the http, openai and MCP adapters; prints the confusion matrix of expected × actual verdicts and every case's
// verdict per adapter. The goal is zero wrong verdicts, and the same verdict over every adapter. Exits 1 on any
// wrong verdict. The same cases run in the test suite (test/verdict-benchmark.test.ts).
// Usage: node bench/verdicts/run.mjs [--json]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';
import { freePort } from '../lib.mjs';

register();
const { startNodeService } = await import('../../runtime/node/start.ts');
const { silentLogger } = await import('../../core/capabilities.ts');
const { startBenchAgents } = await import('./agents.ts');
const { confusion, formatConfusion, runVerdictCases } = await import('./run-cases.ts');

const KEY = 'b'.repeat(64);
const root = mkdtempSync(join(tmpdir(), 'aeh-verdicts-'));
const agents = await startBenchAgents();
// A known port: the MCP URLs the service hands its agents name it.
const service = await startNodeService({ DASHBOARD_API_KEY: KEY, PROJECT_ROOT: root, AEH_STORAGE: 'memory', PORT: String(await freePort()), HOST: '127.0.0.1', AEH_ALLOW_HOSTS: '127.0.0.1' }, root, silentLogger);
try {
  const started = performance.now();
  const outcomes = await runVerdictCases({ url: service.url, key: KEY }, agents, 'bench');
  const seconds = (performance.now() - started) / 1000;
  if (process.argv.includes('--json')) console.log(JSON.stringify({ outcomes, ...confusion(outcomes), seconds }, null, 2));
  else {
    for (const line of formatConfusion(outcomes)) console.log(line);
    console.log(`\n${outcomes.length} runs in ${seconds.toFixed(1)} s`);
  }
  process.exitCode = confusion(outcomes).wrong.length ? 1 : 0;
} finally {
  await service.stop();
  await agents.close();
}
