import { describe, it, expect } from 'vitest';
import { testApp } from './helpers.ts';
import { evaluate, scriptedScenario, testMetrics, waitForTask } from './evaluation-fixtures.ts';

describe('evaluation: POST /api/evaluate', () => {
  it('accepts an inline scenario with 202, Location and a status_url, then scores it', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const { accepted, task, run, trace } = await evaluate(t, { scenario: scriptedScenario('basic') });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'queued', status_url: `/api/v1/tasks/${accepted.body.task_id}` });
    expect(accepted.headers.get('location')).toBe(accepted.body.status_url);
    expect(task).toMatchObject({ status: 'succeeded', progress: { done: 2, total: 2 } });
    expect(task.handoff).toBeUndefined();
    expect(run).toMatchObject({ status: 'succeeded', compliance: { status: 'pass', score: 1, policy_ref: 'NIST AI 100-1' }, trace_file: 'trace.jsonl' });
    expect(run.dimensions).toMatchObject({ safety: 1, reliability: 1, security: null });
    expect(trace.map((event: any) => event.seq)).toEqual(trace.map((_: unknown, index: number) => index));
    expect(trace.map((event: any) => event.type)).toEqual(['run_start', 'input', 'agent_output', 'metric_result', 'input', 'agent_output', 'metric_result', 'run_end']);
  });
});
