/**
 * Hostile (issue 25 item 12): `trials` was not counted in the 100,000-unit limit — a 200,000-unit run (about
 * 125 MB of trace) was accepted. Every unit counts (tasks × (variants + trials)), and a principal's queued units
 * and stored bytes are bounded (AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL, AEH_MAX_STORED_BYTES_PER_PRINCIPAL).
 */
import { describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../../test/evaluation-fixtures.ts';
import { stalledAgent } from '../../../test/agent-fixtures.ts';

const tasks = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `t${index}`, input: 'balance?', metrics: [{ id: 'probe_contains' }] }));

async function operator(t: TestApp, name: string): Promise<string> {
  return (await t.json('POST', '/api/v1/keys', { body: { name, roles: ['operator'] } })).body.secret;
}

describe('hostile: every unit counts, and units and bytes are bounded per principal (issue 25 item 12)', () => {
  it('counts trials in the 100,000-unit limit', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const scenario = scriptedScenario('huge', { trials: 20, tasks: tasks(5001) });
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario } });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/100020 units.*limit is 100000/);
    expect(refused.body.errors[0].path).toBe('/trials');
    // Trials and variants together.
    const mixed = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('mixed', { trials: 10, tasks: tasks(2000) }), mutations: [{ type: 'typo', count: 41 }] } });
    expect(mixed.status).toBe(400);
    expect(mixed.body.detail).toMatch(/102000 units/);
    expect((await t.json('GET', '/api/v1/runs')).body.items).toHaveLength(0);
    await t.app.close();
  });

  it('refuses a principal past AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL, naming the setting', async () => {
    const t = await testApp({ plugins: [testMetrics, stalledAgent], env: { AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL: '10', AEH_CONCURRENCY: '1' } });
    const key = await operator(t, 'units');
    const six = (id: string) => scriptedScenario(id, { agent: { adapter: 'stalled' }, trials: 2, tasks: tasks(3) });
    expect((await t.json('POST', '/api/evaluate', { key, body: { scenario: six('a') } })).status).toBe(202);
    const refused = await t.json('POST', '/api/evaluate', { key, body: { scenario: six('b') } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', limit: 10, outstanding_units: 6, units: 6 });
    expect(refused.body.detail).toMatch(/AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL/);
    const four = scriptedScenario('c', { agent: { adapter: 'stalled' }, trials: 2, tasks: tasks(2) });
    expect((await t.json('POST', '/api/evaluate', { key, body: { scenario: four } })).status).toBe(202);
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: six('other') } })).status).toBe(202);
    await t.app.close();
  });

  it('refuses a principal whose runs stored AEH_MAX_STORED_BYTES_PER_PRINCIPAL, others unaffected', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { AEH_MAX_STORED_BYTES_PER_PRINCIPAL: '20000' } });
    const key = await operator(t, 'bytes');
    let refused: { status: number; body: any } | undefined;
    for (let index = 0; index < 20 && !refused; index++) {
      const answer = await t.json('POST', '/api/evaluate', { key, body: { scenario: scriptedScenario(`b${index}`) } });
      if (answer.status === 202) await waitForTask(t, answer.body.task_id);
      else refused = answer;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatchObject({ code: 'quota_exceeded', limit: 20000 });
    expect(refused?.body.stored_bytes).toBeGreaterThanOrEqual(20000);
    expect(refused?.body.detail).toMatch(/AEH_MAX_STORED_BYTES_PER_PRINCIPAL/);
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('other') } })).status).toBe(202);
    await t.app.close();
  });
});
