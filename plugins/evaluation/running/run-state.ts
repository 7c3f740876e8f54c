/**
 * What a run has established so far, derived from its trace events only. The live runner feeds every event it
 * writes; a resuming instance feeds the verified trace prefix. Both reach the same state, so results never
 * depend on which instance ran which step.
 */
import type { AgentTurn } from '../../../core/agent-adapter.ts';
import type { MetricFailure } from '../../../core/metric.ts';
import type { RunFailure } from '../../../core/domain/runs.ts';
import type { Dimension } from '../../../core/domain/scenario.ts';
import type { TraceEvent } from '../../../core/domain/trace.ts';
import { addScore, createScoreTally, dimensionScores, metricScores, robustnessOf, type ScoreTally } from './run-scores.ts';
import { createUsageTally, observeUsage, usageTotals, type UsageTally } from './run-usage.ts';
import type { Prices } from '../../../core/domain/usage.ts';
import { isInfraFailure, type AttemptMetric } from '../../../core/domain/verdict.ts';

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
  /** No failure but the harness's own (`INFRA.*`): what robustness compares. The verdict reads `results`. */
  passed: boolean;
  /** Every metric's result for this unit, in the order recorded (core/domain/verdict.ts judges them). */
  results: AttemptMetric[];
}

/** What `metric_result` events carry in `data`. */
export interface MetricResultData {
  metric: string;
  dimension: Dimension;
  score: number | null;
  weight: number;
  failures: Array<MetricFailure & { event_index: number; turn?: number }>;
  note?: string;
}

/** A metric that could not measure, why (its note), and on how many results of the original tasks. */
export interface UnmeasuredNote {
  metric: string;
  note: string;
  count: number;
}

