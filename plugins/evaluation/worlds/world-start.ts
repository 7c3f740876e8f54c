/**
 * The state a task's world starts from: each enabled shim's `initial_state`, built by the shim (in the offload
 * pool under the shim budget when the shim names its module: the SQL shim runs the scenario's schema) with its
 * injection vectors rendered (core/domain/injection.ts), once per
 * scenario object and shared by every task, trial and variant of the run (shims never mutate a state).
 */
import type { Json, Shim, ShimCallContext } from '../../../core/shim.ts';
import { buildShimState, type ShimExecution } from '../../../core/domain/shim-run.ts';
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import { initialStateOf } from '../../../core/domain/injection.ts';

/** What one offloaded shim job may take when the caller names no budget (`AEH_SHIM_BUDGET_MS`'s default). */
export const DEFAULT_SHIM_EXECUTION: ShimExecution = { budgetMs: 2000 };

/** A shim's configuration in a scenario whose named configurations submission already resolved. */
export function configOf(scenario: Scenario, shim: string): Record<string, unknown> {
  const config = scenario.shim_config?.[shim];
  return config && typeof config === 'object' ? config : {};
}

/** A state as the shim's view shows it (what assertions and world.json see). */
export async function viewOf(shim: Shim, state: Json): Promise<Json> {
  return shim.view ? shim.view(state) : state;
}

const starts = new WeakMap<Scenario, Map<string, Promise<{ state: Json; view: Json }>>>();

/** The seed shim `name` starts from in `task`: the task's own `initial_state`, else the scenario's (vectors rendered). */
export function seedOf(scenario: Scenario, task: ScenarioTask | undefined, name: string): unknown {
  const own = task?.initial_state?.[name];
  return own !== undefined ? own : initialStateOf(scenario, name);
}

/**
 * The starting state of shim `name` and its view, built once per scenario object (and per task for a task that
 * gives its own). Rejects with the shim's refusal, or `ShimBudgetError` past the budget; a failure is not kept
 * (the next task tries again).
 */
export function startOf(scenario: Scenario, name: string, shim: Shim, context: ShimCallContext, execution: ShimExecution = DEFAULT_SHIM_EXECUTION, task?: ScenarioTask): Promise<{ state: Json; view: Json }> {
  let byShim = starts.get(scenario);
  if (!byShim) starts.set(scenario, (byShim = new Map()));
  const key = task?.initial_state?.[name] !== undefined ? `${name}\u0000${task.id}` : name;
  let start = byShim.get(key);
  if (!start) {
    start = (async () => {
      const state = await buildShimState(shim, seedOf(scenario, task, name), context, execution);
      return { state, view: await viewOf(shim, state) };
    })();
    start.catch(() => byShim!.delete(key));
    byShim.set(key, start);
  }
  return start;
}
