/**
 * The world a task's gold solution produces (τ-bench's way of judging: the final database against the one the
 * gold actions produce): its `expected_actions` replayed, in order, on a fresh copy of the task's initial world,
 * with the run's clock. Built once per scenario and task: every attempt and turn compares against the same one.
 * A gold action the world refuses makes the scenario unjudgeable, said in words (`state_match` is then
 * unmeasured on it, never guessed).
 */
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { Registry } from '../../../core/registry.ts';
import type { Shim } from '../../../core/shim.ts';
import { createTaskWorld } from './world.ts';
import type { ShimExecution } from '../../../core/domain/shim-run.ts';

/** The gold world's views by shim, or why it could not be built. */
export type GoldWorld = { expected: Record<string, unknown> } | { expectedError: string };

const built = new WeakMap<Scenario, Map<string, Promise<GoldWorld>>>();

async function replay(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, now: string, execution?: ShimExecution): Promise<GoldWorld> {
  // The gold solution may use any tool of the enabled shims, whatever the task offers the agent.
  const world = await createTaskWorld({ shims, scenario, task: { ...task, tools: undefined }, now, record: () => -1, ...(execution ? { execution } : {}) });
  if (!world) return { expectedError: 'expected_actions need a world: the scenario enables no shim' };
  try {
    for (const [index, action] of (task.expected_actions ?? []).entries()) {
      const outcome = await world.call(action.name, action.arguments ?? {});
      if ('error' in outcome) return { expectedError: `gold action ${index + 1} (${action.name}) was refused by the world: ${outcome.error.code}: ${outcome.error.message}`.slice(0, 500) };
    }
    return { expected: await world.views() };
  } finally {
    world.close();
  }
}

/** The gold world of `task` (its `expected_actions` replayed); `undefined` for a task without them. */
export function goldWorldOf(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, now: string, execution?: ShimExecution): Promise<GoldWorld> | undefined {
  if (!task.expected_actions?.length) return undefined;
  let byTask = built.get(scenario);
  if (!byTask) built.set(scenario, (byTask = new Map()));
  let gold = byTask.get(task.id);
  if (!gold) byTask.set(task.id, (gold = replay(shims, scenario, task, now, execution)));
  return gold;
}
