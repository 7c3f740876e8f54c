/**
 * What a world does across its shims: keeping shims in step with each other (`Shim.reconcile`: τ²-bench's telecom
 * device follows the carrier's line, and a bill its user paid is paid at the carrier) and asserting a task's
 * `world_checks` by the shims' named predicates (`Shim.checks`: τ²-bench's env assertions).
 */
import type { Json, Shim, ShimCallContext } from '../../../core/shim.ts';
import { stateDiff, type PatchOperation } from '../../../core/domain/state-diff.ts';
import type { ScenarioTask, WorldCheck } from '../../../core/domain/scenario.ts';

/** How one world check came out: `passed` null when it could not be run (no such shim or check). */
export interface WorldCheckOutcome {
  passed: boolean | null;
  detail: string;
}

/**
 * Runs every enabled shim's `reconcile` on the world's states (in place) and returns the names of the shims
 * whose state it replaced; `changed` hears each replacement's diff. A reconcile that throws changes nothing:
 * the call that led to it stands, as the reference's sync failing leaves the world as the call left it.
 */
export function reconcileWorld(shims: ReadonlyMap<string, Shim>, states: Map<string, Json>, contexts: ReadonlyMap<string, ShimCallContext>, changed?: (shim: string, patch: PatchOperation[]) => void): string[] {
  const replaced: string[] = [];
  for (const [name, shim] of shims) {
    if (!shim.reconcile) continue;
    let next: Record<string, Json> | undefined;
    try {
      next = shim.reconcile(Object.fromEntries(states), contexts.get(name)!);
    } catch {
      continue;
    }
    for (const [target, state] of Object.entries(next ?? {})) {
      const before = states.get(target);
      if (before === undefined || before === state) continue;
      states.set(target, state);
      replaced.push(target);
      if (changed) {
        const patch = stateDiff(before, state);
        if (patch.length) changed(target, patch);
      }
    }
  }
  return replaced;
}

/** One world check on the states as they stand: the shim's predicate against `expected` (default true). */
export function checkWorld(shims: ReadonlyMap<string, Shim>, states: ReadonlyMap<string, Json>, check: WorldCheck): WorldCheckOutcome {
  const predicate = shims.get(check.shim)?.checks?.[check.check];
  if (!predicate) return { passed: null, detail: `${check.shim} has no check "${check.check}" in this world` };
  const expected = check.expected ?? true;
  try {
    const result = predicate(states.get(check.shim)!, check.arguments ?? {});
    return { passed: result === expected, detail: `${check.shim}.${check.check}(${JSON.stringify(check.arguments ?? {})}) is ${result}, expected ${expected}` };
  } catch (error) {
    return { passed: false, detail: `${check.shim}.${check.check}(${JSON.stringify(check.arguments ?? {})}) failed: ${String((error as Error)?.message ?? error).slice(0, 300)}` };
  }
}

/** Records each of the task's `world_checks` on the final world as a `world_check` event (state_match scores them). */
export function recordWorldChecks(world: { check(check: WorldCheck): WorldCheckOutcome }, task: ScenarioTask, record: (type: 'world_check', data: Record<string, unknown>) => number): void {
  for (const check of task.world_checks ?? []) {
    const outcome = world.check(check);
    record('world_check', { check: check as unknown as Record<string, unknown>, passed: outcome.passed, detail: outcome.detail });
  }
}