export interface RunError {
  code: string;
  message: string;
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

/** Everything the trace has established so far; only the functions below change it. */
interface RunFacts {
  tally: ScoreTally;
  /** Agent calls, cached answers, tokens and latency (run-usage.ts). */
  usage: UsageTally;
  outcomes: Map<string, UnitOutcome>;
  histories: Map<string, AgentTurn[]>;
  lastAgents: Map<string, string | null>;
  pendingInputs: Map<string, string>;
  failures: RunFailure[];
  /** World runs: the units that changed the world, and their changes in order (world.json at the end). */
  worldUnits: Map<string, WorldUnit>;
  signatures: Array<{ identity: string; jws: string; task_id: string; verified: true }>;
  /** Unmeasured results of the original tasks, by metric and note: why a run measured nothing. */
  unmeasured: Map<string, UnmeasuredNote>;
  /** Results of two-tier metrics by the tier their note says decided (`tier: model; …`). */
  tiers: Map<string, { deterministic: number; model: number }>;
  error?: RunError;
  startedAt?: string;
  finishedAt?: string;
  endStatus?: string;
}

/** The part of a unit's identity every record of it repeats: its variant and trial, when it has them. */
function unitTags(event: TraceEvent): { variant?: string; trial?: number } {
  return { ...(event.variant ? { variant: event.variant } : {}), ...(event.trial !== undefined ? { trial: event.trial } : {}) };
}

function outcomeOf(facts: RunFacts, event: TraceEvent): UnitOutcome {
  const key = keyOf(event.task_id ?? '', event.variant, event.trial);
  let outcome = facts.outcomes.get(key);
  if (!outcome) {
    outcome = { task_id: event.task_id ?? '', ...unitTags(event), output: '', outputEvent: -1, latency_ms: 0, scores: {}, passed: true, results: [] };
    facts.outcomes.set(key, outcome);
  }
  return outcome;
}

function historyOf(facts: RunFacts, variant?: string): AgentTurn[] {
  const key = variant ?? '';
  let history = facts.histories.get(key);
  if (!history) facts.histories.set(key, (history = []));
  return history;
}

/** The note two-tier metrics leave on every result (plugins/metrics/shared/moderation.ts `tierNote`). */
const TIER_NOTE = /^tier: (deterministic|model);/;

function addMetric(facts: RunFacts, event: TraceEvent, data: MetricResultData): void {
  const outcome = outcomeOf(facts, event);
  outcome.scores[data.metric] = data.score;
  // The harness's own faults (a metric past its budget) leave the metric unmeasured; they fail no attempt.
  if (data.failures.some((failure) => !isInfraFailure(failure))) outcome.passed = false;
  outcome.results.push({
    metric: data.metric, dimension: data.dimension, score: data.score,
    failures: data.failures.map(({ code, severity, message }) => ({ code, severity, message })),
    ...(data.note ? { note: data.note } : {}),
  });
  for (const failure of data.failures) {
    facts.failures.push({
      code: failure.code,
      metric: data.metric,
      task_id: event.task_id ?? '',
      event_index: failure.event_index ?? null,
      severity: failure.severity,
      message: failure.message,
      ...(failure.evidence !== undefined ? { evidence: failure.evidence } : {}),
      ...(event.variant ? { variant: event.variant } : {}),
      ...(event.trial !== undefined ? { trial: event.trial } : {}),
      ...(failure.turn !== undefined ? { turn: failure.turn } : {}),
    });
  }
  const tier = TIER_NOTE.exec(data.note ?? '')?.[1] as 'deterministic' | 'model' | undefined;
  if (tier) {
    const counts = facts.tiers.get(data.metric) ?? { deterministic: 0, model: 0 };
    counts[tier]++;
    facts.tiers.set(data.metric, counts);
  }
  if (data.score !== null) addScore(facts.tally, event, data, data.score);
  else if (!event.variant && data.failures.length === 0) {
    const note = data.note || 'no reason given';
    const key = `${data.metric}\u0000${note}`;
    const entry = facts.unmeasured.get(key);
    if (entry) entry.count++;
    else facts.unmeasured.set(key, { metric: data.metric, note, count: 1 });
  }
}

function addAgentOutput(facts: RunFacts, event: TraceEvent): void {
  const data = event.data;
  const outcome = outcomeOf(facts, event);
  outcome.output = String(data.output ?? '');
  outcome.outputEvent = event.seq;
  outcome.latency_ms = Number(data.latency_ms ?? 0);
  const conversation = conversationOf(event.variant, event.trial);
  const history = historyOf(facts, conversation);
  history.push({ role: 'user', content: facts.pendingInputs.get(conversation) ?? '', task_id: event.task_id ?? undefined });
  history.push({ role: 'assistant', content: outcome.output, task_id: event.task_id ?? undefined });
  // Only signatures verified against the agent's pinned key (agent-signature.ts) name it in the certificate.
  const signature = data.signature as { identity?: string; jws?: string; verified?: boolean } | undefined;
  if (signature?.verified === true && signature.identity && signature.jws && !event.variant) facts.signatures.push({ identity: signature.identity, jws: signature.jws, task_id: event.task_id ?? '', verified: true });
}

function addStateChange(facts: RunFacts, event: TraceEvent): void {
  // Kept only for units that change the world (a task's turns all add to its entry).
  const key = keyOf(event.task_id ?? '', event.variant, event.trial);
  let unit = facts.worldUnits.get(key);
  if (!unit) facts.worldUnits.set(key, (unit = { task_id: event.task_id ?? '', ...unitTags(event), changes: [] }));
  unit.changes.push({ shim: String(event.data.shim), patch: event.data.patch as unknown[] });
}

function addError(facts: RunFacts, event: TraceEvent): void {
  const data = event.data;
  const error = { code: String(data.code ?? 'agent_error'), message: String(data.message ?? '') };
  facts.error = error;
  facts.failures.push({
    code: String(data.failure_code ?? 'INFRA.AGENT_ERROR'),
    metric: 'engine',
    task_id: event.task_id ?? '',
    event_index: event.seq,
    severity: 'critical',
    message: error.message,
    ...(event.variant ? { variant: event.variant } : {}),
    ...(event.trial !== undefined ? { trial: event.trial } : {}),
  });
}

/** Takes one trace event into account. */
function observe(facts: RunFacts, event: TraceEvent): void {
  const data = event.data;
  switch (event.type) {
    case 'run_start':
      facts.startedAt = event.ts;
      break;
    case 'input':
      if (data.probe) break;
      // The turn joins the history with its answer, so the list an adapter gets holds still during its call.
      facts.pendingInputs.set(conversationOf(event.variant, event.trial), String(data.input ?? ''));
      facts.lastAgents.set(conversationOf(event.variant, event.trial), event.agent ?? null);
      break;
    case 'agent_output':
      observeUsage(facts.usage, event);
      if (!data.probe) addAgentOutput(facts, event);
      break;
    case 'metric_result':
      addMetric(facts, event, data as unknown as MetricResultData);
      break;
    case 'state_change':
      addStateChange(facts, event);
      break;
    case 'error':
      observeUsage(facts.usage, event);
      addError(facts, event);
      break;
    case 'run_end':
      facts.finishedAt = event.ts;
      facts.endStatus = String(data.status ?? '');
      break;
    default:
      break;
  }
}

/** Creates the state of one run. */
export function createRunState() {
  const facts: RunFacts = {
    tally: createScoreTally(),
    usage: createUsageTally(),
    outcomes: new Map(),
    histories: new Map(),
    lastAgents: new Map(),
    pendingInputs: new Map(),
    failures: [],
    worldUnits: new Map(),
    signatures: [],
    unmeasured: new Map(),
    tiers: new Map(),
  };
  return {
    /** Takes one trace event into account. */
    observe: (event: TraceEvent): void => observe(facts, event),
    outcome: (taskId: string, variant?: string, trial?: number) => facts.outcomes.get(keyOf(taskId, variant, trial)),
    history: (variant?: string, trial?: number) => historyOf(facts, conversationOf(variant, trial)),
    lastAgent: (variant?: string, trial?: number) => facts.lastAgents.get(conversationOf(variant, trial)),
    error: () => facts.error,
    startedAt: () => facts.startedAt,
    finishedAt: () => facts.finishedAt,
    endStatus: () => facts.endStatus,
    failures: () => facts.failures,
    /** The units that changed the world, with their changes in order (for `world.json`). */
    worldUnits: () => [...facts.worldUnits.values()],
    signatures: () => facts.signatures,
    /** Which tier judged each two-tier metric's results (the words or the classifier); `undefined` when none did. */
    tiers: () => (facts.tiers.size ? Object.fromEntries(facts.tiers) : undefined),
    /** Why metrics of the original tasks could not measure, by metric and note. */
    unmeasured: (): UnmeasuredNote[] => [...facts.unmeasured.values()],
    /** Dimension scores: the weighted mean of the measured metric scores of each dimension (originals only). */
    dimensions: () => dimensionScores(facts.tally),
    perMetric: () => metricScores(facts.tally),
    perTask: (): UnitOutcome[] => [...facts.outcomes.values()],
    /** `{mean, min, stddev}` per metric across the original and its variants. */
    robustness: (variants: number) => robustnessOf(facts.tally, variants),
    /** Calls, cached answers, tokens, latency and, with prices, cost. */
    usage: (prices?: Prices) => usageTotals(facts.usage, prices),
  };
}

export type RunState = ReturnType<typeof createRunState>;
