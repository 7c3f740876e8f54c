/**
 * Hostile (issue 25 item 3): after the key that created a schedule was revoked (or its role lost
 * `evaluations:launch`), the schedule kept launching runs as that key. Each firing now asks who the creator is
 * now; a creator that is gone or no longer holds the permission disables the schedule, with the reason.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { scriptedScenario, testMetrics } from '../../test/evaluation-fixtures.ts';
import { runDueJobs } from '../../core/scheduler.ts';

const MONDAY_0900_UTC = Date.parse('2026-11-23T09:00:20Z');

async function setUp(): Promise<{ t: TestApp; clock: { now: number }; fire: () => Promise<void> }> {
  const clock = { now: MONDAY_0900_UTC };
  const t = await testApp({ plugins: [testMetrics], capabilities: { now: () => clock.now } });
  writeFileSync(join(t.root, 's.json'), JSON.stringify(scriptedScenario('nightly')));
  const services = await t.app.ready;
  const fire = async () => {
    await runDueJobs(services, new Date(clock.now));
    clock.now += 60_000;
  };
  return { t, clock, fire };
}

async function scheduleAs(t: TestApp, key: { roles?: string[]; permissions?: string[]; expires_at?: string }, name: string) {
  const made = await t.json('POST', '/api/v1/keys', { body: { name, ...key } });
  expect(made.status).toBe(201);
  const schedule = await t.json('POST', '/api/v1/schedules', { key: made.body.secret, body: { cron: '* * * * *', path: 's.json' } });
  expect(schedule.status).toBe(201);
  return { key: made.body as { id: string; secret: string }, scheduleId: schedule.body.schedule_id as string };
}

async function scheduleOf(t: TestApp, scheduleId: string) {
  return (await t.json('GET', '/api/v1/schedules')).body.items.find((item: { schedule_id: string }) => item.schedule_id === scheduleId);
}

const runCount = async (t: TestApp) => (await t.json('GET', '/api/v1/runs?limit=100')).body.items.length as number;

describe('hostile: a schedule stops with its creator (issue 25 item 3)', () => {
  it('a revoked key\'s schedule is disabled at its next firing, says why, and launches nothing', async () => {
    const { t, fire } = await setUp();
    const { key, scheduleId } = await scheduleAs(t, { roles: ['operator'] }, 'sched-bot');
    await fire();
    expect((await scheduleOf(t, scheduleId)).last_run).toMatchObject({ status: 202 });
    expect(await runCount(t)).toBe(1);
    expect((await t.json('DELETE', `/api/v1/keys/${key.id}`)).status).toBe(200);
    await fire();
    await fire();
    expect(await runCount(t)).toBe(1);
    const disabled = await scheduleOf(t, scheduleId);
    expect(disabled).toMatchObject({ disabled: { reason: expect.stringMatching(/API key "sched-bot" was revoked/) }, next_run: null });
    const audit = (await t.json('GET', '/api/v1/audit?limit=50')).body.items;
    expect(audit).toContainEqual(expect.objectContaining({ action: 'schedule.disabled', principal: `api-key|sched-bot#${key.id}`, outcome: 'refused' }));
  });

  it('is disabled once the creator\'s role no longer grants evaluations:launch', async () => {
    const { t, fire } = await setUp();
    const { scheduleId } = await scheduleAs(t, { roles: ['operator'] }, 'role-bot');
    const operator = (await t.json('GET', '/api/v1/roles/operator')).body.permissions as string[];
    expect((await t.json('PUT', '/api/v1/roles/operator', { body: { permissions: operator.filter((node) => node !== 'evaluations:launch') } })).status).toBe(200);
    await fire();
    expect(await runCount(t)).toBe(0);
    expect((await scheduleOf(t, scheduleId)).disabled.reason).toMatch(/no longer holds evaluations:launch/);
  });

  it('is disabled once the creator\'s key expired', async () => {
    const { t, clock, fire } = await setUp();
    const { scheduleId } = await scheduleAs(t, { roles: ['operator'], expires_at: new Date(clock.now + 30_000).toISOString() }, 'short-bot');
    await fire();
    expect(await runCount(t)).toBe(1);
    await fire();
    expect(await runCount(t)).toBe(1);
    expect((await scheduleOf(t, scheduleId)).disabled.reason).toMatch(/"short-bot" expired/);
  });
});
