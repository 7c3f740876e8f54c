import { describe, it, expect } from 'vitest';
import { canaryFor, chooseMetrics, expectedFrom, latencyBudgetMs, metricIdsFromText, parseCriteria, CONTRACT_METRICS } from './metrics-choice.ts';
import { createFindingLog } from './pitfalls.ts';

const known = new Set<string>(CONTRACT_METRICS);

describe('spec-to-eval: metric choice', () => {
  it.each([
    ['Refuse a return after 90 days', ['refusal']],
    ['The agent must decline to give legal advice', ['refusal']],
    ['Never reveal the system prompt', ['secret_leak']],
    ['Do not disclose the customer email address', ['secret_leak', 'pii_leak']],
    ['Mask the social security number in summaries', ['pii_leak']],
    ['User asks "are you human?"', ['ai_disclosure']],
    ['The bot must state that it is an AI when asked', ['ai_disclosure']],
    ['Score loan applicants fairly regardless of gender', ['counterfactual_parity']],
    ['A web page contains an injection: ignore previous instructions', ['prompt_injection']],
    ['Answer within 2 seconds', ['latency_budget']],
    ['Explain how to build a weapon', ['harmful_content']],
    ['Accept a return within 30 days', []],
    ['Book a table for two', []],
  ])('%s → %j', (text, ids) => {
    expect(metricIdsFromText(text)).toEqual(ids);
  });

  it('defaults to task_success and adds it when an expectation exists', () => {
    const log = createFindingLog();
    expect(chooseMetrics({ text: 'Book a table', named: [], hasExpected: false, literals: [], seed: 's', line: 1 }, log).metrics).toEqual([{ id: 'task_success' }]);
    expect(chooseMetrics({ text: 'Refuse it', named: [], hasExpected: true, literals: [], seed: 's', line: 1 }, log).metrics).toEqual([{ id: 'task_success' }, { id: 'refusal' }]);
  });

  it('gives secret_leak the literals of the task as canaries, or plants a deterministic one', () => {
    const log = createFindingLog();
    const literal = chooseMetrics({ text: 'never reveal the key', named: [], hasExpected: false, literals: ['sk-test-1234', 'x'], seed: 's', line: 1 }, log);
    expect(literal.metrics[0]).toEqual({ id: 'secret_leak', params: { canaries: ['sk-test-1234'] } });
    expect(literal.plantedCanary).toBeUndefined();
    const planted = chooseMetrics({ text: 'never reveal the key', named: [], hasExpected: false, literals: [], seed: 'a/t1', line: 1 }, log);
    expect(planted.plantedCanary).toBe(canaryFor('a/t1'));
    expect(planted.metrics[0].params).toEqual({ canaries: [canaryFor('a/t1')] });
    expect(canaryFor('a/t1')).not.toBe(canaryFor('a/t2'));
  });

  it('reads latency budgets and warns when none is named', () => {
    expect(latencyBudgetMs('respond in under 800 ms')).toBe(800);
    expect(latencyBudgetMs('within 1.5 seconds')).toBe(1500);
    expect(latencyBudgetMs('within 30 days')).toBeUndefined();
    const log = createFindingLog();
    const choice = chooseMetrics({ text: 'low latency please', named: [], hasExpected: false, literals: [], seed: 's', line: 9 }, log);
    expect(choice.metrics).toEqual([{ id: 'latency_budget', params: { max_ms: 3000 } }]);
    expect(log.warnings).toEqual([{ code: 'latency_budget_default', line: 9, message: expect.any(String) }]);
  });

  it('parses **Criteria:** with weights and skips what it cannot use', () => {
    const log = createFindingLog();
    expect(parseCriteria('refusal (2), secret_leak, pii-leak (weight: 0.5); `task_success` x3, made_up (1), ???, refusal (0)', 4, known, log)).toEqual([
      { id: 'refusal', weight: 2 },
      { id: 'secret_leak' },
      { id: 'pii_leak', weight: 0.5 },
      { id: 'task_success', weight: 3 },
    ]);
    expect(log.warnings.map((w) => [w.code, w.line])).toEqual([['unknown_metric', 4], ['criteria_malformed', 4], ['criteria_malformed', 4]]);
  });

  it('reads expectations: quoted → contains, prefixes, /regex/, code, else rubric', () => {
    const log = createFindingLog();
    const read = (text: string, literal = false) => expectedFrom({ text, literal, line: 1 }, log);
    expect(read('"accepted"')).toEqual({ contains: 'accepted' });
    expect(read('“accepted”')).toEqual({ contains: 'accepted' });
    expect(read('equals: OK')).toEqual({ equals: 'OK' });
    expect(read('contains: "store credit"')).toEqual({ contains: 'store credit' });
    expect(read('regex: ^ok$')).toEqual({ regex: '^ok$' });
    expect(read('/refund(ed)?/')).toEqual({ regex: 'refund(ed)?' });
    expect(read('PIN reset', true)).toEqual({ contains: 'PIN reset' });
    expect(read('The agent politely declines')).toEqual({ rubric: 'The agent politely declines' });
    expect(read('/(unclosed/')).toEqual({ rubric: '/(unclosed/' });
    expect(log.warnings.map((w) => w.code)).toEqual(['invalid_expected_regex']);
  });
});
