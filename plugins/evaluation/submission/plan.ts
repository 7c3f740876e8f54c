/**
 * The plan of a run, stored as the `scenario.json` sidecar at submission: the scenario as run (agent override
 * applied), its mutated variants and its attack cases (a variant of one task whose world holds an attack's text:
 * plugins/evaluation/attacks). The units of work are derived from it, so any instance holding the plan and a
 * handoff token knows exactly what `next` means.
 */
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { MutationChange } from '../../../core/domain/mutation.ts';
import type { RunAgent } from '../../../core/domain/agent-target.ts';
import type { VerdictPolicy } from '../../../core/domain/verdict-policy.ts';
import type { ScenarioOrigin } from '../../../core/domain/scenario-identity.ts';
import { withVectorTexts } from '../../../core/domain/injection.ts';

/** What an attack case plants and judges (issue 35): one attack on one user task, for one injection task. */
export interface PlannedAttack {
  attack: string;
  /** The injection task whose goal the text carries; absent for a denial-of-service attack. */
  injection_task?: string;
  /** A denial-of-service attack: it succeeds when the user task is not done. */
  dos?: true;
  /** The vectors attacked (those the user task's gold reads) and the text each holds. */
  injections: Record<string, string>;
  /** The request's settings for the attack, as given (`user_name`, `model_name`, the attack's own). */
  settings?: Record<string, unknown>;
}

export interface PlannedVariant {
  variant_id: string;
  types: string[];
  seed: number;
  changes: MutationChange[];
  /** The variant's scenario; absent for an attack case, whose scenario is the plan's with its injections (`variantScenario`). */
  scenario?: Scenario;
  /** The only task the variant runs (an attack case); absent: every task. */
  task_id?: string;
  attack?: PlannedAttack;
}

/** Variant ids of attack cases start so: the run state tells them from mutations by it (no robustness). */
export const ATTACK_VARIANT_PREFIX = 'attack:';

/** True for the variant id of an attack case. */
export function isAttackVariant(variant: string | undefined): boolean {
  return variant !== undefined && variant.startsWith(ATTACK_VARIANT_PREFIX);
}

/** The `scenario.json` sidecar. */
export interface RunPlan {
  run_id: string;
  task_id: string;
  seed: number | null;
  scenario: Scenario;
  variants: PlannedVariant[];
  /** With attacks: the user tasks no attack reaches (their gold reads no injection vector). */
  not_injectable?: string[];
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

/** Where each task's units start and which variants it runs, when some variant runs one task only. */
interface Layout {
  starts: number[];
  variantsOf: number[][];
  total: number;
}

const layouts = new WeakMap<RunPlan, Layout | null>();

function layoutOf(plan: RunPlan): Layout | null {
  let layout = layouts.get(plan);
  if (layout !== undefined) return layout;
  layout = null;
  if (plan.variants.some((variant) => variant.task_id !== undefined)) {
    const trials = trialsOf(plan);
    const starts: number[] = [];
    const variantsOf: number[][] = [];
    let total = 0;
    for (const task of plan.scenario.tasks) {
      const own = plan.variants.flatMap((variant, index) => (variant.task_id === undefined || variant.task_id === task.id ? [index] : []));
      starts.push(total);
      variantsOf.push(own);
      total += own.length + trials;
    }
    layout = { starts, variantsOf, total };
  }
  layouts.set(plan, layout);
  return layout;
}

/** Units in the run. */
export function unitCount(plan: RunPlan): number {
  return layoutOf(plan)?.total ?? plan.scenario.tasks.length * (plan.variants.length + trialsOf(plan));
}

/** The unit at position `index` (0 ≤ index < unitCount). */
export function unitAt(plan: RunPlan, index: number): Unit {
  const trials = trialsOf(plan);
  const layout = layoutOf(plan);
  let taskIndex: number;
  let within: number;
  let variants: number[] | undefined;
  if (layout) {
    let low = 0;
    let high = layout.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (layout.starts[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    taskIndex = low;
    within = index - layout.starts[low]!;
    variants = layout.variantsOf[low]!;
  } else {
    const group = plan.variants.length + trials;
    within = index % group;
    taskIndex = Math.floor(index / group);
  }
  const count = variants?.length ?? plan.variants.length;
  if (within < count) return { taskIndex, variantIndex: variants ? variants[within]! : within };
  return trials > 1 ? { taskIndex, variantIndex: -1, trial: within - count } : { taskIndex, variantIndex: -1 };
}

const attackScenarios = new WeakMap<PlannedVariant, Scenario>();

/**
 * The scenario a variant runs: its own, or for an attack case the plan's with the attack's text in its vectors
 * and, but for denial of service, the injection task's check added to the attacked task (`injection_success`).
 */
export function variantScenario(plan: RunPlan, variant: PlannedVariant): Scenario {
  if (variant.scenario) return variant.scenario;
  let scenario = attackScenarios.get(variant);
  if (!scenario) {
    const attack = variant.attack!;
    const injectionTask = plan.scenario.injection_tasks?.find((task) => task.id === attack.injection_task);
    const withTexts = withVectorTexts(plan.scenario, attack.injections);
    const tasks = injectionTask
      ? withTexts.tasks.map((task) => (task.id === variant.task_id ? { ...task, metrics: [...task.metrics, { id: INJECTION_METRIC, params: { injection_task: injectionTask.id, security: injectionTask.security } }] } : task))
      : withTexts.tasks;
    attackScenarios.set(variant, (scenario = { ...withTexts, tasks }));
  }
  return scenario;
}

/** The metric that judges an injection task's goal (plugins/metrics/injection-success.ts). */
export const INJECTION_METRIC = 'injection_success';

/** The scenario a unit runs: the original's, or its variant's. */
export function scenarioOf(plan: RunPlan, unit: Unit): Scenario {
  return unit.variantIndex < 0 ? plan.scenario : variantScenario(plan, plan.variants[unit.variantIndex]!);
}

/** The task a unit runs (the variant's mutated copy for variants). */
export function taskOf(plan: RunPlan, unit: Unit): ScenarioTask {
  return scenarioOf(plan, unit).tasks[unit.taskIndex]!;
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
