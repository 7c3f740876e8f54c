/**
 * workerd for the runtime smoke suite (test/runtimes.test.ts): builds the bundle (scripts/build-workerd.mjs),
 * serves the `test` const of its config on free ports with a fresh KV namespace and cron store, seeds the
 * namespace with a run produced on Node (scripts/kv-seed.mjs, on the KV protocol, as `wrangler kv bulk put`
 * would on Cloudflare) and publishes Node's public keys through AEH_SIGNING_RETIRED_JWKS. Plus the checks only
 * workerd needs: path-based requests answer 501, the cron trigger runs the due jobs, validation works without
 * code generation.
 */
import { it, expect } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWorkerd } from '../scripts/build-workerd.mjs';
import { putEntries, runEntries } from '../scripts/kv-seed.mjs';
import { freePort } from './redis-server.ts';
import { REPO, SMOKE_SCENARIO, call, startService, type RunningService } from './runtime-smoke.ts';

export const WORKERD = join(REPO, 'node_modules', '.bin', 'workerd');

/** A running workerd with the raw KV protocol and the cron test clock of its `test` config. */
export interface RunningWorkerd extends RunningService {
  kvUrl: string;
  cronUrl: string;
}

/** Builds the bundle and starts `workerd serve --experimental dist/workerd/config.capnp test`. */
export async function startWorkerd(env: Record<string, string>): Promise<RunningWorkerd> {
  const { config } = await buildWorkerd({ log: () => undefined });
  const state = mkdtempSync(join(tmpdir(), 'aeh-workerd-'));
  const dirs = Object.fromEntries(['kv-store', 'kv-blobs', 'cron-store'].map((name) => [name, join(state, name)]));
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  const [kvPort, cronPort] = [await freePort(), await freePort()];
  const service = await startService(WORKERD, (port) => [
    'serve', '--experimental', config, 'test',
    '--socket-addr', `http=127.0.0.1:${port}`,
    '--socket-addr', `kv-admin=127.0.0.1:${kvPort}`,
    '--socket-addr', `cron-admin=127.0.0.1:${cronPort}`,
    ...Object.entries(dirs).flatMap(([name, dir]) => ['--directory-path', `${name}=${dir}`]),
  ], env);
  return { ...service, kvUrl: `http://127.0.0.1:${kvPort}`, cronUrl: `http://127.0.0.1:${cronPort}` };
}

/**
 * Starts workerd able to verify what Node signed: the run's files seeded into its KV namespace, Node's public
 * key set (`GET /.well-known/jwks.json` of the Node instance) published as retired keys. No private key is copied.
 */
export async function startSeededWorkerd(dataDir: string, runId: string, nodeJwks: string): Promise<RunningWorkerd> {
  const service = await startWorkerd({ AEH_SIGNING_RETIRED_JWKS: nodeJwks });
  try {
    await putEntries(service.kvUrl, runEntries(dataDir, [runId]));
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}

/** Milliseconds until the next minute starts. */
const untilNextMinute = () => 60_000 - (Date.now() % 60_000);

/** The workerd-only cases, registered inside the runtime's describe block. */
export function workerdCases(workerd: () => RunningWorkerd): void {
  it('answers 501 not_implemented on every path-based request (no file system)', async () => {
    const { base } = workerd();
    const inline = SMOKE_SCENARIO;
    const requests: Array<[string, unknown]> = [
      ['/api/evaluate', { path: 'scenarios/smoke.json' }],
      ['/api/v1/schedules', { cron: '0 3 * * *', path: 'scenarios/smoke.json' }],
      ['/api/v1/mutate', { path: 'scenarios/smoke.json', type: 'typo' }],
      ['/api/v1/spec-to-eval', { input_path: 'docs/prd.md' }],
      ['/api/v1/spec-to-eval', { markdown: '# Product\n\n## Tasks\n\n- Ask for the balance: the agent answers with it.\n', persist: true }],
      ['/api/evaluate', { scenario: { ...inline, agent: { adapter: 'replay', trace_path: 'recordings/trace.jsonl' } } }],
    ];
    for (const [path, body] of requests) {
      const answer = await call(base, 'POST', path, body);
      expect(answer.status, `${path} ${answer.text.slice(0, 200)}`).toBe(501);
      expect(answer.json).toMatchObject({ code: 'not_implemented', status: 501 });
      expect(answer.json.detail).toMatch(/no file system/);
    }
  });

  it('validates bodies with the precompiled validators (workerd forbids code generation)', async () => {
    const { base } = workerd();
    const refused = await call(base, 'POST', '/api/evaluate', { scenario: { ...SMOKE_SCENARIO, tasks: 'none' } });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('validation_failed');
    expect(refused.json.errors.some((error: { path: string }) => error.path.includes('tasks'))).toBe(true);
    const schedule = await call(base, 'POST', '/api/v1/schedules', { cron: 42 });
    expect(schedule.status).toBe(400);
    expect(schedule.json.errors.map((error: { path: string }) => error.path)).toContain('/cron');
  });

  it('runs the due jobs when the cron trigger fires', async () => {
    const { base, cronUrl } = workerd();
    // The bundled cron Worker plans on its test clock: advance it to just before the next minute, so the
    // trigger fires about a second from now in real time.
    if (untilNextMinute() < 2_000) await new Promise((resolve) => setTimeout(resolve, untilNextMinute() + 100));
    const advanced = await fetch(`${cronUrl}/clock?advance=${untilNextMinute() - 1_000}`, { method: 'POST' });
    expect(advanced.status).toBe(200);
    const deadline = Date.now() + 60_000;
    let runs = 0;
    while (Date.now() < deadline && !runs) {
      runs = (await call(base, 'GET', '/api/info')).json.telemetry['jobs.schedules.tick.runs'] ?? 0;
      if (!runs) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(runs).toBeGreaterThanOrEqual(1);
  }, 20_000);
}
