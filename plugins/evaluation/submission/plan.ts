/**
 * The plan of a run, stored as the `scenario.json` sidecar at submission: the scenario as run (agent override
 * applied) and its mutated variants. The units of work are derived from it, so any instance holding the plan
 * and a handoff token knows exactly what `next` means.
 */
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { MutationChange } from '../../../core/domain/mutation.ts';
import type { RunAgent } from '../../../core/domain/agent-target.ts';
import type { VerdictPolicy } from '../../../core/domain/verdict-policy.ts';
import type { ScenarioOrigin } from '../../../core/domain/scenario-identity.ts';

export interface PlannedVariant {
  variant_id: string;
  types: string[];
  seed: number;
  changes: MutationChange[];
  scenario: Scenario;
}

/** The `scenario.json` sidecar. */
export interface RunPlan {
  run_id: string;
  task_id: string;
  seed: number | null;
  scenario: Scenario;
  variants: PlannedVariant[];
  /** The agent the run evaluates: its registry name (when given by name), adapter and configuration hash. */
  agent?: RunAgent;
  /** The request asked for the response cache (`"cache": true`, agent-cache.ts). */
  cache?: boolean;
  /** The verdict policy in force: the scenario's, with the request's fields over it (absent in older plans: the defaults). */
  verdict?: VerdictPolicy;
  /** The scenario's content hash (core/domain/scenario-identity.ts); absent in older plans, whose hash is computed. */
  scenario_hash?: string;
  /** Where the scenario came from: `catalog`, `file` or `inline` (absent in older plans). */
  origin?: ScenarioOrigin;
}

/**
 * One agent call and its metrics. For every task, the variants run first and the original last (once per
 * trial), so the original's metrics (robustness) see every variant's outcome of the same task.
 */
export interface Unit {
  taskIndex: number;
  /** Index into `plan.variants`, or -1 for the original. */
  variantIndex: number;
  /** The attempt of the original (0-based) when the scenario asks for `trials` > 1. */
  trial?: number;
}

/** Attempts of each original task (`scenario.trials`, default 1). */
export function trialsOf(plan: RunPlan): number {
  return plan.scenario.trials ?? 1;
}

/** Units in the run. */
export function unitCount(plan: RunPlan): number {
  return plan.scenario.tasks.length * (plan.variants.length + trialsOf(plan));
}

/** The unit at position `index` (0 ≤ index < unitCount). */
export function unitAt(plan: RunPlan, index: number): Unit {
  const trials = trialsOf(plan);
  const group = plan.variants.length + trials;
  const within = index % group;
  const taskIndex = Math.floor(index / group);
  if (within < plan.variants.length) return { taskIndex, variantIndex: within };
  return trials > 1 ? { taskIndex, variantIndex: -1, trial: within - plan.variants.length } : { taskIndex, variantIndex: -1 };
}

/** The task a unit runs (the variant's mutated copy for variants). */
export function taskOf(plan: RunPlan, unit: Unit): ScenarioTask {
  const scenario = unit.variantIndex < 0 ? plan.scenario : plan.variants[unit.variantIndex]!.scenario;
  return scenario.tasks[unit.taskIndex]!;
}

/** The variant id of a unit, or `undefined` for the original. */
export function variantOf(plan: RunPlan, unit: Unit): string | undefined {
  return unit.variantIndex < 0 ? undefined : plan.variants[unit.variantIndex]!.variant_id;
}

/** The topology agent that performs a task: the task's own, else the first of the topology, else none. */
export function agentOf(scenario: Scenario, task: ScenarioTask): string | null {
  return task.agent ?? scenario.topology[0]?.agent ?? null;
}

/** The topology position of the unit at `index` (for the handoff token); past the end, none. */
export function positionAt(plan: RunPlan, index: number): { agent: string | null; index: number | null } {
  if (index >= unitCount(plan)) return { agent: null, index: null };
  const agent = agentOf(plan.scenario, taskOf(plan, unitAt(plan, index)));
  const position = agent === null ? -1 : plan.scenario.topology.findIndex((node) => node.agent === agent);
  return { agent, index: position < 0 ? null : position };
}

/** The channel one topology agent writes and the other reads, if the topology declares one. */
export function channelBetween(scenario: Scenario, from: string, to: string): string | undefined {
  const writer = scenario.topology.find((node) => node.agent === from);
  const reader = scenario.topology.find((node) => node.agent === to);
  return writer?.writes.find((channel) => reader?.reads.includes(channel));
}
