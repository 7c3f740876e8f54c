import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { testApp, TEST_KEY } from './helpers.ts';
import type { Plugin } from '../core/plugin.ts';
import storageMemory from '../plugins/storage/memory.ts';
import storageRedis from '../plugins/storage/redis.ts';
import authStaticKey from '../plugins/auth/static-key.ts';
import schedules from '../plugins/schedules/index.ts';
import catalog from '../plugins/catalog/index.ts';
import agentRegistry from '../plugins/agent-registry/index.ts';
import agentScripted from '../plugins/agents/scripted.ts';
import { runDueJobs } from '../core/scheduler.ts';
import { startRedis, SKIP_REDIS, type RedisServer } from './redis-server.ts';
import claimsBearer from './fixtures/claims-bearer-auth.ts';
import audit from '../plugins/audit/index.ts';
import type { AuthManagerInstance } from '../core/auth-manager.ts';
import type { OverrideThis } from '../core/plugin.ts';

/** Who each launch ran as. */
let principals: unknown[] = [];

/** Stands in for the evaluation engine: counts launches. */
function fakeEvaluate(launched: unknown[]): Plugin {
  return {
    name: 'evaluation', // stands in for the evaluation plugin schedules depends on
    setup(host) {
      host.routes.register({
        method: 'POST', path: '/api/evaluate', permission: 'evaluations:launch', summary: 'fake', body: { type: 'object' },
        handler: (c) => {
          launched.push(c.var.body);
          principals.push(c.var.principal);
          return c.json({ task_id: `t${launched.length}`, run_id: `r${launched.length}`, status: 'queued', status_url: '/x' }, 202);
        },
      });
    },
  };
}

const MONDAY_0900_UTC = Date.parse('2026-11-23T09:00:20Z');

const SCENARIO = {
  id: 'scheduled', title: 'Scheduled', industry: 'Retail', use_case: 'Support', tags: [], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { '*': 'ok' } }, topology: [], tasks: [{ id: 't1', input: 'hi', metrics: [{ id: 'task_success' }] }],
};

async function appWith(launched: unknown[], env: Record<string, string> = {}, now = () => MONDAY_0900_UTC) {
  return testApp({ only: [storageMemory, storageRedis, authStaticKey, catalog, schedules, fakeEvaluate(launched)], env, capabilities: { now } });
}

describe('schedules: CRUD', () => {
  it('creates, lists and deletes a schedule with its next run', async () => {
    const t = await appWith([]);
    await t.request('GET', '/healthz');
    const scenarioPath = `${t.root}/s.json`;
    (await import('node:fs')).writeFileSync(scenarioPath, JSON.stringify(SCENARIO));
    const created = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json', timezone: 'Europe/Paris' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/schedules/${created.body.schedule_id}`);
    expect(created.body.next_run).toMatch(/T08:00:00\.000Z$/); // 09:00 in Paris in winter
    const list = await t.json('GET', '/api/v1/schedules');
    expect(list.body.items.map((item: { schedule_id: string }) => item.schedule_id)).toEqual([created.body.schedule_id]);
    expect((await t.request('DELETE', `/api/v1/schedules/${created.body.schedule_id}`)).status).toBe(204);
    expect((await t.request('DELETE', `/api/v1/schedules/${created.body.schedule_id}`)).status).toBe(404);
    expect((await t.json('GET', '/api/v1/schedules')).body.items).toEqual([]);
  });

  it('refuses bad patterns, zones, both or neither target, unknown scenarios and paths outside the jail', async () => {
    const t = await appWith([]);
    const cases: Array<[unknown, number]> = [
      [{ cron: 'every monday', scenario_id: 'x' }, 400],
      [{ cron: '61 9 * * 1', scenario_id: 'x' }, 400],
      [{ cron: '0 0 9 * * 1', scenario_id: 'x' }, 400],
      [{ cron: '0 9 * * 1', scenario_id: 'x', timezone: 'Mars/Olympus' }, 400],
      [{ cron: '0 9 * * 1' }, 400],
      [{ cron: '0 9 * * 1', scenario_id: 'x', path: 'y' }, 400],
      [{ cron: '0 9 * * 1', scenario_id: 'no-such-scenario' }, 404],
      [{ cron: '0 9 * * 1', path: '/etc/passwd' }, 403],
    ];
    for (const [body, status] of cases) expect((await t.json('POST', '/api/v1/schedules', { body })).status, JSON.stringify(body)).toBe(status);
  });

  it('takes a scenario inline, fires it as validated, and refuses a file or inline scenario that could never run', async () => {
    const launched: unknown[] = [];
    const t = await appWith(launched);
    const created = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', scenario: SCENARIO } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.scenario.id).toBe('scheduled');
    expect(await runDueJobs(await t.app.ready, new Date(MONDAY_0900_UTC))).toContain('schedules.tick');
    expect(launched).toEqual([{ scenario: expect.objectContaining({ id: 'scheduled', tasks: SCENARIO.tasks }) }]);
    const bad = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', scenario: { id: 'x' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.every((error: { path: string }) => error.path.startsWith('/scenario'))).toBe(true);
    (await import('node:fs')).writeFileSync(`${t.root}/broken.json`, '{}');
    const broken = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 'broken.json' } });
    expect(broken.status).toBe(400);
    expect(broken.body.errors.map((error: { path: string }) => error.path)).toEqual(expect.arrayContaining(['/path']));
  });

  it('needs evaluations:launch', async () => {
    const t = await appWith([]);
    expect((await t.json('GET', '/api/v1/schedules', { key: null })).status).toBe(401);
  });
});

