/**
 * A suite whose launching was interrupted resumes (issue: a restart mid-launch left a suite incomplete forever).
 * The first app is stopped while 8 launches are in flight: their runs are queued but the suite never learnt their
 * ids (the audit hook, which answers a request only once it returns, holds them for good). A new app on the same
 * store launches exactly the pairs not launched, and finds the held ones again by their idempotency keys.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { testMetrics } from '../../test/evaluation-fixtures.ts';
import { launchGate, suiteCatalog } from '../../test/suite-fixtures.ts';
import { startRedis, SKIP_REDIS, type RedisServer } from '../../test/redis-server.ts';
import type { Plugin } from '../../core/plugin.ts';
import type { AuditEntry } from '../../core/hooks.ts';
import { runDueJobs } from '../../core/scheduler.ts';
import { LEASE_SLOT_MS } from './lease.ts';

const SCENARIOS = 20;
/** Launches the gate lets through: the first one (before the 202) and three in the background. */
const ALLOWED = 4;
/** The launcher's launches in flight at once (launch.ts), all of them held by the gate. */
const IN_FLIGHT = 8;

function app(env: Record<string, string>, plugins: Plugin[] = []): Promise<TestApp> {
  return testApp({ plugins: [testMetrics, ...plugins], env });
}

async function waitForSuite(t: TestApp, suiteId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await t.json('GET', `/api/v1/suites/${suiteId}`);
    if ((body.status === 'finished' && body.certificate?.status === 'issued') || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts a suite on a gated app as a key of its own, and stops the app with launches in flight. */
async function startAndStopMidLaunch(env: Record<string, string>): Promise<{ suiteId: string; creator: string; launchedBefore: number }> {
  const gate = launchGate(ALLOWED);
  const first = await app(env, [gate.plugin]);
  const key = (await first.json('POST', '/api/v1/keys', { body: { name: 'suite-runner', permissions: ['evaluations:launch', 'runs:read'] } })).body.secret;
  const accepted = await first.json('POST', '/api/v1/suites', { key, body: { scenarios: Array.from({ length: SCENARIOS }, (_, index) => `suite-s${index}`) } });
  expect(accepted.status).toBe(202);
  await gate.held(IN_FLIGHT);
  await first.app.close();
  const creator = gate.seen[0]!.principal!;
  expect(creator).not.toBe('static-key');
  return { suiteId: accepted.body.suite_id, creator, launchedBefore: gate.seen.length };
}

/** Every pair has one run, each run is the suite's, and the suite is certified. */
async function expectLaunchedOnce(t: TestApp, suite: any): Promise<void> {
  expect(suite.status).toBe('finished');
  expect(suite.certificate.status).toBe('issued');
  expect(suite.runs.map((run: any) => run.scenario_id).sort()).toEqual(Array.from({ length: SCENARIOS }, (_, index) => `suite-s${index}`).sort());
  expect(suite.runs.every((run: any) => run.status === 'succeeded')).toBe(true);
  const runIds = suite.runs.map((run: any) => run.run_id);
  expect(new Set(runIds).size).toBe(SCENARIOS);
  const listed = (await t.json('GET', '/api/v1/runs?limit=100')).body.items.map((run: any) => run.run_id);
  expect(listed.sort()).toEqual([...runIds].sort());
  expect((await t.json('GET', `/api/v1/verify/suite/${suite.suite_id}`, { key: null })).body.status).toBe('valid');
}

/** Collects the launches an app sends, with who they act as. */
function launchLog() {
  const launches: AuditEntry[] = [];
  const plugin: Plugin = { name: 'launch-log', setup: (host) => host.on('audit', (entry) => void (entry.action === 'evaluate' && launches.push(entry))) };
  return { plugin, launches };
}

describe('suites: a launch interrupted by a stop resumes at the next start', () => {
  let env: Record<string, string>;
  let second: TestApp;
  let launched: { suiteId: string; creator: string; launchedBefore: number };
  let suite: any;
  const log = launchLog();
  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aeh-suite-resume-'));
    env = { AEH_STORAGE: 'fs', AEH_DATA_DIR: dataDir, AEH_CATALOG_DIRS: suiteCatalog(SCENARIOS) };
    launched = await startAndStopMidLaunch(env);
    second = await app(env, [log.plugin]);
    suite = await waitForSuite(second, launched.suiteId);
  }, 90_000);
  afterAll(() => second?.app.close());

  it('the stopped app had launched some pairs without saving their runs, and left the rest', async () => {
    expect(launched.launchedBefore).toBe(ALLOWED + IN_FLIGHT);
  });

  it('the next app launches every pair exactly once and the suite completes with its certificate', async () => {
    await expectLaunchedOnce(second, suite);
    const telemetry = (await second.json('GET', '/api/info')).body.telemetry;
    expect(telemetry['suites.resumed']).toBe(1);
    // Launched before the stop but not saved: found again by their keys; the first was saved with the suite.
    expect(telemetry['evaluations.idempotent_replays']).toBe(ALLOWED + IN_FLIGHT - 1);
    expect(telemetry['evaluations.accepted']).toBe(SCENARIOS - ALLOWED - IN_FLIGHT);
  });

  it('resumes as the suite\'s creator', () => {
    expect(log.launches).toHaveLength(SCENARIOS - 1);
    expect(new Set(log.launches.map((entry) => entry.principal))).toEqual(new Set([launched.creator]));
  });

  it('a further start finds nothing to resume', async () => {
    await second.app.close();
    const third = await app(env);
    try {
      expect((await third.json('GET', `/api/v1/suites/${launched.suiteId}`)).body.status).toBe('finished');
      expect((await third.json('GET', '/api/info')).body.telemetry['suites.resumed']).toBeUndefined();
    } finally {
      await third.app.close();
    }
  });
});

