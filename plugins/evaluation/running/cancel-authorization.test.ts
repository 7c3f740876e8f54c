/**
 * Hostile (issue 33 item 5): `DELETE /api/v1/tasks/:task_id` needed only `evaluations:launch`, so any OPERATOR
 * cancelled anyone's run (a release gate's, which then got no certificate). Now only the submitter or a holder of
 * `runs:cancel-any` (SUPERVISOR) may, and a cancel of someone else's run names its owner in the audit log.
 */
import { describe, expect, it } from 'vitest';
import { testApp } from '../../../test/helpers.ts';
import claimsBearer from '../../../test/fixtures/claims-bearer-auth.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../../test/evaluation-fixtures.ts';
import { stalledAgent } from '../../../test/agent-fixtures.ts';

const token = (sub: string, roles: string[]) => `claims.${Buffer.from(JSON.stringify({ sub, roles })).toString('base64url')}`;
const as = (sub: string, roles = ['operator']) => ({ key: null, headers: { authorization: `Bearer ${token(sub, roles)}` } });
const gate = (id: string) => scriptedScenario(id, { agent: { adapter: 'stalled' } });

describe('hostile: cancelling a run is its submitter\'s or a runs:cancel-any holder\'s (issue 33 item 5)', () => {
  it("refuses an OPERATOR cancelling another principal's run, naming the permission; the run goes on", async () => {
    const t = await testApp({ plugins: [testMetrics, claimsBearer, stalledAgent] });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: gate('release-gate') }, ...as('release-bot') });
    expect(accepted.status).toBe(202);
    const refused = await t.json('DELETE', accepted.body.status_url, as('mallory'));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'forbidden', permission: 'runs:cancel-any' });
    expect(refused.body.detail).toMatch(/submitted the run/);
    expect(['queued', 'running']).toContain((await t.json('GET', accepted.body.status_url)).body.status);
    // The submitter may.
    const own = await t.json('DELETE', accepted.body.status_url, as('release-bot'));
    expect(own.status).toBe(200);
    expect(own.body.status).toBe('cancelled');
    // An unknown task is still a 404, not a 403.
    expect((await t.json('DELETE', '/api/v1/tasks/task_nope', as('mallory'))).status).toBe(404);
  });

  it("lets a SUPERVISOR, or a key granted runs:cancel-any, cancel anyone's run, and audits whose run it was", async () => {
    const t = await testApp({ plugins: [testMetrics, claimsBearer, stalledAgent] });
    const first = await t.json('POST', '/api/evaluate', { body: { scenario: gate('g1') }, ...as('release-bot') });
    const second = await t.json('POST', '/api/evaluate', { body: { scenario: gate('g2') }, ...as('release-bot') });
    const bySupervisor = await t.json('DELETE', first.body.status_url, as('sue', ['supervisor']));
    expect(bySupervisor.status).toBe(200);
    const key = await t.json('POST', '/api/v1/keys', { body: { name: 'janitor', permissions: ['evaluations:launch', 'runs:cancel-any'] } });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    expect((await t.json('DELETE', second.body.status_url, { key: key.body.secret })).status).toBe(200);
    expect((await waitForTask(t, second.body.task_id)).status).toBe('cancelled');
    const audit = (await t.json('GET', '/api/v1/audit?limit=50')).body.items.filter((entry: any) => entry.action === 'cancel');
    expect(audit).toEqual(expect.arrayContaining([
      expect.objectContaining({ principal: 'test|sue', run_id: first.body.run_id, run_owner: 'test|release-bot', outcome: 'ok' }),
      expect.objectContaining({ principal: expect.stringMatching(/^api-key\|janitor#/), run_id: second.body.run_id, run_owner: 'test|release-bot' }),
    ]));
  });

  it('keeps the permission off the OPERATOR role', async () => {
    const t = await testApp();
    expect((await t.json('GET', '/api/v1/roles/operator')).body.permissions).not.toContain('runs:cancel-any');
  });
});
