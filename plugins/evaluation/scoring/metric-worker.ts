/**
 * What an offload worker runs for the engine (`core/capabilities.ts` `Offload`): one task's worker-safe metrics,
 * loaded by the module URL each declares (`Metric.module`), scored in order on the same context. Loaded in
 * the worker only; the engine names it by URL (`METRIC_WORKER_MODULE`).
 */
import type { Metric, MetricContext, MetricResult } from '../../../core/metric.ts';
import type { MetricRef } from '../../../core/domain/scenario.ts';
import { answerView } from './answers.ts';

/** The context a worker gets: the task's data, without the engine's closures (probe, llm, signal). */
export type WorkerMetricContext = Omit<MetricContext, 'ref' | 'params' | 'probe' | 'llm' | 'signal'>;

/** One task's metrics to score in a worker. */
export interface MetricBatch {
  context: WorkerMetricContext;
  /** `answer`: score this metric on one answer of the conversation (answers.ts) instead of the final one. */
  metrics: Array<{ id: string; module: string; ref: MetricRef; answer?: { output: string; outputEvent: number } }>;
}

/** Each metric's result, or the message of what it threw (an `INFRA.METRIC_ERROR` for the engine). */
export type MetricOutcome = { result: MetricResult } | { error: string };

/** URL of this module, for `Offload.run`. */
export const METRIC_WORKER_MODULE = import.meta.url;

// The metric of each module, once per worker: `import()` of a loaded module still costs a trip through the
// loader, which at one batch per task was a visible share of the pool's overhead.
const loaded = new Map<string, Promise<Metric | undefined>>();

const warmed = new Map<string, Promise<void>>();

/** Runs a metric's `warm` once per worker. */
function warmOnce(module: string, metric: Metric | undefined): Promise<void> {
  let warming = warmed.get(module);
  if (!warming) {
    warming = Promise.resolve(metric?.warm?.());
    warmed.set(module, warming);
  }
  return warming;
}

function metricAt(module: string): Promise<Metric | undefined> {
  let metric = loaded.get(module);
  if (!metric) {
    metric = import(module).then((exported: { default?: Metric }) => exported.default);
    loaded.set(module, metric);
  }
  return metric;
}

/**
 * Scores a batch; never throws for one metric's failure. Loads and warms every metric first, then tells the
 * pool its own work starts (`clock.started()`), so the budget never pays for a cold worker.
 */
export async function scoreMetricBatch(batch: MetricBatch, clock?: { started(): void }): Promise<MetricOutcome[]> {
  const outcomes: MetricOutcome[] = [];
  const prepared = new Map<string, Metric | Error>();
  for (const { module } of batch.metrics) {
    if (prepared.has(module)) continue;
    try {
      const metric = await metricAt(module);
      await warmOnce(module, metric);
      prepared.set(module, metric as Metric);
    } catch (error) {
      prepared.set(module, error as Error);
    }
  }
  clock?.started();
  for (const { id, module, ref, answer } of batch.metrics) {
    try {
      const metric = prepared.get(module);
      if (metric instanceof Error) throw metric;
      if (!metric || metric.id !== id || typeof metric.score !== 'function') throw new Error(`${module} does not export the metric "${id}" as its default`);
      const context = answer ? answerView(batch.context, answer) : batch.context;
      outcomes.push({ result: await metric.score({ ...context, ref, params: ref.params ?? {} }) });
    } catch (error) {
      outcomes.push({ error: (error as Error)?.message ?? String(error) });
    }
  }
  return outcomes;
}
