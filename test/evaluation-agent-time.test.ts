/**
 * An agent's call timeout and recorded latency count the agent's own time (issue 36): what the harness's world spent
 * on the agent's tool calls (a slow shim, the worker pool, the world's queue) is taken out, so a harness slowed by a
 * busy machine never ends a run as `INFRA.AGENT_TIMEOUT`; an agent that is itself slow still times out.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerPool } from '../runtime/node/offload.ts';
import { testApp } from './helpers.ts';
import { waitForTask } from './evaluation-fixtures.ts';

const customers = Array.from({ length: 400 }, (_, index) => ({ id: index + 1, name: `c${index}` }));
/** Runs until the shim budget stops it: the harness's tool is slower than the agent's whole timeout. */
const SLOW = 'SELECT count(*) FROM customers a, customers b, customers c, customers d';

const scenario = (agent: Record<string, unknown>) => ({
  id: 'slow-harness', title: 'A tool the harness is slow to answer', industry: 'Fintech', use_case: 'Reporting', tags: ['shims'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { q: { output: 'done', tool_calls: [{ name: 'sql.query', arguments: { sql: SLOW } }] } }, ...agent },
  topology: [], enabled_shims: ['sql'], initial_state: { sql: { schema: ['CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)'], rows: { customers } } },
  tasks: [{ id: 'q', input: 'count', expected_outcome: [{ target: 'tool_calls', where: { name: 'sql.query' }, property: '[0].error.code', expected: 'timeout' }] }],
});

describe('evaluation: the agent\'s call timeout counts the agent\'s time, not the harness\'s', () => {
  const pool = createWorkerPool({ size: 1 });
  afterAll(() => pool.close());

  it('does not time the agent out while the harness runs its tool call, and does when the agent itself is slow', async () => {
    // The query runs 800 ms of the worker's CPU (its budget), far past the agent's 200 ms.
    const t = await testApp({ env: { AEH_SHIM_BUDGET_MS: '800' }, capabilities: { offload: pool } });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: scenario({ timeout_ms: 200 }) } });
    expect(accepted.status).toBe(202);
    const task = await waitForTask(t, accepted.body.task_id, 120_000);
    const run = (await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
    expect(run.failures.map((failure: { code: string }) => failure.code)).not.toContain('INFRA.AGENT_TIMEOUT');
    expect(task.status).toBe('succeeded');
    expect(run.compliance.status).toBe('pass');
    // The recorded latency is the agent's too: the call took the tool's 800 ms of CPU and more, the agent almost none.
    const trace = ((await t.json('GET', `/api/v1/runs/${accepted.body.run_id}/trace`)).body as string).split('\n').filter(Boolean).map((line: string) => JSON.parse(line));
    const answered = trace.find((event: { type: string }) => event.type === 'agent_output');
    expect(answered.data.latency_ms).toBeLessThan(800);

    const slow = await t.json('POST', '/api/evaluate', { body: { scenario: scenario({ timeout_ms: 200, delay_ms: 5_000 }) } });
    await waitForTask(t, slow.body.task_id, 120_000);
    const slowRun = (await t.json('GET', `/api/v1/runs/${slow.body.run_id}`)).body;
    expect(slowRun.failures.map((failure: { code: string }) => failure.code)).toContain('INFRA.AGENT_TIMEOUT');
    expect(slowRun.compliance.status).toBe('error');
    await t.app.close();
  }, 180_000);
});
