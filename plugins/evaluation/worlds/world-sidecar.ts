/**
 * The `world.json` sidecar: each enabled shim's initial state (as its view shows it) and, for every unit that
 * changed the world, its final state as the RFC 6902 diff from that initial view (`diff`, per shim: apply it to
 * `initial` to get the final world); the other units that ran left it as it started (`unchanged`, their count).
 * Initial state plus diffs, not a full copy per unit: a τ-bench run's 456 units would otherwise sign (and hash,
 * and serve) some 500 MB of database copies, at the limit of a JavaScript string.
 */
import { applyStateShared, stateDiff, type PatchOperation } from '../../../core/domain/state-diff.ts';
import type { Json, Shim } from '../../../core/shim.ts';
import type { ShimExecution } from '../../../core/domain/shim-run.ts';
import type { Registry } from '../../../core/registry.ts';
import type { Scenario } from '../../../core/domain/scenario.ts';
import type { WorldUnit } from '../running/run-state.ts';
import { configOf, startOf, viewOf } from './world-start.ts';

/**
 * The states a unit's task started from: the scenario's, but where the task gives its own `initial_state` (its
 * diff then carries that start too, so applying it to `initial` still gives the unit's final world).
 */
async function unitStart(shims: Registry<Shim>, scenario: Scenario, taskId: string, now: string, raw: ReadonlyMap<string, Json>, execution?: ShimExecution): Promise<Map<string, Json>> {
  const states = new Map(raw);
  const task = scenario.tasks.find((candidate) => candidate.id === taskId);
  for (const name of Object.keys(task?.initial_state ?? {})) {
    const shim = shims.get(name);
    if (shim && states.has(name)) states.set(name, (await startOf(scenario, name, shim, { config: configOf(scenario, name), now }, execution, task)).state);
  }
  return states;
}

/** The sidecar of a run; `execution` builds a starting state not built yet on this instance (a resumed run). */
export async function worldSidecar(shims: Registry<Shim>, scenario: Scenario, now: string, units: readonly WorldUnit[], unitsRun: number, execution?: ShimExecution): Promise<Json> {
  const raw = new Map<string, Json>();
  const initial: Record<string, Json> = {};
  for (const name of scenario.enabled_shims ?? []) {
    const shim = shims.get(name);
    if (!shim) continue;
    const start = await startOf(scenario, name, shim, { config: configOf(scenario, name), now }, execution);
    raw.set(name, start.state);
    initial[name] = start.view;
  }
  const finals: Json[] = [];
  for (const unit of units) {
    const identity = { task_id: unit.task_id, ...(unit.variant ? { variant: unit.variant } : {}), ...(unit.trial !== undefined ? { trial: unit.trial } : {}) };
    const states = await unitStart(shims, scenario, unit.task_id, now, raw, execution);
    for (const change of unit.changes) {
      if (!states.has(change.shim)) continue;
      // Shared with the starting state but for what the diff touched: a deep copy of a τ-bench database per
      // change was ~25 s of a 456-unit run's end, with the event loop blocked all along. Nothing mutates these.
      states.set(change.shim, applyStateShared(states.get(change.shim), change.patch as PatchOperation[]) as Json);
    }
    const diff: Record<string, PatchOperation[]> = {};
    for (const [name, state] of states) {
      if (state === raw.get(name)) continue;
      const shim = shims.get(name)!;
      const operations = shim.viewDiff ? shim.viewDiff(raw.get(name)!, state) : stateDiff(initial[name], await viewOf(shim, state));
      if (operations.length) diff[name] = operations;
    }
    finals.push({ ...identity, diff } as unknown as Json);
  }
  return { initial, units: finals, unchanged: Math.max(0, unitsRun - units.length) };
}
