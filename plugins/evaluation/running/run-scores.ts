/**
 * The running score aggregates of one run, fed by its `metric_result` events (run-state.ts): per-metric spreads
 * across the original and its variants (robustness), weighted dimension sums and metric means of the original,
 * and, with repeated trials, each task's worst attempt per metric. pass^k is the verdict's (core/domain/verdict.ts).
 */
import type { RobustnessStats } from '../../../core/domain/runs.ts';
import type { Dimension } from '../../../core/domain/scenario.ts';
import { DIMENSIONS } from '../../../core/domain/scenario.ts';
import type { TraceEvent } from '../../../core/domain/trace.ts';
import { isAttackVariant } from '../submission/plan.ts';

interface Spread {
  sum: number;
  sumSquares: number;
  min: number;
  count: number;
}

/** The aggregates; only the functions below change them. */
export interface ScoreTally {
  dimensionSums: Map<Dimension, { weighted: number; weights: number }>;
  metricMeans: Map<string, { dimension: Dimension; sum: number; count: number }>;
  spreads: Map<string, Spread>;
  /** With trials, a metric's scores are kept per task until the end: the dimension takes the worst attempt. */
  trialScores: Map<string, { dimension: Dimension; weight: number; metric: string; min: number }>;
}

export function createScoreTally(): ScoreTally {
  return { dimensionSums: new Map(), metricMeans: new Map(), spreads: new Map(), trialScores: new Map() };
}

/** A measured score: into the spread (robustness), then the task's trials or the dimension and metric means. */
export function addScore(tally: ScoreTally, event: TraceEvent, metric: { metric: string; dimension: Dimension; weight: number }, score: number): void {
  // Attack cases are reported as attacks (attack-numbers.ts), not as robustness or dimensions.
  if (isAttackVariant(event.variant)) return;
  let spread = tally.spreads.get(metric.metric);
  if (!spread) tally.spreads.set(metric.metric, (spread = { sum: 0, sumSquares: 0, min: Infinity, count: 0 }));
  spread.sum += score;
  spread.sumSquares += score * score;
  spread.min = Math.min(spread.min, score);
  spread.count++;
  // Dimensions are scored on the original only; variants feed robustness.
  if (event.variant) return;
  if (event.trial !== undefined) {
    const key = `${event.task_id ?? ''}\u0000${metric.metric}`;
    const kept = tally.trialScores.get(key);
    if (!kept) tally.trialScores.set(key, { dimension: metric.dimension, weight: metric.weight, metric: metric.metric, min: score });
    else kept.min = Math.min(kept.min, score);
    return;
  }
  const sums = tally.dimensionSums.get(metric.dimension) ?? { weighted: 0, weights: 0 };
  sums.weighted += score * metric.weight;
  sums.weights += metric.weight;
  tally.dimensionSums.set(metric.dimension, sums);
  const mean = tally.metricMeans.get(metric.metric) ?? { dimension: metric.dimension, sum: 0, count: 0 };
  mean.sum += score;
  mean.count++;
  tally.metricMeans.set(metric.metric, mean);
}

/** Dimension scores: the weighted mean of the measured metric scores of each dimension (originals only). */
export function dimensionScores(tally: ScoreTally): Partial<Record<Dimension, number | null>> {
  const totals = new Map<Dimension, { weighted: number; weights: number }>();
  for (const [dimension, sums] of tally.dimensionSums) totals.set(dimension, { ...sums });
  // Repeated trials: each task's metric counts once, by its worst attempt (pass^k for pass/fail metrics).
  for (const kept of tally.trialScores.values()) {
    const sums = totals.get(kept.dimension) ?? { weighted: 0, weights: 0 };
    sums.weighted += kept.min * kept.weight;
    sums.weights += kept.weight;
    totals.set(kept.dimension, sums);
  }
  return Object.fromEntries(DIMENSIONS.map((dimension) => {
    const sums = totals.get(dimension);
    return [dimension, sums && sums.weights > 0 ? sums.weighted / sums.weights : null];
  }));
}

/** The mean score of each metric (originals only; with trials, each task's worst attempt). */
export function metricScores(tally: ScoreTally): Record<string, { dimension: Dimension; mean: number; count: number }> {
  const means = new Map([...tally.metricMeans].map(([id, mean]) => [id, { ...mean }]));
  for (const kept of tally.trialScores.values()) {
    const mean = means.get(kept.metric) ?? { dimension: kept.dimension, sum: 0, count: 0 };
    mean.sum += kept.min;
    mean.count++;
    means.set(kept.metric, mean);
  }
  return Object.fromEntries([...means].map(([id, mean]) => [id, { dimension: mean.dimension, mean: round(mean.sum / mean.count), count: mean.count }]));
}

/** `{mean, min, stddev}` per metric across the original and its variants. */
export function robustnessOf(tally: ScoreTally, variants: number): RobustnessStats | null {
  if (variants === 0) return null;
  const metrics: RobustnessStats['metrics'] = {};
  for (const [id, spread] of tally.spreads) {
    const mean = spread.sum / spread.count;
    const variance = Math.max(0, spread.sumSquares / spread.count - mean * mean);
    metrics[id] = { mean: round(mean), min: round(spread.min), stddev: round(Math.sqrt(variance)), count: spread.count };
  }
  return { variants, metrics };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
