/**
 * issue 18 item 5: GET /api/info reports consolidated health — the doctor's status and each check's (storage,
 * queue, signer, OIDC key set, …) from its last run — without running the checks on every call.
 */
import { describe, it, expect } from 'vitest';
import { testApp } from './helpers.ts';
import type { Plugin } from '../core/plugin.ts';

async function infoHealth(t: Awaited<ReturnType<typeof testApp>>) {
  for (let i = 0; i < 200; i++) {
    const { body } = await t.json('GET', '/api/info');
    if (body.health.status !== 'unknown') return body.health;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('health never left unknown');
}

describe('/api/info: consolidated health', () => {
  it('reports the doctor status and storage, queue, signer and OIDC from the last run of the checks', async () => {
    const t = await testApp();
    const health = await infoHealth(t);
    expect(health.checked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    for (const id of ['storage', 'queue', 'certification.signer', 'oidc', 'catalog']) expect(['ok', 'warn', 'fail'], id).toContain(health.checks[id]);
    expect(health.checks.queue).toBe('ok');
    const doctor = await t.json('GET', '/api/v1/doctor');
    expect(health.status).toBe(doctor.body.status);
  });

  it('runs the checks at most once per AEH_HEALTH_MAX_AGE_MS however often /api/info is polled, and shows a failing check', async () => {
    let runs = 0;
    let status: 'ok' | 'fail' = 'ok';
    const counted: Plugin = { name: 'counted-check', setup: (host) => host.doctorChecks.register({ id: 'counted', run: async () => { runs++; return { status, message: `run ${runs}` }; } }) };
    let now = Date.parse('2026-11-24T10:00:00Z');
    const t = await testApp({ plugins: [counted], env: { AEH_HEALTH_MAX_AGE_MS: '60000' }, capabilities: { now: () => now } });
    await infoHealth(t);
    const before = runs;
    for (let i = 0; i < 50; i++) await t.json('GET', '/api/info');
    expect(runs).toBe(before);
    status = 'fail';
    now += 60_001;
    await t.json('GET', '/api/info'); // stale: starts a run in the background and answers the last findings
    for (let i = 0; i < 12_000 && (await t.json('GET', '/api/info')).body.health.checks.counted !== 'fail'; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const { body } = await t.json('GET', '/api/info');
    expect(body.health).toMatchObject({ status: 'fail', checks: { counted: 'fail' } });
    expect(runs).toBe(before + 1);
  });

  it('refuses a malformed AEH_HEALTH_MAX_AGE_MS at start', async () => {
    await expect(testApp({ env: { AEH_HEALTH_MAX_AGE_MS: 'soon' } })).rejects.toThrow(/plugin "doctor".*AEH_HEALTH_MAX_AGE_MS/);
  });
});
