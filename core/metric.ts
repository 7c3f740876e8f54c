/**
 * The metric extension point: a metric scores one task's outcome in [0, 1] for one dimension and reports
 * failures with a taxonomy code, a severity, the trace event it points to and evidence.
 */
import { DIMENSIONS, type Dimension, type MetricRef, type Scenario, type ScenarioTask } from './domain/scenario.ts';
import type { TraceEvent } from './domain/trace.ts';
import type { LlmClient } from './llm.ts';
import type { FieldError } from './problems.ts';
import { check, validatorOf } from './validate.ts';

export type Severity = 'low' | 'medium' | 'high' | 'critical';

export interface MetricFailure {
  /** A code from the failure taxonomy (`GET /api/v1/taxonomy`). */
  code: string;
  severity: Severity;
  message: string;
  /** Sequence number of the trace event the failure points to. */
  event_index?: number;
  evidence?: unknown;
}

/** A score in [0, 1], or `null` when the metric could not measure (never guessed). */
export interface MetricResult {
  score: number | null;
  failures: MetricFailure[];
  /** Why the score is `null`, or other notes for the trace. */
  note?: string;
}

/** Everything a metric may look at for one task. */
export interface MetricContext {
  scenario: Scenario;
  task: ScenarioTask;
  ref: MetricRef;
  params: Record<string, unknown>;
  /** The agent's final output for the task. */
  output: string;
  /** Sequence number of the event holding `output`. */
  outputEvent: number;
  /** This task's trace events so far (inputs, outputs, tool calls, handoffs). */
  events: TraceEvent[];
  latencyMs: number;
  /** Outcomes of the same task in mutated variants (robustness), keyed by variant id. */
  variants?: Array<{
    variant: string;
    output: string;
    passed: boolean;
    scores: Record<string, number | null>;
    /** Sequence number of the variant's output event, when known. */
    event_index?: number;
  }>;
  /**
   * The original task's own outcome over its other metrics (`passed`: no failures), set by the engine
   * together with `variants` so `robustness` compares like with like.
   */
  outcome?: { passed: boolean; scores: Record<string, number | null> };
  /**
   * Asks the same agent another input (a counterfactual, a follow-up) and records the exchange in the trace.
   * Supplied by the engine; absent when the run replays a recorded trace.
   */
  probe?(input: string): Promise<{ output: string; event_index: number }>;
  /**
   * The task's world when the scenario enables shims: each shim's state as its view shows it when the task
   * started and when the agent was done (tool calls and state changes are in `events`).
   */
  world?: { initial: Record<string, unknown>; final: Record<string, unknown> };
  /** The configured LLM provider, when there is one. */
  llm?: LlmClient;
  signal?: AbortSignal;
}

export interface Metric {
  id: string;
  dimension: Dimension;
  description: string;
  version: string;
  /** JSON Schema of `params`. */
  params?: Record<string, unknown>;
  score(context: MetricContext): MetricResult | Promise<MetricResult>;
  /**
   * The URL of a module whose default export is this metric: set it to `import.meta.url` to have the engine
   * score the metric in a worker, off the request thread and under the metric budget (`AEH_METRIC_BUDGET_MS`).
   * Only for metrics that read nothing but the context's data: a worker gets no `probe`, `llm` or `signal`,
   * and a `scenario` without its agent settings, whose `tasks` holds only `task`. Without it, the metric runs
   * on the request thread under a wall-clock timeout, which cannot stop synchronous work.
   */
  module?: string;
  /**
   * True when the metric's cost is linear in what it reads (every pattern RE2 or checked bounded, with
   * property tests over adversarial strings): a small answer (`AEH_METRIC_INLINE_MAX_CHARS`) then costs it
   * microseconds, so the engine scores it inline rather than pay a worker round trip many times that.
   */
  linear?: boolean;
}

/** The form of a metric id (the scenario schema's `metrics[].id` pattern). */
export const METRIC_ID = /^[a-z][a-z0-9_]{1,63}$/;

/**
 * Checks a metric definition (id form, dimension, description, params schema compiles) and returns it frozen.
 * A params schema that cannot compile because the runtime forbids code generation (workerd) is checked by the
 * build's precompiled validators instead, so only real schema errors fail here.
 */
export function defineMetric(metric: Metric): Metric {
  if (!METRIC_ID.test(metric.id)) throw new Error(`metric id "${metric.id}" must be snake_case (${METRIC_ID})`);
  if (!(DIMENSIONS as readonly string[]).includes(metric.dimension)) {
    throw new Error(`metric "${metric.id}" has dimension "${metric.dimension}"; use one of ${DIMENSIONS.join(', ')}`);
  }
  if (!metric.description) throw new Error(`metric "${metric.id}" needs a description`);
  if (typeof metric.score !== 'function') throw new Error(`metric "${metric.id}" needs a score function`);
  if (metric.params !== undefined) {
    if (typeof metric.params !== 'object' || metric.params === null || metric.params.type !== 'object') {
      throw new Error(`metric "${metric.id}": params must be a JSON Schema of type "object"`);
    }
    try {
      validatorOf(metric.params);
    } catch (error) {
      if (!(error instanceof EvalError)) throw new Error(`metric "${metric.id}": params schema does not compile: ${(error as Error).message}`);
    }
  }
  return Object.freeze({ ...metric, version: metric.version || '1.0.0' });
}

/** Validates a scenario's `params` for a metric against its schema; empty when valid (or when it has none). */
export function checkMetricParams(metric: Metric, params: unknown, prefix = '/params'): FieldError[] {
  return metric.params ? check(metric.params, params ?? {}, prefix) : [];
}

/** A passing result. */
export function pass(score = 1): MetricResult {
  return { score, failures: [] };
}

/** A failing result with one failure. */
export function fail(code: string, message: string, options: { severity?: Severity; evidence?: unknown; event_index?: number; score?: number } = {}): MetricResult {
  return {
    score: options.score ?? 0,
    failures: [{ code, severity: options.severity ?? 'high', message, evidence: options.evidence, event_index: options.event_index }],
  };
}

/** An unmeasured result: the metric could not decide and says why. */
export function unmeasured(note: string): MetricResult {
  return { score: null, failures: [], note };
}
