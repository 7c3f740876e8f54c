/**
 * Hostile (issue 25 item 10): a new key that reused a revoked key's name became the same principal — it
 * replayed the old key's idempotent runs and owned its schedules. Principals are keyed by the key's stable id;
 * records written before that (naming `api-key|<name>`) are read as the key's only when it is older than them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import canonicalize from 'canonicalize';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { scriptedScenario, testMetrics } from '../../test/evaluation-fixtures.ts';
import { sha3Hex } from '../../core/domain/hash.ts';

const T0 = Date.parse('2026-11-23T09:00:00Z');

async function keyOf(t: TestApp, name: string): Promise<{ id: string; secret: string }> {
  const created = await t.json('POST', '/api/v1/keys', { body: { name, roles: ['operator'] } });
  expect(created.status).toBe(201);
  return created.body;
}

async function appAt(clock: { now: number }, env: Record<string, string> = {}): Promise<TestApp> {
  const t = await testApp({ plugins: [testMetrics], env, capabilities: { now: () => clock.now } });
  writeFileSync(join(t.root, 's.json'), JSON.stringify(scriptedScenario('nightly')));
  return t;
}

describe('hostile: a key name is not an identity (issue 25 item 10)', () => {
  it('a new key reusing a revoked key\'s name neither replays its idempotent runs nor owns its schedules', async () => {
    const clock = { now: T0 };
    const t = await appAt(clock, { AEH_MAX_SCHEDULES_PER_PRINCIPAL: '1' });
    const first = await keyOf(t, 'ci');
    const body = { scenario: scriptedScenario('idem') };
    const original = await t.json('POST', '/api/evaluate', { key: first.secret, body, headers: { 'Idempotency-Key': 'nightly-1' } });
    expect(original.status).toBe(202);
    const schedule = await t.json('POST', '/api/v1/schedules', { key: first.secret, body: { cron: '0 3 * * *', path: 's.json' } });
    expect(schedule.status).toBe(201);
    expect(schedule.body.created_by).toBe(`api-key|ci#${first.id}`);
    expect((await t.json('DELETE', `/api/v1/keys/${first.id}`)).status).toBe(200);
    clock.now += 60_000;
    const second = await keyOf(t, 'ci');
    const repeat = await t.json('POST', '/api/evaluate', { key: second.secret, body, headers: { 'Idempotency-Key': 'nightly-1' } });
    expect(repeat.status).toBe(202);
    expect(repeat.headers.get('idempotent-replayed')).toBeNull();
    expect(repeat.body.run_id).not.toBe(original.body.run_id);
    const deleted = await t.json('DELETE', `/api/v1/schedules/${schedule.body.schedule_id}`, { key: second.secret });
    expect(deleted.status).toBe(403);
    // The old key's schedule is not counted against the new one's quota either.
    expect((await t.json('POST', '/api/v1/schedules', { key: second.secret, body: { cron: '0 4 * * *', path: 's.json' } })).status).toBe(201);
    const audit = (await t.json('GET', '/api/v1/audit?limit=50')).body.items as Array<{ action: string; principal?: string }>;
    const launchers = new Set(audit.filter((entry) => entry.action === 'evaluate').map((entry) => entry.principal));
    expect(launchers).toEqual(new Set([`api-key|ci#${first.id}`, `api-key|ci#${second.id}`]));
  });

  it('reads records written before ids were stable as the key\'s only when the key is older than them', async () => {
    const clock = { now: T0 };
    const t = await appAt(clock);
    const services = await t.app.ready;
    const key = await keyOf(t, 'legacy');
    const launch = ['evaluations:launch'];
    const legacySchedule = (id: string, at: number) => services.store.setJson(`schedules/${id}.json`, {
      schedule_id: id, cron: '0 3 * * *', timezone: 'UTC', path: 's.json', created_at: new Date(at).toISOString(),
      created_by: 'api-key|legacy', creator: { id: 'api-key|legacy', provider: 'api-key', permissions: launch },
    });
    await legacySchedule('00000000-0000-4000-8000-00000000000a', T0 + 1000);
    await legacySchedule('00000000-0000-4000-8000-00000000000b', T0 - 1000);
    expect((await t.json('DELETE', '/api/v1/schedules/00000000-0000-4000-8000-00000000000b', { key: key.secret })).status).toBe(403);
    expect((await t.json('DELETE', '/api/v1/schedules/00000000-0000-4000-8000-00000000000a', { key: key.secret })).status).toBe(204);
    // An idempotent submission stored under the old id is answered to the key that made it, not to a newer namesake.
    const earlier = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('before') } });
    const body = { scenario: scriptedScenario('legacy-idem') };
    const where = (idempotencyKey: string) => `idempotency/${sha3Hex(`api-key|legacy\n${idempotencyKey}`).slice(0, 64)}.json`;
    const reservation = (at: number) => ({ run_id: earlier.body.run_id, task_id: earlier.body.task_id, body_digest: sha3Hex(canonicalize(body) ?? ''), reserved_at: at });
    await services.store.setJson(where('mine'), reservation(T0 + 1000));
    await services.store.setJson(where('not-mine'), reservation(T0 - 1000));
    const replayed = await t.json('POST', '/api/evaluate', { key: key.secret, body, headers: { 'Idempotency-Key': 'mine' } });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.run_id).toBe(earlier.body.run_id);
    const fresh = await t.json('POST', '/api/evaluate', { key: key.secret, body, headers: { 'Idempotency-Key': 'not-mine' } });
    expect(fresh.status).toBe(202);
    expect(fresh.body.run_id).not.toBe(earlier.body.run_id);
  });
});