describe('schedules: firing', () => {
  it('launches a due schedule once per firing and records the last run', async () => {
    const launched: unknown[] = [];
    const t = await appWith(launched);
    (await import('node:fs')).writeFileSync(`${t.root}/s.json`, JSON.stringify(SCENARIO));
    const due = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json' } });
    await t.json('POST', '/api/v1/schedules', { body: { cron: '30 9 * * 1', path: 's.json' } });
    const services = await t.app.ready;
    expect(await runDueJobs(services, new Date(MONDAY_0900_UTC))).toContain('schedules.tick');
    expect(await runDueJobs(services, new Date(MONDAY_0900_UTC))).toEqual([]); // the same minute again: already fired
    expect(launched).toEqual([{ path: 's.json' }]);
    const record = (await t.json('GET', '/api/v1/schedules')).body.items.find((item: { schedule_id: string }) => item.schedule_id === due.body.schedule_id);
    expect(record.last_run).toMatchObject({ at: '2026-11-23T09:00:00.000Z', task_id: 't1', status: 202 });
  });
});

describe('schedules: against a registered agent', () => {
  it('fires the scenario against the named agent, and refuses a name the registry does not hold', async () => {
    const launched: unknown[] = [];
    const t = await testApp({ only: [storageMemory, storageRedis, authStaticKey, catalog, agentScripted, agentRegistry, schedules, fakeEvaluate(launched)], capabilities: { now: () => MONDAY_0900_UTC } });
    (await import('node:fs')).writeFileSync(`${t.root}/s.json`, JSON.stringify(SCENARIO));
    const unknown = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json', agent: 'nobody' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('agent nobody');
    expect((await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json', agent: 'Not A Name' } })).status).toBe(400);
    const registered = await t.json('POST', '/api/v1/agents', { body: { name: 'support-bot', adapter: 'scripted', options: { replies: { '*': 'hi' } } } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const created = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json', agent: 'support-bot' } });
    expect(created.status).toBe(201);
    expect(created.body.agent).toBe('support-bot');
    await runDueJobs(await t.app.ready, new Date(MONDAY_0900_UTC));
    expect(launched).toEqual([{ path: 's.json', agent: 'support-bot' }]);
  });
});

/** Bearer tokens for test principals: `claims.<base64url JSON>` (test/fixtures/claims-bearer-auth.ts). */
const token = (claims: Record<string, unknown>) => `claims.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
/** Subjects whose claims the identity provider's mapping no longer honours. */
const revoked = new Set<string>();
const revocableMapping: Plugin = {
  name: 'test-revocable-mapping',
  overrides: {
    AuthManager: {
      permissionsFromClaims(this: OverrideThis<AuthManagerInstance>, claims: Record<string, unknown>): string[] {
        return revoked.has(String(claims.sub)) ? [] : this.__super__.permissionsFromClaims(claims);
      },
    },
  },
};

describe('schedules: act as the person who made them (issue 13 item 8)', () => {
  const alice = token({ sub: 'alice', roles: ['operator'] });
  const bob = token({ sub: 'bob', roles: ['operator'] });
  const supervisor = token({ sub: 'sue', roles: ['supervisor'] });
  async function appAsPeople(launched: unknown[], env: Record<string, string> = {}) {
    principals = [];
    revoked.clear();
    const t = await testApp({ only: [storageMemory, authStaticKey, claimsBearer, revocableMapping, audit, catalog, schedules, fakeEvaluate(launched)], env, capabilities: { now: () => MONDAY_0900_UTC } });
    (await import('node:fs')).writeFileSync(`${t.root}/s.json`, JSON.stringify(SCENARIO));
    return t;
  }
  const asUser = (credential: string) => ({ key: null, headers: { authorization: `Bearer ${credential}` } });

  it('fires with the creator\'s principal and only evaluations:launch, not the master key, and audits the creator', async () => {
    const launched: unknown[] = [];
    const t = await appAsPeople(launched);
    const created = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json' }, ...asUser(alice) });
    expect(created.status).toBe(201);
    expect(created.body.created_by).toBe('test|alice');
    expect(created.body).not.toHaveProperty('creator');
    await runDueJobs(await t.app.ready, new Date(MONDAY_0900_UTC));
    expect(launched).toHaveLength(1);
    expect(principals[0]).toEqual({ id: 'test|alice', provider: 'test-claims', permissions: ['evaluations:launch'], claims: { sub: 'alice', roles: ['operator'] } });
    const entries = (await t.json('GET', '/api/v1/audit')).body.items as Array<{ action: string; principal: string }>;
    expect(entries.find((entry) => entry.action !== 'schedule' && entry.principal === 'test|alice' && entry.action.includes('evaluate'))).toBeDefined();
    expect(entries.some((entry) => entry.action.includes('evaluate') && entry.principal === 'static-key')).toBe(false);
  });

  it('disables the schedule when the creator\'s claims no longer grant evaluations:launch, and says so', async () => {
    const launched: unknown[] = [];
    const t = await appAsPeople(launched);
    const created = await t.json('POST', '/api/v1/schedules', { body: { cron: '* * * * *', path: 's.json' }, ...asUser(alice) });
    revoked.add('alice');
    const services = await t.app.ready;
    await runDueJobs(services, new Date(MONDAY_0900_UTC));
    expect(launched).toEqual([]);
    const [listed] = (await t.json('GET', '/api/v1/schedules')).body.items;
    expect(listed).toMatchObject({ schedule_id: created.body.schedule_id, disabled: { reason: expect.stringMatching(/no longer grant evaluations:launch/) }, next_run: null });
    // Restoring the mapping does not silently re-enable it: the creator makes it again.
    revoked.clear();
    await runDueJobs(services, new Date(MONDAY_0900_UTC + 60_000));
    expect(launched).toEqual([]);
    const entries = (await t.json('GET', '/api/v1/audit')).body.items as Array<{ action: string; principal: string; outcome: string }>;
    expect(entries).toContainEqual(expect.objectContaining({ action: 'schedule.disabled', principal: 'test|alice', outcome: 'refused' }));
  });

  it('lets only the creator or a SUPERVISOR delete a schedule', async () => {
    const t = await appAsPeople([]);
    const created = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json' }, ...asUser(alice) });
    const path = `/api/v1/schedules/${created.body.schedule_id}`;
    const byBob = await t.json('DELETE', path, asUser(bob));
    expect(byBob.status).toBe(403);
    expect(byBob.body.detail).toMatch(/creator or a SUPERVISOR/);
    expect((await t.request('DELETE', path, asUser(alice))).status).toBe(204);
    const again = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json' }, ...asUser(alice) });
    expect((await t.request('DELETE', `/api/v1/schedules/${again.body.schedule_id}`, asUser(supervisor))).status).toBe(204);
  });

  it('keeps at most AEH_MAX_SCHEDULES_PER_PRINCIPAL per principal: 429 quota_exceeded with Retry-After', async () => {
    const t = await appAsPeople([], { AEH_MAX_SCHEDULES_PER_PRINCIPAL: '2' });
    for (let index = 0; index < 2; index++) expect((await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json' }, ...asUser(alice) })).status).toBe(201);
    const third = await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json' }, ...asUser(alice) });
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'quota_exceeded', limit: 2, outstanding: 2 });
    expect(third.headers.get('retry-after')).toBe('60');
    expect((await t.json('POST', '/api/v1/schedules', { body: { cron: '0 9 * * 1', path: 's.json' }, ...asUser(bob) })).status).toBe(201);
  });

  it('refuses to fire a schedule stored without its creator unless the static key made it', async () => {
    const launched: unknown[] = [];
    const t = await appAsPeople(launched);
    const services = await t.app.ready;
    for (const [id, createdBy] of [['00000000-0000-4000-8000-000000000001', 'static-key'], ['00000000-0000-4000-8000-000000000002', 'oidc|someone']]) {
      await services.store.setJson(`schedules/${id}.json`, { schedule_id: id, cron: '* * * * *', timezone: 'UTC', path: 's.json', created_at: '2026-01-01T00:00:00.000Z', created_by: createdBy });
    }
    await runDueJobs(services, new Date(MONDAY_0900_UTC));
    expect(launched).toHaveLength(1);
    expect(principals[0]).toMatchObject({ id: 'static-key', permissions: ['evaluations:launch'] });
    const legacy = (await t.json('GET', '/api/v1/schedules')).body.items.find((item: { created_by: string }) => item.created_by === 'oidc|someone');
    expect(legacy.disabled.reason).toMatch(/does not record who created it/);
  });

  it('a request cannot claim to be dispatched on someone\'s behalf: headers alone never skip authentication', async () => {
    const t = await appAsPeople([]);
    const response = await t.json('POST', '/api/evaluate', { body: {}, key: null, headers: { 'x-request-id': 'schedule-x-1' } });
    expect(response.status).toBe(401);
  });
});

describe.skipIf(SKIP_REDIS)('schedules: several instances on one Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('fires a schedule on exactly one instance', async () => {
    const launchedA: unknown[] = [];
    const launchedB: unknown[] = [];
    const a = await appWith(launchedA, { AEH_STORAGE: redis.url });
    const b = await appWith(launchedB, { AEH_STORAGE: redis.url });
    (await import('node:fs')).writeFileSync(`${a.root}/s.json`, JSON.stringify(SCENARIO));
    expect((await a.json('POST', '/api/v1/schedules', { body: { cron: '* * * * *', path: `${a.root}/s.json` } })).status).toBe(201);
    const [servicesA, servicesB] = await Promise.all([a.app.ready, b.app.ready]);
    await Promise.all([runDueJobs(servicesA, new Date(MONDAY_0900_UTC)), runDueJobs(servicesB, new Date(MONDAY_0900_UTC))]);
    expect(launchedA.length + launchedB.length).toBe(1);
    await a.app.close();
    await b.app.close();
  });
});

describe('schedules: certificate expiry sweep', () => {
  it('marks certificates past governance_ttl expired and deletes nothing', async () => {
    const t = await appWith([]);
    const services = await t.app.ready;
    const day = 24 * 3600 * 1000;
    for (const [runId, issuedDaysAgo] of [['old', 3], ['fresh', 0.5]] as const) {
      await services.store.setJson(`runs/${runId}/run.json`, { run_id: runId, status: 'succeeded' });
      await services.store.setJson(`runs/${runId}/certificate.json`, { run_id: runId, governance_ttl: 1, provenance_chain: [{ role: 'Evaluator', timestamp: new Date(MONDAY_0900_UTC - issuedDaysAgo * day).toISOString() }] });
    }
    await services.jobs.get('certificates.expiry-sweep')!.run(services);
    expect(await services.store.getJson('runs/old/run.json')).toMatchObject({ certificate_status: 'expired' });
    expect(await services.store.getJson<Record<string, unknown>>('runs/fresh/run.json')).not.toHaveProperty('certificate_status');
    expect(await services.store.has('runs/old/certificate.json')).toBe(true);
  });
});
