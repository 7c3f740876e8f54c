/**
 * Scoring one task's metrics under the metric budget (issue 13): no answer may hold the service.
 *
 * - Metrics that declare `module` (pure text work: every built-in metric but `counterfactual_parity` and
 *   `llm_judge`) are scored together in one offload job, off the request thread, within
 *   `AEH_METRIC_BUDGET_MS` (2000 ms by default) of wall-clock time in the worker. A batch past the budget is
 *   split, each metric again alone with the full budget, so only the one that overran is unmeasured.
 * - The others (they probe the agent or call the judge) run on the request thread under
 *   `AEH_METRIC_IO_TIMEOUT_MS` (120000 ms), with their `signal` aborted at the deadline.
 * - A small answer to a metric that declares itself `linear` (every built-in one) is scored inline: at most
 *   `AEH_METRIC_INLINE_MAX_CHARS` (4096) characters of answer and input, no tool results, params under 1 KiB.
 *   Linear patterns make that microseconds, where a worker round trip costs tens of them per task; the
 *   setting at 0 sends everything to the pool.
 * - A metric that declares `worldInline` (`state_match`) is scored inline when the task has a world: it compares
 *   states that share structure, where a copy of the world for a worker (structured clone) would share nothing
 *   and cost tens of milliseconds per task for a 2.8 MB τ-bench database (bench/tau/gold-diff.mjs).
 * - Without an offload (workerd, `AEH_METRIC_WORKERS=0`), every metric runs inline; a synchronous one cannot
 *   be stopped there, only reported late.
 *
 * A metric past its time is `score: null` with `INFRA.METRIC_TIMEOUT`; one that throws, `INFRA.METRIC_ERROR`.
 *
 * A metric of `scope: "answer"` judges every answer of a conversation (answers.ts): one job per answer, each
 * with that answer as `output` and the trace up to it, folded into one result per metric.
 */
