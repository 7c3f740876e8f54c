/**
 * Hostile (issue 33 item 1): `AEH_RETENTION_KEEP_RUNS` kept the newest N runs of each scenario and agent across
 * all principals. With N = 2 an OPERATOR, refused `POST /api/v1/gc`, submitted two trivial runs under a
 * SUPERVISOR's scenario id with the same agent (its config hash is visible with runs:read), and the next
 * collection deleted the supervisor's certified run. keep_runs now counts per submitter and per scenario content,
 * and never counts out a run a pinned baseline or a suite certificate holds.
 */
import { describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import claimsBearer from '../../test/fixtures/claims-bearer-auth.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../test/evaluation-fixtures.ts';

const token = (sub: string, roles: string[]) => `claims.${Buffer.from(JSON.stringify({ sub, roles })).toString('base64url')}`;
const as = (sub: string, roles = ['operator']) => ({ key: null, headers: { authorization: `Bearer ${token(sub, roles)}` } });
const SUPERVISOR = as('sue', ['supervisor']);
const gate = () => scriptedScenario('release-gate');
/** The same id and agent, one trivial task. */
const trivial = () => scriptedScenario('release-gate', { tasks: [{ id: 't1', input: 'balance?', metrics: [{ id: 'probe_contains' }] }] });

async function run(t: TestApp, scenario: Record<string, unknown>, who: { key: null; headers: Record<string, string> }): Promise<string> {
  const accepted = await t.json('POST', '/api/evaluate', { body: { scenario }, ...who });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  expect((await waitForTask(t, accepted.body.task_id)).status).toBe('succeeded');
  return accepted.body.run_id;
}

const collect = async (t: TestApp) => (await t.json('POST', '/api/v1/gc', { body: {} })).body;
const verifyStatus = async (t: TestApp, runId: string) => (await t.json('GET', `/api/v1/verify/${runId}`, { key: null })).status;

describe("hostile: one principal's runs never evict another's (issue 33 item 1)", () => {
  it("keeps a SUPERVISOR's certified run however many runs an OPERATOR submits under its id and agent", async () => {
    const t = await testApp({ plugins: [testMetrics, claimsBearer], env: { AEH_RETENTION_KEEP_RUNS: '2' } });
    const certified = await run(t, gate(), SUPERVISOR);
    expect((await t.json('GET', `/api/v1/runs/${certified}`)).body.agent.config_hash).toMatch(/^[0-9a-f]{64}$/);
    for (let n = 0; n < 2; n++) await run(t, trivial(), as('mallory'));
    // The same content too: still another principal's runs.
    for (let n = 0; n < 3; n++) await run(t, gate(), as('mallory'));
    expect((await t.json('POST', '/api/v1/gc', { body: {}, ...as('mallory') })).status).toBe(403);
    const report = await collect(t);
    expect(report.rules).toEqual({ keep_runs: 2 });
    expect(report.runs.deleted).toBe(1); // mallory's oldest run of the gate's content, and nothing of sue's
    expect(report.runs.deleted_ids).not.toContain(certified);
    expect((await t.json('GET', `/api/v1/verify/${certified}`, { key: null })).body.status).toBe('valid');
    expect((await t.request('GET', `/api/v1/runs/${certified}/trace`)).status).toBe(200);
    expect((await t.request('GET', `/api/v1/runs/${certified}/evidence/scores.json`)).status).toBe(200);
  });

  it('keeps a pinned baseline, counting the newest runs besides it, until it is unpinned', async () => {
    const t = await testApp({ plugins: [testMetrics, claimsBearer], env: { AEH_RETENTION_KEEP_RUNS: '2' } });
    const pinned = await run(t, gate(), SUPERVISOR);
    expect((await t.json('PUT', '/api/v1/baselines/release-gate', { body: { run_id: pinned } })).status).toBe(200);
    const later = [];
    for (let n = 0; n < 3; n++) later.push(await run(t, gate(), SUPERVISOR));
    const report = await collect(t);
    expect(report.runs.deleted_ids).toEqual([later[0]]);
    expect(await verifyStatus(t, pinned)).toBe(200);
    // Pinning another run moves the hold: the old baseline is counted again (with later[1], two: kept).
    expect((await t.json('PUT', '/api/v1/baselines/release-gate', { body: { run_id: later[2] } })).status).toBe(200);
    expect((await collect(t)).runs.deleted).toBe(0);
    const newest = await run(t, gate(), SUPERVISOR);
    expect((await collect(t)).runs.deleted_ids).toEqual([pinned]);
    expect(await verifyStatus(t, pinned)).toBe(410);
    // Unpinned, the last baseline counts too: the newest two of the three stay.
    expect((await t.json('DELETE', '/api/v1/baselines/release-gate')).status).toBe(200);
    expect((await collect(t)).runs.deleted_ids).toEqual([later[1]]);
    for (const id of [later[2], newest]) expect(await verifyStatus(t, id)).toBe(200);
  });

  it('counts runs of other content under one id apart', async () => {
    const t = await testApp({ plugins: [testMetrics, claimsBearer], env: { AEH_RETENTION_KEEP_RUNS: '1' } });
    const full = await run(t, gate(), SUPERVISOR);
    const small = await run(t, trivial(), SUPERVISOR);
    expect((await collect(t)).runs.deleted).toBe(0);
    await run(t, trivial(), SUPERVISOR);
    expect((await collect(t)).runs.deleted_ids).toEqual([small]);
    expect(await verifyStatus(t, full)).toBe(200);
  });
});
