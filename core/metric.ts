/**
 * The metric extension point: a metric scores one task's outcome in [0, 1] for one dimension and reports
 * failures with a taxonomy code, a severity, the trace event it points to and evidence.
 */
import { DIMENSIONS, type Dimension, type MetricRef, type Scenario, type ScenarioTask } from './domain/scenario.ts';
import type { TraceEvent } from './domain/trace.ts';
import type { LlmClient } from './llm.ts';
import type { FieldError } from './problems.ts';
import { check, validatorOf } from './validate.ts';
import { checkFailureCode, DIMENSION_AREAS, type FailureCode } from './failure-codes.ts';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** The type of a metric's `params`, read from their JSON Schema (json-schema-to-ts) when it is written `as const` or inline. */
export type ParamsOf<S> = [S] extends [JSONSchema] ? (FromSchema<S> extends Record<string, unknown> ? FromSchema<S> : Record<string, unknown>) : Record<string, unknown>;

export type Severity = 'low' | 'medium' | 'high' | 'critical';

export interface MetricFailure {
  /** A code from the failure taxonomy (`GET /api/v1/taxonomy`). */
  code: string;
  severity: Severity;
  message: string;
  /** Sequence number of the trace event the failure points to. */
  event_index?: number;
  evidence?: unknown;
  /**
   * The conversation turn (1-based) whose answer it was seen in; set by the engine for `scope: "answer"`, or by
   * a metric that reads a whole conversation (an egress call's turn).
   */
  turn?: number;
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
  /**
   * In a mutated variant, the task's input as the scenario wrote it (`task.input` and the trace hold the perturbed
   * one). A metric that judges an answer against what was asked reads this: the mutation tests the agent, not
   * the metric's reading of the request.
   */
  writtenInput?: string;
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
  world?: {
    initial: Record<string, unknown>;
    final: Record<string, unknown>;
    /** With `expected_actions`: the world they produce from the same initial state (every enabled shim). */
    expected?: Record<string, unknown>;
    /** With `expected_actions`: why that world could not be built (a gold action the world refused). */
    expectedError?: string;
    /**
     * With `expected_actions`: what the comparison with `expected` leaves out, as RFC 6901 pointers rooted at the
     * world with `*` segments (each enabled shim's incidental state, the scenario's and task's `ignore_paths`).
     */
    ignoredPaths?: string[];
    /**
     * With matchers in `expected_actions`: the gold actions (index, name, arguments as written) that no call of
     * the agent met; `expected` was built without them.
     */
    unmatchedActions?: Array<{ index: number; name: string; arguments?: Record<string, unknown> }>;
    /** The world's actions that may change it (`shim.action`, every action not `readOnly`), for metrics that judge writes. */
    writes?: string[];
  };
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
  /**
   * True when the metric reads a task's world only by comparing its states (`world.final` against
   * `world.expected`, assertions on paths), which share every record no call replaced, so identical references
   * are skipped and its cost follows what changed and what it asserts, not the world's size. The engine then
   * scores it inline whenever the task has a world: sending a worker the whole world (a 2.8 MB database, three
   * views of it) costs far more than the comparison, and the world's copy in the worker shares nothing, so the
   * comparison there would walk all of it. The engine's own turn checks run the same assertions inline. A metric
   * that reads none of the states, only the trace and `world.writes` (`claim_check`), sets it for the same reason.
   */
  worldInline?: boolean;
  /** Failure codes this metric emits beyond the bundled taxonomy; registered with the metric. */
  failureCodes?: readonly FailureCode[];
  /**
   * Builds what the first score would otherwise build (compiled pattern sets, loaded data), once per process or
   * worker, before the metric's time budget starts: a cold start on a busy machine must not time a metric out.
   */
  warm?(): void | Promise<void>;
  /**
   * With `warm`: whether scoring this task would use what `warm` builds. The engine then warms inline only before
   * the first such task, so a run that never needs it (task_success without a `json_schema` check) does not pay for it.
   */
  warmsFor?(task: ScenarioTask): boolean;
  /**
   * What one score judges. `task` (default): the task once, with `output` its final answer. `answer`: every
   * answer the agent gave in the task's conversation, each scored on its own (`output` that answer,
   * `outputEvent` its event, `events` the trace up to it), so a leak in turn 1 of 3 is seen; the task's score
   * is the lowest, and each failure says its `turn`. For metrics that judge what an answer says.
   */
  scope?: 'task' | 'answer';
}

/** The form of a metric id (the scenario schema's `metrics[].id` pattern). */
export const METRIC_ID = /^[a-z][a-z0-9_]{1,63}$/;

/**
 * What a metric's check may answer: `true` passes, `false` fails with the metric's failure code, a number is a
 * score in [0, 1] that passes at or above `threshold`, `null` or `undefined` means it could not decide
 * (unmeasured, never guessed), and a full result (`pass()`, `fail(...)`, `unmeasured(...)`) is kept as it is.
 */
export type CheckAnswer = boolean | number | MetricResult | null | undefined;

/** The one function of a metric: the agent's answer and the rest of the context in, a verdict out. */
export type MetricCheck<P = Record<string, unknown>> = (output: string, context: Omit<MetricContext, 'params'> & { params: P }) => CheckAnswer | Promise<CheckAnswer>;

