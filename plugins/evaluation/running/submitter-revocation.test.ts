/**
 * Hostile (issue 25 item 3): a run queued (or left by a restart) under a key that was revoked meanwhile still
 * ran as that key. A task asks who its submitter is now each time it starts or resumes, and is not run when they
 * may no longer launch evaluations: it ends `cancelled`, with the reason in the task and the run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../../test/evaluation-fixtures.ts';
import { gatedAgent } from '../../../test/agent-fixtures.ts';

const gated = (id: string) => scriptedScenario(id, { agent: { adapter: 'gated' }, tasks: [{ id: 't1', input: 'balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }] });

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 12_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

async function keyOf(t: TestApp, name: string) {
  return (await t.json('POST', '/api/v1/keys', { body: { name, roles: ['operator'] } })).body as { id: string; secret: string };
}

function expectRefused(task: any, run: any, name: string): void {
  expect(task.status).toBe('cancelled');
  expect(task.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(new RegExp(`not run: the API key "${name}" was revoked`)) });
  expect(task).not.toHaveProperty('submitter');
  expect(run.status).toBe('cancelled');
  expect(run.error.message).toMatch(/was revoked/);
}

describe('hostile: a run does not start for a revoked submitter (issue 25 item 3)', () => {
  it('a queued run of a key revoked while it waited is not run', async () => {
    const gate = gatedAgent();
    const t = await testApp({ plugins: [testMetrics, gate.plugin], env: { AEH_CONCURRENCY: '1' } });
    const blocker = await t.json('POST', '/api/evaluate', { body: { scenario: gated('blocker') } });
    await until(() => gate.started.includes('blocker'));
    const key = await keyOf(t, 'queued-bot');
    const queued = await t.json('POST', '/api/evaluate', { key: key.secret, body: { scenario: gated('queued') } });
    expect(queued.status).toBe(202);
    expect((await t.json('DELETE', `/api/v1/keys/${key.id}`)).status).toBe(200);
    gate.release('blocker');
    await waitForTask(t, blocker.body.task_id);
    const task = await waitForTask(t, queued.body.task_id);
    expectRefused(task, (await t.json('GET', `/api/v1/runs/${queued.body.run_id}`)).body, 'queued-bot');
    expect(gate.started).not.toContain('queued');
    await t.app.close();
  });

  it('a run left by a restart is not resumed once its key was revoked', async () => {
    const env = { AEH_STORAGE: 'fs', AEH_DATA_DIR: mkdtempSync(join(tmpdir(), 'aeh-revoked-resume-')) };
    const firstGate = gatedAgent();
    const first = await testApp({ plugins: [testMetrics, firstGate.plugin], env });
    const key = await keyOf(first, 'resumed-bot');
    const accepted = await first.json('POST', '/api/evaluate', { key: key.secret, body: { scenario: gated('resumed') } });
    await until(() => firstGate.started.includes('resumed'));
    expect((await first.json('DELETE', `/api/v1/keys/${key.id}`)).status).toBe(200);
    await first.app.close();
    const secondGate = gatedAgent();
    const second = await testApp({ plugins: [testMetrics, secondGate.plugin], env });
    const task = await waitForTask(second, accepted.body.task_id);
    expectRefused(task, (await second.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body, 'resumed-bot');
    expect(secondGate.started).toEqual([]);
    await second.app.close();
  });
});
