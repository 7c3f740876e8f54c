/**
 * What a run has established so far, derived from its trace events only. The live runner feeds every event it
 * writes; a resuming instance feeds the verified trace prefix. Both reach the same state, so results never
 * depend on which instance ran which step.
 */
import type { AgentTurn } from '../../core/agent-adapter.ts';
import type { MetricFailure } from '../../core/metric.ts';
import type { RobustnessStats, RunFailure } from '../../core/domain/runs.ts';
import type { Dimension } from '../../core/domain/scenario.ts';
import { DIMENSIONS } from '../../core/domain/scenario.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';

/** The outcome of one task of the original or of a variant. */
export interface UnitOutcome {
  task_id: string;
  variant?: string;
  /** The attempt, when the scenario asks for repeated trials. */
  trial?: number;
  output: string;
  outputEvent: number;
  latency_ms: number;
  scores: Record<string, number | null>;
  passed: boolean;
}

/** What `metric_result` events carry in `data`. */
export interface MetricResultData {
  metric: string;
  dimension: Dimension;
  score: number | null;
  weight: number;
  failures: Array<MetricFailure & { event_index: number }>;
  note?: string;
}

export interface RunError {
  code: string;
  message: string;
}

interface Spread {
  sum: number;
  sumSquares: number;
  min: number;
  count: number;
}

const keyOf = (taskId: string, variant?: string, trial?: number) => `${variant ?? ''}\u0000${trial ?? ''}\u0000${taskId}`;
/** The conversation a unit belongs to: one per variant, and one per trial of the original. */
const conversationOf = (variant?: string, trial?: number) => (trial === undefined ? variant ?? '' : `${variant ?? ''}\u0000${trial}`);

/** A unit of a world run and the state changes it made, in order. */
export interface WorldUnit {
  task_id: string;
  variant?: string;
  trial?: number;
  changes: Array<{ shim: string; patch: unknown[] }>;
}

/** pass@k and pass^k of one task over its trials. */
export interface TaskTrials {
  task_id: string;
  trials: number;
  passed: number;
  pass_at_k: boolean;
  pass_hat_k: boolean;
}

