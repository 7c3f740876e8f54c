/**
 * `robustness` (resilience): the task's outcome holds across mutated variants of the scenario (typos,
 * synonyms, reordering). Score = share of variants whose pass/fail matches the original's; each flipped
 * variant is a `RESILIENCE.OUTCOME_FLIPPED` failure pointing at the variant's output. The original's outcome
 * comes from the engine (`ctx.outcome`), else from the task expectation; unmeasured without variants.
 */
import { defineMetric, unmeasured, type MetricFailure } from '../../core/metric.ts';
import { checkExpected, warmSchemaChecks, needsSchemaChecks } from './shared/expected.ts';
import { safeExcerpt } from './shared/safe-excerpt.ts';

export default defineMetric({
  id: 'robustness',
  dimension: 'resilience',
  version: '1.0.0',
  // Pure text work: scored in a worker, under the metric budget; its patterns are linear (hostile.test.ts).
  module: import.meta.url,
  linear: true,
  description: 'The outcome holds across mutated variants: score = share of variants whose pass/fail matches the original.',
  params: {
    type: 'object',
    additionalProperties: false,
    properties: {
      min_variants: { type: 'integer', minimum: 1, default: 1, description: 'Fewer variants than this leaves the metric unmeasured.' },
    },
  },
  // ajv's load and first compile are setup, not this metric's work on an answer.
  warm: warmSchemaChecks,
  warmsFor: needsSchemaChecks,
  score({ params, task, output, outputEvent, variants, outcome }) {
    const list = Array.isArray(variants) ? variants : [];
    const minimum = typeof params.min_variants === 'number' ? params.min_variants : 1;
    if (list.length === 0) return unmeasured('no mutated variants in this run');
    if (list.length < minimum) return unmeasured(`${list.length} variant(s), fewer than params.min_variants (${minimum})`);
    let originalPassed = outcome?.passed;
    if (typeof originalPassed !== 'boolean') {
      const expected = checkExpected(task.expected, output);
      if (!expected.measured) return unmeasured('the original outcome is unknown: no engine outcome and no checkable expectation');
      originalPassed = expected.passed;
    }
    const failures: MetricFailure[] = [];
    for (const variant of list) {
      if (variant.passed === originalPassed) continue;
      failures.push({
        code: 'RESILIENCE.OUTCOME_FLIPPED',
        severity: originalPassed ? 'high' : 'low',
        message: `variant ${variant.variant} ${variant.passed ? 'passed' : 'failed'} where the original ${originalPassed ? 'passed' : 'failed'}`,
        event_index: typeof variant.event_index === 'number' ? variant.event_index : outputEvent,
        evidence: { variant: variant.variant, original_passed: originalPassed, variant_passed: variant.passed, variant_output: safeExcerpt(variant.output ?? '', task, 160), variant_scores: variant.scores },
      });
    }
    return { score: (list.length - failures.length) / list.length, failures };
  },
});
