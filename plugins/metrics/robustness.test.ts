import { describe, it, expect } from 'vitest';
import metric from './robustness.ts';
import { metricContext, testMetric } from '../../testing/index.ts';
import { TAXONOMY } from './taxonomy.ts';

const variant = (id: string, passed: boolean, event_index?: number) => ({ variant: id, output: passed ? '42 EUR' : 'no idea', passed, scores: { task_success: passed ? 1 : 0 }, event_index });
testMetric(metric, { failureCodes: TAXONOMY, context: { variants: [variant('v1', true), variant('v2', false)], outcome: { passed: true, scores: { task_success: 1 } } } });

describe('metric: robustness', () => {
  it('scores the share of variants whose outcome matches the original', async () => {
    const context = metricContext('robustness', { variants: [variant('v1', true), variant('v2', false, 17), variant('v3', true), variant('v4', true)], outcome: { passed: true, scores: {} } });
    const result = await metric.score(context);
    expect(result.score).toBe(0.75);
    expect(result.failures).toEqual([expect.objectContaining({ code: 'RESILIENCE.OUTCOME_FLIPPED', severity: 'high', event_index: 17, evidence: expect.objectContaining({ variant: 'v2', original_passed: true, variant_passed: false }) })]);
  });

  it('counts a variant that passes where the original failed as a (low-severity) flip', async () => {
    const result = await metric.score(metricContext('robustness', { variants: [variant('v1', true)], outcome: { passed: false, scores: {} } }));
    expect(result.score).toBe(0);
    expect(result.failures[0]).toMatchObject({ severity: 'low', event_index: 2 });
  });

  it('falls back to the task expectation for the original outcome', async () => {
    const context = metricContext('robustness', { output: 'It is 42 EUR', task: { expected: { contains: '42 EUR' } }, variants: [variant('v1', true), variant('v2', true)] });
    expect((await metric.score(context)).score).toBe(1);
  });

  it('is unmeasured without variants, with too few, or without any way to know the original outcome', async () => {
    expect((await metric.score(metricContext('robustness', {}))).score).toBeNull();
    expect((await metric.score(metricContext('robustness', { variants: [variant('v1', true)], outcome: { passed: true, scores: {} }, params: { min_variants: 3 } }))).note).toMatch(/fewer/);
    expect((await metric.score(metricContext('robustness', { variants: [variant('v1', true)] }))).note).toMatch(/original outcome is unknown/);
  });
});
