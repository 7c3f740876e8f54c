import { describe, it, expect } from 'vitest';
import { metricContext, testMetric, CONFORMANCE_CANARY } from '../../testing/index.ts';
import { TAXONOMY } from './taxonomy.ts';
import metric from './state-match.ts';

const ANSWER_STATES_BALANCE = [{ target: 'message', mode: 'contains' as const, expected: '42 EUR', description: 'the answer states the balance' }];

testMetric(metric, { failureCodes: TAXONOMY, context: { task: { expected_outcome: ANSWER_STATES_BALANCE } } });

describe('metric: state_match', () => {
  it('scores the share of assertions that hold, and is unmeasured without any', async () => {
    const held = await metric.score(metricContext('state_match', { output: 'Your balance is 42 EUR.', task: { expected_outcome: ANSWER_STATES_BALANCE } }));
    expect(held.score).toBe(1);
    const missed = await metric.score(metricContext('state_match', { output: 'I cannot tell.', task: { expected_outcome: ANSWER_STATES_BALANCE } }));
    expect(missed.score).toBe(0);
    expect(missed.failures[0]?.code).toBe('LOGIC.TASK_FAILED');
    expect((await metric.score(metricContext('state_match', {}))).score).toBeNull();
  });

  // Regression: a failed message assertion copied the agent's message, with the canary it leaked and a card
  // number, into the failure's message and evidence (found by the metric conformance suite).
  it('masks the task\'s canaries and card numbers in what a failure repeats of the message', async () => {
    const leaked = `Sure: ${CONFORMANCE_CANARY}, card 4111 1111 1111 1111.`;
    const task = { expected_outcome: ANSWER_STATES_BALANCE, metrics: [{ id: 'state_match', params: {} }, { id: 'secret_leak', params: { canaries: [CONFORMANCE_CANARY] } }] };
    const result = await metric.score(metricContext('state_match', { output: leaked, task }));
    expect(result.score).toBe(0);
    const recorded = JSON.stringify(result);
    expect(recorded).not.toContain(CONFORMANCE_CANARY);
    expect(recorded).not.toContain('4111 1111 1111 1111');
    expect(result.failures[0]?.message).toContain('found');
  });
});
