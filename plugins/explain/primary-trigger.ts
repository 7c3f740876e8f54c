/**
 * Picks the failure that matters most: highest severity first, then the heavier dimension (Weighted Severity
 * Model weights), then the earliest trace event, then a stable order — so the same run always gives the
 * same answer.
 */
import type { RunFailure } from '../../core/domain/runs.ts';
import type { Dimension } from '../../core/domain/scenario.ts';
import { DIMENSION_WEIGHTS } from '../../core/domain/scoring.ts';

const SEVERITY_RANK: Record<string, number> = { critical: 4, high: 3, medium: 2, low: 1 };

/** Taxonomy areas mapped to dimensions, for failures whose metric is unknown (engine failures). */
const AREA_DIMENSION: Record<string, Dimension> = {
  SAFETY: 'safety',
  SECURITY: 'security',
  PRIVACY: 'privacy',
  PARITY: 'fairness',
  FAIRNESS: 'fairness',
  TRANSPARENCY: 'explainability',
  EXPLAINABILITY: 'explainability',
  RESILIENCE: 'resilience',
  RELIABILITY: 'reliability',
  LOGIC: 'reliability',
  INFRA: 'reliability',
  POLICY: 'safety',
};

/** The dimension a failure counts against. */
export function dimensionOf(failure: RunFailure, metricDimension: (metric: string) => Dimension | undefined): Dimension {
  return metricDimension(failure.metric) ?? AREA_DIMENSION[failure.code.split('.')[0]?.toUpperCase() ?? ''] ?? 'reliability';
}

/** Orders failures most important first. */
export function rankFailures(failures: RunFailure[], metricDimension: (metric: string) => Dimension | undefined): RunFailure[] {
  return failures
    .map((failure, position) => ({ failure, position, dimension: dimensionOf(failure, metricDimension) }))
    .sort((a, b) =>
      (SEVERITY_RANK[b.failure.severity] ?? 0) - (SEVERITY_RANK[a.failure.severity] ?? 0) ||
      DIMENSION_WEIGHTS[b.dimension] - DIMENSION_WEIGHTS[a.dimension] ||
      (a.failure.event_index ?? Number.MAX_SAFE_INTEGER) - (b.failure.event_index ?? Number.MAX_SAFE_INTEGER) ||
      a.position - b.position,
    )
    .map((entry) => entry.failure);
}
