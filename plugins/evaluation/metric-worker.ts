/**
 * What an offload worker runs for the engine (`core/capabilities.ts` `Offload`): one task's worker-safe metrics,
 * loaded by the module URL each declares (`Metric.module`), scored in order on the same context. Loaded in
 * the worker only; the engine names it by URL (`METRIC_WORKER_MODULE`).
 */
import type { Metric, MetricContext, MetricResult } from '../../core/metric.ts';
import type { MetricRef } from '../../core/domain/scenario.ts';

/** The context a worker gets: the task's data, without the engine's closures (probe, llm, signal). */
export type WorkerMetricContext = Omit<MetricContext, 'ref' | 'params' | 'probe' | 'llm' | 'signal'>;

/** One task's metrics to score in a worker. */
export interface MetricBatch {
  context: WorkerMetricContext;
  metrics: Array<{ id: string; module: string; ref: MetricRef }>;
}

/** Each metric's result, or the message of what it threw (an `INFRA.METRIC_ERROR` for the engine). */
export type MetricOutcome = { result: MetricResult } | { error: string };

/** URL of this module, for `Offload.run`. */
export const METRIC_WORKER_MODULE = import.meta.url;

// The metric of each module, once per worker: `import()` of a loaded module still costs a trip through the
// loader, which at one batch per task was a visible share of the pool's overhead.
const loaded = new Map<string, Promise<Metric | undefined>>();

function metricAt(module: string): Promise<Metric | undefined> {
  let metric = loaded.get(module);
  if (!metric) {
    metric = import(module).then((exported: { default?: Metric }) => exported.default);
    loaded.set(module, metric);
  }
  return metric;
}

/** Scores a batch; never throws for one metric's failure. */
export async function scoreMetricBatch(batch: MetricBatch): Promise<MetricOutcome[]> {
  const outcomes: MetricOutcome[] = [];
  for (const { id, module, ref } of batch.metrics) {
    try {
      const metric = await metricAt(module);
      if (!metric || metric.id !== id || typeof metric.score !== 'function') throw new Error(`${module} does not export the metric "${id}" as its default`);
      outcomes.push({ result: await metric.score({ ...batch.context, ref, params: ref.params ?? {} }) });
    } catch (error) {
      outcomes.push({ error: (error as Error)?.message ?? String(error) });
    }
  }
  return outcomes;
}
