/**
 * Hostile (issue 33, self-attack on schedules): a schedule whose firings are refused for what it asks kept firing
 * every minute for good, each firing validating its inline scenario again (worlds built in the pool) while a
 * refused submission holds no quota. After MAX_REFUSED_FIRINGS refusals in a row it is disabled, with the reason
 * and an audit entry; a firing that was accepted starts the count again.
 */
import { describe, expect, it } from 'vitest';
import { testApp } from '../../test/helpers.ts';
import { scriptedScenario, testMetrics } from '../../test/evaluation-fixtures.ts';
import { runDueJobs } from '../../core/scheduler.ts';
import { MAX_REFUSED_FIRINGS } from './tick.ts';

const MONDAY_0900_UTC = Date.parse('2026-11-23T09:00:20Z');
const BOT = { name: 'bot', adapter: 'scripted', options: { replies: { '*': 'Your balance is 42 EUR.' } } };

describe('hostile: schedules whose firings are refused stop firing', () => {
  it(`disables a schedule after ${MAX_REFUSED_FIRINGS} refused firings in a row, not after refusals broken by an accepted one`, async () => {
    const clock = { now: MONDAY_0900_UTC };
    const t = await testApp({ plugins: [testMetrics], capabilities: { now: () => clock.now } });
    const services = await t.app.ready;
    const fire = async () => {
      await runDueJobs(services, new Date(clock.now));
      clock.now += 60_000;
    };
    const schedule = async () => (await t.json('GET', '/api/v1/schedules')).body.items[0];
    expect((await t.json('POST', '/api/v1/agents', { body: BOT })).status).toBe(201);
    const created = await t.json('POST', '/api/v1/schedules', { body: { cron: '* * * * *', scenario: scriptedScenario('nightly'), agent: 'bot' } });
    expect(created.status).toBe(201);
    // The agent goes: each firing is refused (404), and counted.
    expect((await t.json('DELETE', '/api/v1/agents/bot')).status).toBe(204);
    await fire();
    expect(await schedule()).toMatchObject({ refused_firings: 1, last_run: { status: 404 } });
    // Back: an accepted firing starts the count again.
    expect((await t.json('POST', '/api/v1/agents', { body: BOT })).status).toBe(201);
    await fire();
    expect((await schedule()).refused_firings).toBeUndefined();
    expect((await schedule()).last_run.status).toBe(202);
    expect((await t.json('DELETE', '/api/v1/agents/bot')).status).toBe(204);
    for (let n = 0; n < MAX_REFUSED_FIRINGS - 1; n++) await fire();
    expect((await schedule()).disabled).toBeUndefined();
    await fire();
    const disabled = await schedule();
    expect(disabled.disabled.reason).toMatch(/its last 3 firings were refused \(404: no agent is registered as "bot"\)/);
    expect(disabled.next_run).toBeNull();
    const firings = (await t.json('GET', '/api/v1/audit?limit=100')).body.items.filter((entry: any) => entry.action === 'evaluate').length;
    await fire();
    expect((await t.json('GET', '/api/v1/audit?limit=100')).body.items.filter((entry: any) => entry.action === 'evaluate').length).toBe(firings);
    expect((await t.json('GET', '/api/v1/audit?limit=100')).body.items.find((entry: any) => entry.action === 'schedule.disabled')).toMatchObject({ outcome: 'refused', status: 404 });
  });
});