import type { Metric, MetricContext, MetricResult } from '../../../core/metric.ts';
import { OffloadBudgetError, type Offload } from '../../../core/capabilities.ts';
import type { MetricRef, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { Services } from '../../../core/services.ts';
import { METRIC_WORKER_MODULE, type MetricBatch, type MetricOutcome, type WorkerMetricContext } from './metric-worker.ts';
import type { MetricResultData } from '../running/run-state.ts';
import { answersOf, answerView, foldAnswers, type Answer } from './answers.ts';
import { needsSecurityJudge, withSecurityJudgements } from '../attacks/security-metric.ts';
import { DEFAULT_METRIC_INLINE_MAX_CHARS, metricLimits, type MetricLimits } from './metric-limits.ts';

export { DEFAULT_METRIC_BUDGET_MS, DEFAULT_METRIC_IO_TIMEOUT_MS, DEFAULT_METRIC_INLINE_MAX_CHARS, metricLimits, type MetricLimits } from './metric-limits.ts';
const INLINE_MAX_PARAMS_CHARS = 1024;
/** How long a worker may take to load and warm a batch's metrics before their budget starts. */
const SETUP_MS = 60_000;

/** The context of one task's metrics, without the per-metric `ref` and `params`. */
export type TaskMetricContext = Omit<MetricContext, 'ref' | 'params'>;

function normalizeResult(result: MetricResult, outputEvent: number): Pick<MetricResultData, 'score' | 'failures' | 'note'> {
  const raw = result?.score;
  const score = typeof raw === 'number' && Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : null;
  const failures = (Array.isArray(result?.failures) ? result.failures : []).map((failure) => ({
    code: String(failure.code),
    severity: failure.severity ?? 'medium',
    message: String(failure.message ?? ''),
    event_index: typeof failure.event_index === 'number' ? failure.event_index : outputEvent,
    // A metric that reads a whole conversation says which turn it saw a failure in (an egress call's).
    ...(Number.isInteger(failure.turn) && failure.turn! > 0 ? { turn: failure.turn } : {}),
    ...(failure.evidence !== undefined ? { evidence: failure.evidence } : {}),
  }));
  return { score, failures, ...(result?.note ? { note: String(result.note) } : {}) };
}

/**
 * What a worker may be sent: the data of the context, and the scenario without its agent settings and with
 * only the task scored (cloning every task and scripted reply once per task made the pool quadratic).
 */
function workerContext(context: TaskMetricContext): WorkerMetricContext {
  const { probe: _probe, llm: _llm, signal: _signal, scenario, ...data } = context;
  return { ...data, scenario: { ...scenario, agent: { adapter: scenario.agent.adapter }, tasks: [context.task] } };
}

/**
 * True when a `linear` metric may score this task inline: a small answer and inputs (every turn's, in a
 * conversation), and no tool results.
 */
function smallEnough(context: TaskMetricContext, maxChars: number): boolean {
  if (maxChars <= 0) return false;
  let size = context.output.length + context.task.input.length;
  for (const event of context.events) {
    if (event.type === 'tool_call') return false;
    if (event.type === 'input') size += String(event.data?.input ?? '').length;
    if (size > maxChars) return false;
  }
  return size <= maxChars;
}

function smallParams(ref: MetricRef): boolean {
  return ref.params === undefined || JSON.stringify(ref.params).length <= INLINE_MAX_PARAMS_CHARS;
}

/** Resolves, or rejects with `OffloadBudgetError` after `ms` (the work itself is not stopped). */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OffloadBudgetError(ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

type Scored = MetricOutcome | { timeout: number } | { inline: true };

async function offloadBatch(offload: Offload, batch: MetricBatch, budgetMs: number, signal?: AbortSignal, group?: string): Promise<Scored[]> {
  try {
    // Loading and warming the metrics in a cold worker is setup, not the metrics' work (issue 24 item 6).
    return await offload.run({ module: METRIC_WORKER_MODULE, name: 'scoreMetricBatch', input: batch, budgetMs, setupMs: Math.max(SETUP_MS, budgetMs), signal, ...(group ? { group } : {}) }) as MetricOutcome[];
  } catch (error) {
    if (signal?.aborted) throw error;
    // No worker could start: score here. A worker that died on the job (out of memory) is that job's error:
    // running it again on this thread could take the service down with it.
    if ((error as Error)?.name === 'OffloadUnavailable') return batch.metrics.map(() => ({ inline: true }));
    if (!(error instanceof OffloadBudgetError)) return batch.metrics.map(() => ({ error: (error as Error)?.message ?? String(error) }));
    if (batch.metrics.length === 1) return [{ timeout: budgetMs }];
    const alone = batch.metrics.map((metric) => offloadBatch(offload, { ...batch, metrics: [metric] }, budgetMs, signal, group));
    return (await Promise.all(alone)).map((outcomes) => outcomes[0]);
  }
}

const warmingInline = new WeakMap<Metric, Promise<void>>();
const warmedInline = new WeakSet<Metric>();

/**
 * Runs a metric's `warm` once in this process, outside any budget, before the first task that needs it
 * (`warmsFor`); `undefined` once it is warm or when this task does not need it (no await then).
 */
function warmInline(metric: Metric, task: ScenarioTask): Promise<void> | undefined {
  if (!metric.warm || warmedInline.has(metric) || metric.warmsFor?.(task) === false) return undefined;
  let warming = warmingInline.get(metric);
  if (!warming) {
    warming = Promise.resolve(metric.warm()).then(() => { warmedInline.add(metric); });
    warmingInline.set(metric, warming);
  }
  return warming;
}

function scoreInline(metric: Metric, ref: MetricRef, context: TaskMetricContext, limits: MetricLimits): MetricResult | Promise<MetricResult> {
  // Loading data and compiling patterns is setup: the budget is for the metric's work on this answer.
  const warming = warmInline(metric, context.task);
  if (warming) return warming.then(() => scoreInline(metric, ref, context, limits));
  const params = ref.params ?? {};
  if (metric.module) {
    // Worker-safe work run inline (no offload here): synchronous in practice, and nothing on this thread could
    // stop it; a promise still gets the budget.
    const result = metric.score({ ...context, ref, params });
    return result instanceof Promise ? withDeadline(result, limits.budgetMs) : result;
  }
  const result = metric.score(withLazyDeadline({ ...context, ref, params }, context.signal, limits.ioTimeoutMs));
  return result instanceof Promise ? withDeadline(result, limits.ioTimeoutMs) : result;
}

/**
 * The metric's context with a `signal` aborted at the I/O deadline (or with the run's), made when the metric
 * first reads it: most metrics never do, and a timer and a combined signal per metric and unit were a tenth of
 * the scoring on τ-bench's hot path. The deadline still counts from the start of the metric's work.
 */
function withLazyDeadline<T extends object>(input: T, runSignal: AbortSignal | undefined, ms: number): T & { signal: AbortSignal } {
  const started = performance.now();
  let signal: AbortSignal | undefined;
  return Object.defineProperty(input, 'signal', {
    enumerable: true,
    get() {
      if (!signal) {
        const deadline = AbortSignal.timeout(Math.max(1, Math.ceil(ms - (performance.now() - started))));
        signal = runSignal ? AbortSignal.any([runSignal, deadline]) : deadline;
      }
      return signal;
    },
  }) as T & { signal: AbortSignal };
}

/** One scoring job: a metric on the task, or on one answer of its conversation. */
interface Job {
  refIndex: number;
  answer?: Answer;
}

/**
 * The jobs of a task: one per metric, or one per answer for a metric of `scope: "answer"` in a conversation; and,
 * per metric, the positions of its jobs (a loop, not closures: this runs for every unit).
 */
function jobsOf(metrics: Array<Metric | undefined>, answers: Answer[]): { jobs: Job[]; byRef: number[][] } {
  const jobs: Job[] = [];
  const byRef: number[][] = [];
  for (let refIndex = 0; refIndex < metrics.length; refIndex++) {
    const positions: number[] = [];
    if (metrics[refIndex]?.scope === 'answer' && answers.length > 1) {
      for (const answer of answers) positions.push(jobs.push({ refIndex, answer }) - 1);
    } else positions.push(jobs.push({ refIndex }) - 1);
    byRef.push(positions);
  }
  return { jobs, byRef };
}

/** A job's result, or the INFRA result of a job that could not be scored (never thrown, but for an abort). */
type JobResult = Pick<MetricResultData, 'score' | 'failures' | 'note'>;

/** A job's INFRA result: the harness could not score it (never thrown, but for an abort). */
function jobFailure(error: unknown, ref: MetricRef, context: TaskMetricContext, outputEvent: number): JobResult {
  if (context.signal?.aborted) throw context.signal.reason;
  const timedOut = error instanceof OffloadBudgetError;
  const message = (timedOut
    ? `metric ${ref.id} ran past its time limit of ${error.budgetMs} ms`
    : `metric ${ref.id} failed: ${(error as Error)?.message ?? String(error)}`).slice(0, 500);
  return { score: null, failures: [{ code: timedOut ? 'INFRA.METRIC_TIMEOUT' : 'INFRA.METRIC_ERROR', severity: 'medium', message, event_index: outputEvent }], note: message };
}

/**
 * A job's result. A synchronous metric scored inline answers without a promise (no microtask per metric and
 * unit: this is the engine's hot path); everything else settles through one.
 */
function scoreJob(job: Job, scored: Promise<Scored> | undefined, metric: Metric | undefined, ref: MetricRef, context: TaskMetricContext, limits: MetricLimits): JobResult | Promise<JobResult> {
  const view = job.answer ? answerView(context, job.answer) : context;
  const settle = (outcome: Scored): JobResult | Promise<JobResult> => {
    if ('timeout' in outcome) throw new OffloadBudgetError(outcome.timeout);
    if ('error' in outcome) throw new Error(outcome.error);
    const result = 'result' in outcome ? outcome.result : scoreInline(metric!, ref, view, limits);
    return result instanceof Promise ? result.then((done) => normalizeResult(done, view.outputEvent)) : normalizeResult(result, view.outputEvent);
  };
  try {
    if (!metric) throw new Error(`metric "${ref.id}" is not loaded`);
    const settled = scored ? scored.then(settle) : settle({ inline: true });
    return settled instanceof Promise ? settled.catch((error) => jobFailure(error, ref, context, view.outputEvent)) : settled;
  } catch (error) {
    return jobFailure(error, ref, context, view.outputEvent);
  }
}

/**
 * Scores a task's metrics, yielding each result in the order of `refs` (inline metrics run in that order, so
 * their probes land in the trace in order) while the worker-safe ones are scored in a worker meanwhile.
 * Throws only when the run's signal aborts.
 */
export async function* scoreTaskMetrics(services: Pick<Services, 'metrics' | 'capabilities' | 'config'>, givenRefs: MetricRef[], context: TaskMetricContext, limits: MetricLimits = metricLimits({}), group?: string): AsyncGenerator<MetricResultData> {
  const refs = needsSecurityJudge(givenRefs) ? await withSecurityJudgements(services.metrics, givenRefs, context) : givenRefs;
  const offload = services.capabilities.offload;
  const metrics = refs.map((ref) => services.metrics.get(ref.id));
  const small = smallEnough(context, limits.inlineMaxChars);
  // Only a conversation's answers need finding, and only for a metric that judges each.
  const answers = metrics.some((metric) => metric?.scope === 'answer') ? answersOf(context.events, context.outputEvent) : [];
  const { jobs, byRef } = jobsOf(metrics, answers);
  const offloaded = offload
    ? jobs.flatMap((job, index) => {
      const metric = metrics[job.refIndex];
      const inline = (small && metric?.linear && smallParams(refs[job.refIndex])) || (metric?.worldInline && context.world);
      return metric?.module && !inline ? [index] : [];
    })
    : [];
  const batch = offloaded.length
    ? offloadBatch(offload!, {
      context: workerContext(context),
      metrics: offloaded.map((index) => {
        const { refIndex, answer } = jobs[index];
        return { id: refs[refIndex].id, module: metrics[refIndex]!.module!, ref: refs[refIndex], ...(answer ? { answer: { output: answer.output, outputEvent: answer.outputEvent } } : {}) };
      }),
    }, limits.budgetMs, context.signal, group)
    : undefined;
  // Settled before anything awaits it: a rejection while an inline metric runs must not go unhandled.
  batch?.catch(() => undefined);

  for (const [refIndex, ref] of refs.entries()) {
    const metric = metrics[refIndex];
    const base = { metric: ref.id, dimension: metric?.dimension ?? 'reliability', weight: ref.weight ?? 1 } as const;
    const results = [];
    for (const index of byRef[refIndex]!) {
      const job = jobs[index]!;
      const position = offloaded.length ? offloaded.indexOf(index) : -1;
      const result = scoreJob(job, position >= 0 ? batch!.then((outcomes) => outcomes[position]) : undefined, metric, ref, context, limits);
      results.push({ answer: job.answer, result: result instanceof Promise ? await result : result });
    }
    yield { ...base, ...(results.length === 1 && !results[0].answer ? results[0].result : foldAnswers(results)) };
  }
}
