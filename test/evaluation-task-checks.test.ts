/**
 * Issue 32 item 4 through POST /api/evaluate: a task may be written with declared checks and no `metrics` (as
 * docs/evaluation.md says), a task with neither is refused in words, and every schema error is a sentence that
 * names its field (never ajv's "must have required property 'metrics'").
 */
import { describe, it, expect } from 'vitest';
import type { Plugin } from '../core/plugin.ts';
import { testApp } from './helpers.ts';
import { evaluate } from './evaluation-fixtures.ts';

/** An agent that always answers `answer`. */
function fixedAgent(answer: string): Plugin {
  return {
    name: 'fixed-agent',
    setup(host) {
      host.agents.register({ name: 'fixed', description: 'test: one answer', async call() { return { output: answer }; } }, 'fixed-agent');
    },
  };
}

function scenario(id: string, task: Record<string, unknown>) {
  return {
    id, title: `Checks ${id}`, industry: 'Retail', use_case: 'Support', tags: ['test'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'fixed' }, topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
    tasks: [{ id: 'one', input: 'What is my balance?', ...task }],
  };
}

describe('scenario: a task judged by its declared checks alone', () => {
  it('runs task_success for a checkable expected when the task lists no metric, and its failure fails the run', async () => {
    const t = await testApp({ plugins: [fixedAgent('Your balance is 42 EUR.')] });
    const right = await evaluate(t, { scenario: scenario('expected-only', { expected: { contains: '42 EUR' } }) });
    expect(right.run.compliance.status).toBe('pass');
    expect(right.trace.some((event: any) => event.type === 'metric_result' && event.data.metric === 'task_success')).toBe(true);
    const wrong = (await evaluate(t, { scenario: scenario('expected-only-wrong', { expected: { contains: '17 EUR' } }) })).run;
    expect(wrong.compliance).toMatchObject({ status: 'fail', decided_by: { gate: 'must_pass' } });
    expect(wrong.failures).toEqual([expect.objectContaining({ metric: 'task_success' })]);
  });

  it('runs the metrics of expected_outcome and forbidden_tools without a metrics list', async () => {
    const t = await testApp({ plugins: [fixedAgent('Done.')] });
    const { run } = await evaluate(t, {
      scenario: scenario('declared-only', { expected_outcome: [{ target: 'message', expected: 'balance', mode: 'contains' }], forbidden_tools: ['payments.transfer'] }),
    });
    expect(run.compliance.status).toBe('fail');
    expect(run.failures).toEqual([expect.objectContaining({ metric: 'state_match', code: 'LOGIC.TASK_FAILED' })]);
  });

  it('refuses a task with neither metrics nor a declared check, saying so in words', async () => {
    const t = await testApp({ plugins: [fixedAgent('Hello.')] });
    for (const task of [{}, { metrics: [] }, { expected: { rubric: 'Is polite.' } }]) {
      const refused = await t.json('POST', '/api/evaluate', { body: { scenario: scenario('nothing', task) } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ path: '/tasks/0', message: expect.stringMatching(/^task "one" has nothing to judge it by: give it "metrics", or a declared check/) }]);
      expect(refused.body.detail).toContain('/tasks/0: task "one" has nothing to judge it by');
    }
  });
});

describe('scenario: schema errors are sentences that name the field', () => {
  it('names a missing field, a wrong type, an unknown field and a bound in words', async () => {
    const t = await testApp({ plugins: [fixedAgent('Hello.')] });
    const body = scenario('sentences', { input: undefined, metrics: [{ id: 'refusal', weight: -1 }], colour: 'blue' });
    (body as Record<string, unknown>).trials = 99;
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: body } });
    expect(refused.status).toBe(400);
    const text = JSON.stringify(refused.body);
    expect(text).not.toMatch(/must have required property|must NOT have|must be <=|must be >/);
    expect(refused.body.errors).toEqual(expect.arrayContaining([
      { path: '/tasks/0/input', message: '"input" is missing: it is required here' },
      { path: '/tasks/0/colour', message: '"colour" is not a field of this object (check its spelling, or remove it)' },
      { path: '/tasks/0/metrics/0/weight', message: '"weight" must be greater than 0' },
      { path: '/trials', message: '"trials" must be at most 20' },
    ]));
    expect(refused.body.detail).toMatch(/^scenario is invalid: \/\S+: "/);
  });

  it('refuses scripted turns beside a simulated user in words', async () => {
    const t = await testApp({ plugins: [fixedAgent('Hello.')] });
    const refused = await t.json('POST', '/api/evaluate', {
      body: { scenario: scenario('both', { expected: { contains: 'x' }, turns: [{ input: 'and?' }], user_simulator: { instructions: 'Be brief.' } }) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual({ path: '/tasks/0/user_simulator', message: 'task "one" has both scripted "turns" and a "user_simulator": the conversation is one or the other' });
  });
});
