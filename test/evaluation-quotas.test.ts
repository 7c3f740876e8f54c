/**
 * Issue 13 item 7: one principal cannot starve the others. Per-principal queue quotas (429 quota_exceeded with
 * Retry-After), the maximum agent timeout, and fair dispatch across principals, through the HTTP API.
 */
import { describe, it, expect } from 'vitest';
import { testApp, type TestApp } from './helpers.ts';
import claimsBearer from './fixtures/claims-bearer-auth.ts';
import { scriptedScenario, testMetrics, waitForTask } from './evaluation-fixtures.ts';
import { gatedAgent } from './agent-fixtures.ts';

const token = (sub: string) => `claims.${Buffer.from(JSON.stringify({ sub, roles: ['operator'] })).toString('base64url')}`;
const as = (sub: string) => ({ key: null, headers: { authorization: `Bearer ${token(sub)}` } });
const scenario = (id: string, agent: Record<string, unknown> = { adapter: 'gated' }) => scriptedScenario(id, {
  agent, tasks: [{ id: 't1', input: 'balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }],
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 12_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

async function submit(t: TestApp, sub: string, id: string) {
  return t.json('POST', '/api/evaluate', { body: { scenario: scenario(id) }, ...as(sub) });
}

describe('evaluation: per-principal quotas and fair share (issue 13 item 7)', () => {
  it('refuses a principal past AEH_MAX_QUEUED_PER_PRINCIPAL with 429 quota_exceeded and Retry-After, others unaffected', async () => {
    const gate = gatedAgent();
    const t = await testApp({ plugins: [testMetrics, claimsBearer, gate.plugin], env: { AEH_CONCURRENCY: '1', AEH_MAX_QUEUED_PER_PRINCIPAL: '3' } });
    const accepted = [];
    for (let index = 0; index < 3; index++) accepted.push(await submit(t, 'mallory', `m${index}`));
    expect(accepted.map((response) => response.status)).toEqual([202, 202, 202]);
    const refused = await submit(t, 'mallory', 'm3');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', limit: 3, outstanding: 3 });
    expect(refused.body.detail).toMatch(/AEH_MAX_QUEUED_PER_PRINCIPAL/);
    expect((await submit(t, 'bob', 'b0')).status).toBe(202);
    // A finished or cancelled run frees its place at once.
    await until(() => gate.started.includes('m0'));
    gate.release('m0');
    await waitForTask(t, accepted[0].body.task_id);
    const cancelled = await t.json('DELETE', accepted[2].body.status_url, as('mallory'));
    expect(cancelled.body.status).toBe('cancelled');
    expect((await submit(t, 'mallory', 'm4')).status).toBe(202);
    expect((await submit(t, 'mallory', 'm5')).status).toBe(202);
    expect((await submit(t, 'mallory', 'm6')).status).toBe(429);
    for (const id of ['b0', 'm1', 'm4', 'm5']) {
      await until(() => gate.started.includes(id));
      gate.release(id);
    }
    await t.app.close();
  });

  it("runs another principal's evaluation before the rest of a 300-run backlog", async () => {
    const gate = gatedAgent();
    const t = await testApp({ plugins: [testMetrics, claimsBearer, gate.plugin], env: { AEH_CONCURRENCY: '1' } });
    const backlog = await Promise.all(Array.from({ length: 300 }, (_, index) => submit(t, 'mallory', `m${index}`)));
    expect(backlog.every((response) => response.status === 202)).toBe(true);
    const bob = await submit(t, 'bob', 'b0');
    expect(bob.body.status).toBe('queued');
    const task = await t.json('GET', bob.body.status_url, as('bob'));
    expect(task.body.submitted_by).toBe('test|bob');
    await until(() => gate.started.length === 1);
    gate.release(gate.started[0]);
    // The slot that frees next goes to bob, not to mallory's 299 waiting runs.
    await until(() => gate.started.length === 2);
    expect(gate.started[1]).toBe('b0');
    const cancels = backlog.slice(1).map((accepted) => t.json('DELETE', accepted.body.status_url));
    gate.release('b0');
    await Promise.all(cancels);
    await t.app.close();
  });

  it('refuses an agent timeout above AEH_MAX_AGENT_TIMEOUT_MS at submission', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { AEH_MAX_AGENT_TIMEOUT_MS: '60000' } });
    const body = { scenario: scenario('slow', { adapter: 'scripted', timeout_ms: 3_600_000, replies: { '*': 'x' } }) };
    const refused = await t.json('POST', '/api/evaluate', { body });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual({ path: '/agent/timeout_ms', message: expect.stringMatching(/at most 60000 ms.*AEH_MAX_AGENT_TIMEOUT_MS/) });
    const allowed = await t.json('POST', '/api/evaluate', { body: { scenario: scenario('ok', { adapter: 'scripted', timeout_ms: 60_000, replies: { '*': 'x' } }) } });
    expect(allowed.status).toBe(202);
  });

  it('refuses bad quota settings at start with the variable named', async () => {
    await expect(testApp({ env: { AEH_MAX_QUEUED_PER_PRINCIPAL: '0' } })).rejects.toThrow(/AEH_MAX_QUEUED_PER_PRINCIPAL must be an integer/);
    await expect(testApp({ env: { AEH_MAX_AGENT_TIMEOUT_MS: '7200000' } })).rejects.toThrow(/AEH_MAX_AGENT_TIMEOUT_MS must be an integer from 1 to 3600000/);
    await expect(testApp({ env: { AEH_RUN_CONCURRENCY: 'many' } })).rejects.toThrow(/AEH_RUN_CONCURRENCY must be an integer from 1 to 256/);
    await expect(testApp({ env: { AEH_SHIM_BUDGET_MS: '0' } })).rejects.toThrow(/AEH_SHIM_BUDGET_MS must be an integer/);
  });
});
