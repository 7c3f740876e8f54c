import { describe, it, expect } from 'vitest';
import metric from './latency-budget.ts';
import { metricContext, testMetric } from '../../testing/index.ts';
import { TAXONOMY } from './taxonomy.ts';

testMetric(metric, { failureCodes: TAXONOMY, params: { max_ms: 1000 } });

describe('metric: latency_budget', () => {
  it.each([
    [500, 1, undefined],
    [1000, 1, undefined],
    [1500, 0.5, 'medium'],
    [2000, 0, 'high'],
    [9000, 0, 'high'],
  ])('at %s ms against a 1000 ms budget scores %s', async (latencyMs, score, severity) => {
    const result = await metric.score(metricContext('latency_budget', { latencyMs, params: { max_ms: 1000 } }));
    expect(result.score).toBe(score);
    if (severity) expect(result.failures[0]).toMatchObject({ code: 'RELIABILITY.LATENCY_BUDGET_EXCEEDED', severity, evidence: { latency_ms: latencyMs, max_ms: 1000 } });
    else expect(result.failures).toEqual([]);
  });

  it('is unmeasured without a budget or without a recorded latency', async () => {
    expect((await metric.score(metricContext('latency_budget', { params: {} }))).score).toBeNull();
    expect((await metric.score(metricContext('latency_budget', { latencyMs: Number.NaN, params: { max_ms: 10 } }))).score).toBeNull();
  });
});