/** A metric written as a check (`defineMetric({ id, check })`); everything but `id` and `check` has a default. */
export interface CheckMetricDefinition<S = undefined> extends Partial<Omit<Metric, 'score' | 'id' | 'params'>> {
  id: string;
  /** JSON Schema of the task's `params`; `check` gets them typed from it. */
  params?: S;
  check: MetricCheck<ParamsOf<S>>;
  /** The failure code a `false` or a low score reports (default `<AREA>.<ID>`, declared for you). */
  code?: string;
  /** Severity of that failure (default `medium`). */
  severity?: Severity;
  /** The lowest passing score when the check answers a number (default 0.5). */
  threshold?: number;
}

/** A metric written in full: `score(context)` returns a result. */
export type ScoreMetricDefinition = Omit<Metric, 'version'> & { version?: string };

function checkDefinition(metric: Metric): void {
  if (!METRIC_ID.test(metric.id)) throw new Error(`metric id "${metric.id}" must be snake_case (${METRIC_ID})`);
  if (!(DIMENSIONS as readonly string[]).includes(metric.dimension)) {
    throw new Error(`metric "${metric.id}" has dimension "${metric.dimension}"; use one of ${DIMENSIONS.join(', ')}`);
  }
  if (!metric.description) throw new Error(`metric "${metric.id}" needs a description`);
  if (typeof metric.score !== 'function') throw new Error(`metric "${metric.id}" needs a score function`);
  for (const entry of metric.failureCodes ?? []) checkFailureCode(entry);
  if (metric.params === undefined) return;
  if (typeof metric.params !== 'object' || metric.params === null || metric.params.type !== 'object') {
    throw new Error(`metric "${metric.id}": params must be a JSON Schema of type "object"`);
  }
  try {
    validatorOf(metric.params);
  } catch (error) {
    // Runtimes that forbid code generation (workerd) use the build's precompiled validators; only real errors fail.
    if (!(error instanceof EvalError)) throw new Error(`metric "${metric.id}": params schema does not compile: ${(error as Error).message}`);
  }
}

/** Turns a check's answer into a result. */
function verdict(answer: CheckAnswer, definition: { id: string; code: string; severity: Severity; threshold: number }, outputEvent: number): MetricResult {
  const failure = (message: string, score: number) => fail(definition.code, message, { severity: definition.severity, score, event_index: outputEvent });
  if (answer === true) return pass();
  if (answer === false) return failure(`${definition.id}: the check failed`, 0);
  if (answer === null || answer === undefined) return unmeasured(`${definition.id} could not decide`);
  if (typeof answer === 'number') {
    if (!Number.isFinite(answer) || answer < 0 || answer > 1) return unmeasured(`${definition.id} answered ${answer}, which is not a score in [0, 1]`);
    return answer >= definition.threshold ? pass(answer) : failure(`${definition.id} scored ${answer}, below ${definition.threshold}`, answer);
  }
  return answer;
}

function fromCheck(definition: CheckMetricDefinition<unknown>): Metric {
  const { check: checkFn, code: givenCode, severity = 'medium', threshold = 0.5, ...rest } = definition;
  const dimension = rest.dimension ?? 'reliability';
  const area = DIMENSION_AREAS[dimension] ?? 'RELIABILITY';
  const code = givenCode ?? `${area}.${String(definition.id).toUpperCase()}`;
  const declared: FailureCode[] = givenCode ? [] : [{ code, name: definition.id, dimension, parent: area, description: rest.description ?? `The ${definition.id} check failed.` }];
  const settings = { id: definition.id, code, severity, threshold };
  return {
    ...rest,
    id: definition.id,
    dimension,
    description: rest.description ?? `${definition.id} (a check)`,
    version: rest.version ?? '1.0.0',
    params: rest.params as Record<string, unknown> | undefined,
    failureCodes: [...declared, ...(rest.failureCodes ?? [])],
    async score(context) {
      return verdict(await checkFn(context.output, context), settings, context.outputEvent);
    },
  };
}

/**
 * Defines a metric, checked (id form, dimension, description, that `params` compiles) and frozen. Three forms:
 * `defineMetric('no_apologies', (output) => !/sorry/i.test(output))`, `defineMetric({ id, check, ... })`, and the
 * full `defineMetric({ id, dimension, description, score(context) })`.
 */
export function defineMetric<const S = undefined>(id: string, check: MetricCheck<ParamsOf<S>>, options?: Omit<CheckMetricDefinition<S>, 'id' | 'check'>): Metric;
export function defineMetric<const S = undefined>(definition: CheckMetricDefinition<S>): Metric;
export function defineMetric(definition: ScoreMetricDefinition): Metric;
export function defineMetric(first: string | CheckMetricDefinition<unknown> | ScoreMetricDefinition, check?: MetricCheck<never>, options?: object): Metric {
  const definition = typeof first === 'string' ? { ...options, id: first, check: check! } : first;
  const metric: Metric = 'check' in definition && typeof definition.check === 'function'
    ? fromCheck(definition as CheckMetricDefinition<unknown>)
    : { ...(definition as ScoreMetricDefinition), version: (definition as ScoreMetricDefinition).version || '1.0.0' };
  checkDefinition(metric);
  return Object.freeze(metric);
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