describe('suites: after a crash, the minute job of a running instance takes the suite once its lease lapsed', () => {
  it('leaves the suite while the dead launcher\'s slots are current, then launches every pair once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aeh-suite-crash-'));
    const env = { AEH_STORAGE: 'fs', AEH_DATA_DIR: dataDir, AEH_CATALOG_DIRS: suiteCatalog(SCENARIOS) };
    const { suiteId } = await startAndStopMidLaunch(env);
    // A crashed launcher gives nothing up: its slots (the present one and the next) stay claimed.
    let clock = Date.now();
    const slot = Math.floor(clock / LEASE_SLOT_MS);
    const slots = join(dataDir, 'suites', suiteId, 'launcher');
    expect(existsSync(join(dataDir, 'suites', suiteId, 'suite.json'))).toBe(true);
    mkdirSync(slots, { recursive: true });
    for (const held of [slot, slot + 1]) writeFileSync(join(slots, String(held)), 'crashed');
    const running = await testApp({ plugins: [testMetrics], env, capabilities: { now: () => clock } });
    try {
      const services = await running.app.ready;
      expect(await runDueJobs(services, new Date(clock))).toContain('suites.resume');
      expect((await running.json('GET', '/api/info')).body.telemetry['suites.resumed']).toBeUndefined();
      expect((await running.json('GET', `/api/v1/suites/${suiteId}`)).body.status).toBe('launching');
      clock += 2 * LEASE_SLOT_MS;
      await runDueJobs(services, new Date(clock));
      await expectLaunchedOnce(running, await waitForSuite(running, suiteId));
      expect((await running.json('GET', '/api/info')).body.telemetry['suites.resumed']).toBe(1);
    } finally {
      await running.app.close();
    }
  }, 90_000);
});

describe.skipIf(SKIP_REDIS)('suites: two instances starting at once on one Redis resume an interrupted launch once', () => {
  let redis: RedisServer;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);
  afterAll(async () => {
    await Promise.allSettled(apps.map((started) => started.app.close()));
    await redis?.stop();
  });

  it('one of them takes the suite; every pair is launched exactly once', async () => {
    const env = { AEH_STORAGE: redis.url, AEH_DATA_DIR: mkdtempSync(join(tmpdir(), 'aeh-suite-redis-')), AEH_CATALOG_DIRS: suiteCatalog(SCENARIOS) };
    const { suiteId } = await startAndStopMidLaunch(env);
    apps.push(...(await Promise.all([app(env), app(env)])));
    const suite = await waitForSuite(apps[0]!, suiteId);
    await expectLaunchedOnce(apps[0]!, suite);
    const counters = await Promise.all(apps.map(async (started) => (await started.json('GET', '/api/info')).body.telemetry));
    const total = (name: string) => counters.reduce((sum, telemetry) => sum + (telemetry[name] ?? 0), 0);
    expect(total('suites.resumed')).toBe(1);
    expect(total('evaluations.idempotent_replays')).toBe(ALLOWED + IN_FLIGHT - 1);
    expect(total('evaluations.accepted')).toBe(SCENARIOS - ALLOWED - IN_FLIGHT);
  }, 120_000);
});
