/**
 * The `world.json` sidecar: each enabled shim's initial state (as its view shows it) and, for every unit that
 * changed the world, the final state, rebuilt from the initial state and the unit's recorded diffs; the other
 * units that ran left it as it started (`unchanged`, their count).
 */
import { applyStateDiff, type PatchOperation } from '../../../core/domain/state-diff.ts';
import type { Json, Shim } from '../../../core/shim.ts';
import type { ShimExecution } from '../../../core/domain/shim-run.ts';
import type { Registry } from '../../../core/registry.ts';
import type { Scenario } from '../../../core/domain/scenario.ts';
import type { WorldUnit } from '../running/run-state.ts';
import { configOf, startOf, viewOf } from './world-start.ts';

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
    const states = new Map(raw);
    for (const change of unit.changes) {
      if (!states.has(change.shim)) continue;
      states.set(change.shim, applyStateDiff(states.get(change.shim), change.patch as PatchOperation[]) as Json);
    }
    const final: Record<string, Json> = {};
    for (const [name, state] of states) final[name] = await viewOf(shims.get(name)!, state);
    finals.push({ ...identity, final });
  }
  return { initial, units: finals, unchanged: Math.max(0, unitsRun - units.length) };
}
