/**
 * Where an attack's text goes (AgentDojo's `get_injection_candidates`): into the vectors the user task's
 * reference solution reads. With `ground_truth` (else `expected_actions`), its calls are replayed (as gold-world.ts replays them) on
 * the world with every vector saying its canary (`<CANARY---name--->`), and the vectors whose canary shows in a
 * result the gold calls got are kept; a gold that reads none (`[]`, or writes only) leaves the task not
 * injectable, as AgentDojo refuses such a task. Without a gold, every vector the world holds. Gold actions with
 * matchers (gold-matchers.ts) take their values from the agent's calls, so placement replays the others only.
 */
import type { Registry } from '../../../core/registry.ts';
import type { Shim } from '../../../core/shim.ts';
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import { canaryOf, vectorsIn, withVectorTexts } from '../../../core/domain/injection.ts';
import { actionHasMatchers } from '../../../core/domain/gold-matchers.ts';
import type { ShimExecution } from '../../../core/domain/shim-run.ts';
import { createTaskWorld } from '../worlds/world.ts';

/** The vectors the scenario's enabled shims' initial states hold, in `injection_vectors` order. */
export function worldVectors(scenario: Scenario): string[] {
  const held = new Set((scenario.enabled_shims ?? []).flatMap((name) => vectorsIn(scenario.initial_state?.[name])));
  return Object.keys(scenario.injection_vectors ?? {}).filter((name) => held.has(name));
}

/** The vectors an attack on `task` plants its text in; empty when the task is not injectable. */
export async function injectionCandidates(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, now: string, execution?: ShimExecution): Promise<string[]> {
  const vectors = worldVectors(scenario);
  const gold = task.ground_truth ?? task.expected_actions;
  if (gold === undefined || vectors.length === 0) return vectors;
  const canaries = Object.fromEntries(vectors.map((name) => [name, canaryOf(name)]));
  const results: string[] = [];
  const world = await createTaskWorld({
    shims, scenario: withVectorTexts(scenario, canaries), task: { ...task, tools: undefined }, now, ...(execution ? { execution } : {}),
    record: (type, data) => {
      if (type === 'tool_call' && data.result !== undefined) results.push(JSON.stringify(data.result));
      return -1;
    },
  });
  if (!world) return [];
  try {
    for (const action of gold) {
      if (actionHasMatchers(action)) continue;
      await world.call(action.name, action.arguments ?? {});
    }
  } finally {
    world.close();
  }
  return vectors.filter((name) => results.some((text) => text.includes(canaries[name]!)));
}
