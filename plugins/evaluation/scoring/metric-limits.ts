/**
 * The metric time limits a service reads at start (score-metrics.ts applies them): apart, so that the engine's start
 * does not load the scoring modules, which only a run needs (issue 36).
 */
/** Default of `AEH_METRIC_BUDGET_MS`. */
export const DEFAULT_METRIC_BUDGET_MS = 2000;
/** Default of `AEH_METRIC_IO_TIMEOUT_MS`. */
export const DEFAULT_METRIC_IO_TIMEOUT_MS = 120_000;
/** Default of `AEH_METRIC_INLINE_MAX_CHARS`. */
export const DEFAULT_METRIC_INLINE_MAX_CHARS = 4096;

/** The metric time limits of a service. */
export interface MetricLimits {
  budgetMs: number;
  ioTimeoutMs: number;
  /** Largest answer plus input a `linear` metric scores inline; 0: none. */
  inlineMaxChars: number;
}

function whole(env: Record<string, string | undefined>, name: string, fallback: number, min: number, unit: string): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min)) throw new Error(`${name} must be a whole number of ${unit} (at least ${min}), got "${raw}"`);
  return value;
}

const limitsCache = new WeakMap<object, MetricLimits>();

/** Reads `AEH_METRIC_BUDGET_MS` and `AEH_METRIC_IO_TIMEOUT_MS`; throws naming the variable when malformed. */
export function metricLimits(env: Readonly<Record<string, string | undefined>>): MetricLimits {
  let limits = limitsCache.get(env);
  if (!limits) {
    limits = {
      budgetMs: whole(env, 'AEH_METRIC_BUDGET_MS', DEFAULT_METRIC_BUDGET_MS, 1, 'milliseconds'),
      ioTimeoutMs: whole(env, 'AEH_METRIC_IO_TIMEOUT_MS', DEFAULT_METRIC_IO_TIMEOUT_MS, 1, 'milliseconds'),
      inlineMaxChars: whole(env, 'AEH_METRIC_INLINE_MAX_CHARS', DEFAULT_METRIC_INLINE_MAX_CHARS, 0, 'characters'),
    };
    limitsCache.set(env, limits);
  }
  return limits;
}
