/**
 * Issue 15 item 7: `trials: k` attempts each task k times with independent worlds and conversations; the run
 * reports pass@k and pass^k, and its dimensions score each metric by the worst attempt.
 */
import { describe, it, expect } from 'vitest';
import { testApp } from './helpers.ts';
import type { Plugin } from '../core/plugin.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';

/** An agent that fails every `failEvery`-th call of task t1 and always answers t2; records histories. */
function flakyAgent(failEvery: number) {
  const state = { calls: 0, histories: [] as string[][] };
  const plugin: Plugin = {
    name: 'flaky-agent',
    setup(host) {
      host.agents.register({
        name: 'flaky',
        description: 'test: right except on some attempts',
        async call(_input, context) {
          state.histories.push(context.history.map((turn) => turn.content));
          if (context.task.id === 't1' && ++state.calls % failEvery === 0) return { output: 'I am not sure.' };
          return { output: 'Your balance is 42 EUR.' };
        },
      }, 'flaky-agent');
    },
  };
  return { state, plugin };
}

const TASKS = [
  { id: 't1', input: 'balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] },
  { id: 't2', input: 'balance again?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] },
];

describe('evaluation: repeated trials (issue 15 item 7)', () => {
  it('attempts every task k times and reports pass@k, pass^k and the worst attempt in the index', async () => {
    const agent = flakyAgent(3);
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    const { run, trace } = await evaluate(t, { scenario: scriptedScenario('trials', { agent: { adapter: 'flaky' }, trials: 4, tasks: TASKS }) });
    expect(run.status).toBe('succeeded');
    expect(run.tasks).toEqual({ total: 8, done: 8 });
    // t1 fails its third attempt: pass@4 holds for both tasks, pass^4 only for t2; pass^1..4 is τ-bench's estimator.
    expect(run.trials).toEqual({ k: 4, pass_at_k: 1, pass_hat_k: 0.5, pass_hat: [0.875, 0.75, 0.625, 0.5] });
    // The index is high, but a task that failed one trial of four fails the run (pass^k = 1 by default).
    expect(run.compliance).toMatchObject({ status: 'fail', decided_by: { gate: 'pass_rate' }, policy: { min_pass_rate: 1 } });
    expect(run.compliance.decided_by.reason).toContain('task t1 passed 3 of 4 trials');
    // The record lists the tasks that did not pass every attempt; scores.json lists them all.
    expect(run.verdict).toMatchObject({ counts: { pass: 1, fail: 1, error: 0 }, tasks: [{ task_id: 't1', attempts: 4, passed: 3, undecided: 0, status: 'fail' }] });
    expect((await t.json('GET', `/api/v1/runs/${run.run_id}/evidence/scores.json`)).body.verdict.tasks).toEqual([
      { task_id: 't1', attempts: 4, passed: 3, undecided: 0, status: 'fail' },
      { task_id: 't2', attempts: 4, passed: 4, undecided: 0, status: 'pass' },
    ]);
    // Failures say which attempt they were seen in.
    expect(run.failures).toEqual([expect.objectContaining({ task_id: 't1', trial: 2, code: 'LOGIC.TASK_FAILED' })]);
    expect(trace.filter((event: any) => event.type === 'agent_output').map((event: any) => [event.task_id, event.trial])).toEqual([['t1', 0], ['t1', 1], ['t1', 2], ['t1', 3], ['t2', 0], ['t2', 1], ['t2', 2], ['t2', 3]]);
    // Reliability: t1's worst attempt scores 0, t2's 1: a mean of 0.5, not the 7/8 a plain average would give.
    expect(run.dimensions.reliability).toBe(0.5);
    const scores = (await t.json('GET', `/api/v1/runs/${run.run_id}`)).body;
    expect(scores.trials.pass_hat_k).toBe(0.5);
  });

  it('passes a flaky task when the policy relaxes min_pass_rate, and records the relaxed policy', async () => {
    const agent = flakyAgent(3);
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    const { run } = await evaluate(t, { scenario: scriptedScenario('trials-relaxed', { agent: { adapter: 'flaky' }, trials: 4, tasks: TASKS, verdict: { min_pass_rate: 0.75 } }) });
    expect(run.verdict.tasks[0]).toMatchObject({ task_id: 't1', passed: 3, status: 'pass' });
    expect(run.compliance).toMatchObject({ status: 'warning', decided_by: { gate: 'index' }, policy: { min_pass_rate: 0.75 } });
    // The request may tighten it again for one run.
    const strict = await evaluate(t, { scenario: scriptedScenario('trials-relaxed', { agent: { adapter: 'flaky' }, trials: 4, tasks: TASKS, verdict: { min_pass_rate: 0.75 } }), verdict: { min_pass_rate: 1 } });
    expect(strict.run.compliance).toMatchObject({ status: 'fail', decided_by: { gate: 'pass_rate' }, policy: { min_pass_rate: 1 } });
  });

  it('shows every attempt in the HTML report, the console run page and the transcript: a task that failed one attempt is no pass', async () => {
    const agent = flakyAgent(3);
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    const { run } = await evaluate(t, { scenario: scriptedScenario('trials-report', { agent: { adapter: 'flaky' }, trials: 4, tasks: TASKS }) });
    const html = await (await t.request('GET', `/api/v1/runs/${run.run_id}/report`)).text();
    const row = (task: string) => new RegExp(`<tr><td><a href="#task-${task}[^"]*">${task}</a></td><td><span class="badge (\\w+)">\\w+</span></td><td>(\\d+) of (\\d+) passed`).exec(html)?.slice(1);
    expect(row('t1')).toEqual(['fail', '3', '4']);
    expect(row('t2')).toEqual(['pass', '4', '4']);
    expect(html).toContain('k = 4 · pass@4 1.00 · pass^1 0.88 · pass^2 0.75 · pass^3 0.63 · pass^4 0.50');
    expect(html).toContain('<dt>decided by</dt><dd><code>pass_rate</code>');
    const page = await (await t.request('GET', `/console/fragments/runs/${run.run_id}`)).text();
    expect(page).toContain('Trials: k = 4 · pass@4 1.00 · pass^1 0.88');
    expect(page).toMatch(/Decided by <code>pass_rate<\/code>: 1 task failed: task t1 passed 3 of 4 trials/);
    expect(page).toContain('t1 (trial 3)');
  });

  it('never counts an attempt that measured nothing as passed: pass@k and pass^k leave it out', async () => {
    const agent = flakyAgent(1000);
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    // t2 writes down nothing probe_contains can check: each of its attempts measures nothing.
    const tasks = [TASKS[0], { id: 't2', input: 'anything?', metrics: [{ id: 'probe_contains' }] }];
    const { run } = await evaluate(t, { scenario: scriptedScenario('trials-unmeasured', { agent: { adapter: 'flaky' }, trials: 2, tasks }) });
    // Only t1 was measured: pass^k is t1's alone. Before, t2 counted as passed in both attempts.
    expect(run.trials).toEqual({ k: 2, pass_at_k: 1, pass_hat_k: 1, pass_hat: [1, 1] });
    // A check that cannot decide and is not must-pass leaves the verdict to the index; t2 says it measured nothing.
    expect(run.compliance).toMatchObject({ status: 'pass', decided_by: { gate: 'index' } });
    expect(run.verdict).toMatchObject({ counts: { pass: 1, fail: 0, error: 0, unmeasured: 1 }, tasks: [{ task_id: 't2', attempts: 2, passed: 0, undecided: 0, unmeasured: 2, status: 'unmeasured' }] });
    const html = await (await t.request('GET', `/api/v1/runs/${run.run_id}/report`)).text();
    expect(html).toMatch(/<tr><td><a href="#task-t2[^"]*">t2<\/a><\/td><td><span class="badge unmeasured">unmeasured<\/span><\/td><td>0 of 2 passed/);
  });

  it('gives each attempt its own conversation: attempt j of t2 sees attempt j of t1 only', async () => {
    const agent = flakyAgent(1000);
    const t = await testApp({ plugins: [testMetrics, agent.plugin] });
    await evaluate(t, { scenario: scriptedScenario('trials-history', { agent: { adapter: 'flaky' }, trials: 3, tasks: TASKS }) });
    expect(agent.state.histories.slice(0, 3)).toEqual([[], [], []]);
    expect(agent.state.histories.slice(3)).toEqual([['balance?', 'Your balance is 42 EUR.'], ['balance?', 'Your balance is 42 EUR.'], ['balance?', 'Your balance is 42 EUR.']]);
  });

  it('runs each attempt against its own world', async () => {
    const t = await testApp();
    const scenario = {
      id: 'trials-world', title: 'Charge once per attempt', industry: 'Fintech', use_case: 'Billing', tags: ['shims'], policy_ref: 'NIST AI 100-1',
      agent: { adapter: 'scripted', replies: { charge: { output: 'Charged.', tool_calls: [{ name: 'payments.create_charge', arguments: { customer: 'alice', amount: 60 } }] } } },
      topology: [{ agent: 'Billing', writes: ['reply'], reads: ['ticket'] }],
      enabled_shims: ['payments'], initial_state: { payments: { currency: 'EUR', balances: { alice: 100 } } },
      trials: 3, conversation: 'per_task',
      tasks: [{ id: 'charge', input: 'Charge alice 60 EUR.', expected_outcome: [{ target: 'shim:payments', property: 'balances.alice', expected: 40 }], metrics: [{ id: 'state_match' }] }],
    };
    const { run, trace } = await evaluate(t, { scenario });
    // With one shared world the second attempt would fail for insufficient funds.
    expect(trace.filter((event: any) => event.type === 'tool_call').every((event: any) => event.data.result?.amount === 60)).toBe(true);
    expect(run.trials).toEqual({ k: 3, pass_at_k: 1, pass_hat_k: 1, pass_hat: [1, 1, 1] });
    expect(run.compliance).toMatchObject({ status: 'pass', decided_by: { gate: 'index' } });
  });
});
