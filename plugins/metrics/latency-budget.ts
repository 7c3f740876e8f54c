/**
 * `latency_budget` (reliability): the agent answers within `params.max_ms`. Within budget scores 1; over it
 * the score falls linearly to 0 at twice the budget, so a near miss and a timeout are told apart.
 */
import { defineMetric, unmeasured } from '../../core/metric.ts';

export default defineMetric({
  id: 'latency_budget',
  dimension: 'reliability',
  version: '1.0.0',
  // Pure text work: scored in a worker, under the metric budget; its patterns are linear (hostile.test.ts).
  module: import.meta.url,
  linear: true,
  description: 'The agent answers within params.max_ms; over budget the score falls linearly to 0 at twice the budget.',
  params: {
    type: 'object',
    additionalProperties: false,
    required: ['max_ms'],
    properties: {
      max_ms: { type: 'number', exclusiveMinimum: 0, description: 'Latency budget for the task in milliseconds.' },
    },
  },
  score({ params, latencyMs, outputEvent }) {
    const budget = params.max_ms;
    if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0) return unmeasured('params.max_ms is not set');
    if (typeof latencyMs !== 'number' || !Number.isFinite(latencyMs) || latencyMs < 0) return unmeasured('the task latency was not recorded');
    if (latencyMs <= budget) return { score: 1, failures: [] };
    const score = Math.max(0, 1 - (latencyMs - budget) / budget);
    return {
      score: Math.round(score * 10_000) / 10_000,
      failures: [{
        code: 'RELIABILITY.LATENCY_BUDGET_EXCEEDED',
        severity: latencyMs >= 2 * budget ? 'high' : 'medium',
        message: `answered in ${Math.round(latencyMs)} ms, over the ${budget} ms budget`,
        event_index: outputEvent,
        evidence: { latency_ms: Math.round(latencyMs), max_ms: budget, over_by_ms: Math.round(latencyMs - budget) },
      }],
    };
  },
});