/** Creates the state of one run. */
export function createRunState() {
  const dimensionSums = new Map<Dimension, { weighted: number; weights: number }>();
  const metricMeans = new Map<string, { dimension: Dimension; sum: number; count: number }>();
  const spreads = new Map<string, Spread>();
  const outcomes = new Map<string, UnitOutcome>();
  const histories = new Map<string, AgentTurn[]>();
  const lastAgents = new Map<string, string | null>();
  const pendingInputs = new Map<string, string>();
  const failures: RunFailure[] = [];
  // With trials, a metric's scores are kept per task until the end: the dimension takes the worst attempt.
  const trialScores = new Map<string, { dimension: Dimension; weight: number; metric: string; min: number }>();
  // World runs: the units that changed the world, and their changes in order (world.json at the end).
  const worldUnits = new Map<string, WorldUnit>();
  const signatures: Array<{ identity: string; jws: string; task_id: string; verified: true }> = [];
  let error: RunError | undefined;
  let startedAt: string | undefined;
  let finishedAt: string | undefined;
  let endStatus: string | undefined;

  function outcomeOf(event: TraceEvent): UnitOutcome {
    const key = keyOf(event.task_id ?? '', event.variant, event.trial);
    let outcome = outcomes.get(key);
    if (!outcome) {
      outcome = { task_id: event.task_id ?? '', ...(event.variant ? { variant: event.variant } : {}), ...(event.trial !== undefined ? { trial: event.trial } : {}), output: '', outputEvent: -1, latency_ms: 0, scores: {}, passed: true };
      outcomes.set(key, outcome);
    }
    return outcome;
  }

  function historyOf(variant?: string): AgentTurn[] {
    const key = variant ?? '';
    let history = histories.get(key);
    if (!history) histories.set(key, (history = []));
    return history;
  }

  function addMetric(event: TraceEvent, data: MetricResultData): void {
    const outcome = outcomeOf(event);
    outcome.scores[data.metric] = data.score;
    if (data.failures.length > 0) outcome.passed = false;
    for (const failure of data.failures) {
      failures.push({
        code: failure.code,
        metric: data.metric,
        task_id: event.task_id ?? '',
        event_index: failure.event_index ?? null,
        severity: failure.severity,
        message: failure.message,
        ...(failure.evidence !== undefined ? { evidence: failure.evidence } : {}),
        ...(event.variant ? { variant: event.variant } : {}),
      });
    }
    if (data.score === null) return;
    let spread = spreads.get(data.metric);
    if (!spread) spreads.set(data.metric, (spread = { sum: 0, sumSquares: 0, min: Infinity, count: 0 }));
    spread.sum += data.score;
    spread.sumSquares += data.score * data.score;
    spread.min = Math.min(spread.min, data.score);
    spread.count++;
    // Dimensions are scored on the original only; variants feed robustness.
    if (event.variant) return;
    if (event.trial !== undefined) {
      const key = `${event.task_id ?? ''}\u0000${data.metric}`;
      const kept = trialScores.get(key);
      if (!kept) trialScores.set(key, { dimension: data.dimension, weight: data.weight, metric: data.metric, min: data.score });
      else kept.min = Math.min(kept.min, data.score);
      return;
    }
    const sums = dimensionSums.get(data.dimension) ?? { weighted: 0, weights: 0 };
    sums.weighted += data.score * data.weight;
    sums.weights += data.weight;
    dimensionSums.set(data.dimension, sums);
    const mean = metricMeans.get(data.metric) ?? { dimension: data.dimension, sum: 0, count: 0 };
    mean.sum += data.score;
    mean.count++;
    metricMeans.set(data.metric, mean);
  }

  return {
    /** Takes one trace event into account. */
    observe(event: TraceEvent): void {
      const data = event.data;
      switch (event.type) {
        case 'run_start':
          startedAt = event.ts;
          break;
        case 'input':
          if (data.probe) break;
          // The turn joins the history with its answer, so the list an adapter gets holds still during its call.
          pendingInputs.set(conversationOf(event.variant, event.trial), String(data.input ?? ''));
          lastAgents.set(conversationOf(event.variant, event.trial), event.agent ?? null);
          break;
        case 'agent_output': {
          if (data.probe) break;
          const outcome = outcomeOf(event);
          outcome.output = String(data.output ?? '');
          outcome.outputEvent = event.seq;
          outcome.latency_ms = Number(data.latency_ms ?? 0);
          const history = historyOf(conversationOf(event.variant, event.trial));
          history.push({ role: 'user', content: pendingInputs.get(conversationOf(event.variant, event.trial)) ?? '', task_id: event.task_id ?? undefined });
          history.push({ role: 'assistant', content: outcome.output, task_id: event.task_id ?? undefined });
          // Only signatures verified against the agent's pinned key (agent-signature.ts) name it in the certificate.
          const signature = data.signature as { identity?: string; jws?: string; verified?: boolean } | undefined;
          if (signature?.verified === true && signature.identity && signature.jws && !event.variant) signatures.push({ identity: signature.identity, jws: signature.jws, task_id: event.task_id ?? '', verified: true });
          break;
        }
        case 'metric_result':
          addMetric(event, data as unknown as MetricResultData);
          break;
        case 'state_change':
        {
          // Kept only for units that change the world (a task's turns all add to its entry).
          const key = keyOf(event.task_id ?? '', event.variant, event.trial);
          let unit = worldUnits.get(key);
          if (!unit) worldUnits.set(key, (unit = { task_id: event.task_id ?? '', ...(event.variant ? { variant: event.variant } : {}), ...(event.trial !== undefined ? { trial: event.trial } : {}), changes: [] }));
          unit.changes.push({ shim: String(data.shim), patch: data.patch as unknown[] });
        }
          break;
        case 'error':
          error = { code: String(data.code ?? 'agent_error'), message: String(data.message ?? '') };
          failures.push({
            code: String(data.failure_code ?? 'INFRA.AGENT_ERROR'),
            metric: 'engine',
            task_id: event.task_id ?? '',
            event_index: event.seq,
            severity: 'critical',
            message: error.message,
            ...(event.variant ? { variant: event.variant } : {}),
          });
          break;
        case 'run_end':
          finishedAt = event.ts;
          endStatus = String(data.status ?? '');
          break;
        default:
          break;
      }
    },
    outcome: (taskId: string, variant?: string, trial?: number) => outcomes.get(keyOf(taskId, variant, trial)),
    history: (variant?: string, trial?: number) => historyOf(conversationOf(variant, trial)),
    lastAgent: (variant?: string, trial?: number) => lastAgents.get(conversationOf(variant, trial)),
    error: () => error,
    startedAt: () => startedAt,
    finishedAt: () => finishedAt,
    endStatus: () => endStatus,
    failures: () => failures,
    /** The units that changed the world, with their changes in order (for `world.json`). */
    worldUnits: () => [...worldUnits.values()],
    signatures: () => signatures,
    /** Dimension scores: the weighted mean of the measured metric scores of each dimension (originals only). */
    dimensions(): Partial<Record<Dimension, number | null>> {
      const totals = new Map<Dimension, { weighted: number; weights: number }>();
      for (const [dimension, sums] of dimensionSums) totals.set(dimension, { ...sums });
      // Repeated trials: each task's metric counts once, by its worst attempt (pass^k for pass/fail metrics).
      for (const kept of trialScores.values()) {
        const sums = totals.get(kept.dimension) ?? { weighted: 0, weights: 0 };
        sums.weighted += kept.min * kept.weight;
        sums.weights += kept.weight;
        totals.set(kept.dimension, sums);
      }
      return Object.fromEntries(DIMENSIONS.map((dimension) => {
        const sums = totals.get(dimension);
        return [dimension, sums && sums.weights > 0 ? sums.weighted / sums.weights : null];
      }));
    },
    perMetric(): Record<string, { dimension: Dimension; mean: number; count: number }> {
      const means = new Map([...metricMeans].map(([id, mean]) => [id, { ...mean }]));
      for (const kept of trialScores.values()) {
        const mean = means.get(kept.metric) ?? { dimension: kept.dimension, sum: 0, count: 0 };
        mean.sum += kept.min;
        mean.count++;
        means.set(kept.metric, mean);
      }
      return Object.fromEntries([...means].map(([id, mean]) => [id, { dimension: mean.dimension, mean: round(mean.sum / mean.count), count: mean.count }]));
    },
    /**
     * pass@k (some attempt passed) and pass^k (every attempt passed) per task and overall, over the attempts
     * that ran; `null` when the scenario asks for no repeated trials. An attempt passes with no failure.
     */
    trials(): { k: number; pass_at_k: number; pass_hat_k: number; per_task: TaskTrials[] } | null {
      const byTask = new Map<string, TaskTrials>();
      let k = 0;
      for (const outcome of outcomes.values()) {
        if (outcome.trial === undefined || outcome.variant) continue;
        k = Math.max(k, outcome.trial + 1);
        const entry = byTask.get(outcome.task_id) ?? { task_id: outcome.task_id, trials: 0, passed: 0, pass_at_k: false, pass_hat_k: true };
        entry.trials++;
        if (outcome.passed) entry.passed++;
        entry.pass_at_k = entry.passed > 0;
        entry.pass_hat_k = entry.passed === entry.trials;
        byTask.set(outcome.task_id, entry);
      }
      if (byTask.size === 0) return null;
      const perTask = [...byTask.values()];
      return { k, pass_at_k: round(perTask.filter((entry) => entry.pass_at_k).length / perTask.length), pass_hat_k: round(perTask.filter((entry) => entry.pass_hat_k).length / perTask.length), per_task: perTask };
    },
    perTask(): UnitOutcome[] {
      return [...outcomes.values()];
    },
    /** `{mean, min, stddev}` per metric across the original and its variants. */
    robustness(variants: number): RobustnessStats | null {
      if (variants === 0) return null;
      const metrics: RobustnessStats['metrics'] = {};
      for (const [id, spread] of spreads) {
        const mean = spread.sum / spread.count;
        const variance = Math.max(0, spread.sumSquares / spread.count - mean * mean);
        metrics[id] = { mean: round(mean), min: round(spread.min), stddev: round(Math.sqrt(variance)), count: spread.count };
      }
      return { variants, metrics };
    },
  };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

export type RunState = ReturnType<typeof createRunState>;
