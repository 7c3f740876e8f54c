/**
 * Every reason a scenario's world cannot be built, for a 400 at submission: an unknown or disallowed shim
 * (`AEH_ENABLED_SHIMS`), an initial state (the scenario's or a task's own) for a shim that is not enabled or that
 * its schema or the shim refuses (the SQL shim runs the schema's statements), user shims that are not enabled,
 * world checks naming a check no such shim has, and task tools naming an action no enabled shim has.
 * Initial states are built as a run builds them (world-start.ts): in the offload pool, under the shim budget.
 */
import type { Shim } from '../../../core/shim.ts';
import { actionOf } from '../../../core/shim.ts';
import { buildShimState, ShimBudgetError, shimBudgetProblem, type ShimExecution } from '../../../core/domain/shim-run.ts';
import { toolKey } from '../../../core/domain/tool-names.ts';
import type { Registry } from '../../../core/registry.ts';
import type { Scenario } from '../../../core/domain/scenario.ts';
import type { FieldError } from '../../../core/problems.ts';
import { check } from '../../../core/validate.ts';
import { configOf, DEFAULT_SHIM_EXECUTION } from '../worlds/world-start.ts';
import { initialStateOf } from '../../../core/domain/injection.ts';

function shimRefusals(shims: Registry<Shim>, enabled: readonly string[], scenario: Scenario, allowed: readonly string[] | undefined, trusted: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  enabled.forEach((name, index) => {
    if (!shims.get(name)) errors.push({ path: `/enabled_shims/${index}`, message: `unknown shim "${name}"; known: ${shims.names().join(', ') || 'none'}` });
    else if (allowed && !allowed.includes(name) && !trusted.includes(name)) errors.push({ path: `/enabled_shims/${index}`, message: `shim "${name}" is not allowed on this service (AEH_ENABLED_SHIMS: ${allowed.join(', ') || 'none'})` });
  });
  for (const name of Object.keys(scenario.initial_state ?? {})) {
    if (!enabled.includes(name)) errors.push({ path: `/initial_state/${name}`, message: `shim "${name}" is not in enabled_shims` });
  }
  (scenario.user_shims ?? []).forEach((name, index) => {
    if (!enabled.includes(name)) errors.push({ path: `/user_shims/${index}`, message: `shim "${name}" is not in enabled_shims` });
  });
  scenario.tasks.forEach((task, taskIndex) => {
    for (const name of Object.keys(task.initial_state ?? {})) {
      if (!enabled.includes(name)) errors.push({ path: `/tasks/${taskIndex}/initial_state/${name}`, message: `shim "${name}" is not in enabled_shims` });
    }
    (task.world_checks ?? []).forEach((check, index) => {
      const shim = enabled.includes(check.shim) ? shims.get(check.shim) : undefined;
      if (!shim) errors.push({ path: `/tasks/${taskIndex}/world_checks/${index}/shim`, message: `shim "${check.shim}" is not in enabled_shims` });
      else if (!shim.checks?.[check.check]) errors.push({ path: `/tasks/${taskIndex}/world_checks/${index}/check`, message: `shim "${check.shim}" has no check "${check.check}"; checks: ${Object.keys(shim.checks ?? {}).join(', ') || 'none'}` });
    });
  });
  return errors;
}

function toolRefusals(shims: Registry<Shim>, enabled: readonly string[], scenario: Scenario): FieldError[] {
  const errors: FieldError[] = [];
  scenario.tasks.forEach((task, taskIndex) => {
    for (const field of ['tools', 'required_tools', 'forbidden_tools'] as const) {
      (task[field] ?? []).forEach((tool, toolIndex) => {
        const key = toolKey(tool);
        const shim = key && enabled.includes(key.shim) ? shims.get(key.shim) : undefined;
        if (shim && !actionOf(shim, key!.action)) errors.push({ path: `/tasks/${taskIndex}/${field}/${toolIndex}`, message: `shim "${key!.shim}" has no action "${key!.action}"; actions: ${shim.actions.map((action) => action.name).join(', ')}` });
      });
    }
  });
  return [...errors, ...bareNameRefusals(shims, enabled, scenario)];
}

/** With `tool_names: "bare"`, tools are offered by action name alone: two enabled shims may not share one. */
function bareNameRefusals(shims: Registry<Shim>, enabled: readonly string[], scenario: Scenario): FieldError[] {
  if (scenario.tool_names !== 'bare') return [];
  const owner = new Map<string, string>();
  const errors: FieldError[] = [];
  for (const name of enabled) {
    for (const action of shims.get(name)?.actions ?? []) {
      const other = owner.get(action.name);
      if (other) errors.push({ path: '/tool_names', message: `"${action.name}" is an action of both ${other} and ${name}: bare tool names would clash; use "prefixed"` });
      else owner.set(action.name, name);
    }
  }
  return errors;
}

/** Why shim `name` cannot start from `seed` (its schema, or the shim's own refusal), under `path`. */
async function seedRefusals(shim: Shim, name: string, seed: unknown, path: string, scenario: Scenario, now: string, execution: ShimExecution): Promise<FieldError[]> {
  if (shim.initialStateSchema && seed !== undefined) {
    const invalid = check(shim.initialStateSchema, seed, `${path}/${name}`);
    if (invalid.length) return invalid;
  }
  try {
    await buildShimState(shim, seed, { config: configOf(scenario, name), now }, execution);
    return [];
  } catch (error) {
    if (error instanceof ShimBudgetError) throw shimBudgetProblem(error, `${path}/${name}`);
    return [{ path: `${path}/${name}`, message: `the ${name} shim cannot start from it: ${String((error as Error)?.message ?? error).slice(0, 300)}` }];
  }
}

/**
 * The field errors of a scenario's world. Throws a 422 `budget_exceeded` problem when an initial state did not
 * build within the budget: the scenario may be valid, it is too costly to run here.
 */
export async function worldRefusals(shims: Registry<Shim>, scenario: Scenario, allowed: readonly string[] | undefined, now: string, trusted: readonly string[] = [], execution: ShimExecution = DEFAULT_SHIM_EXECUTION): Promise<FieldError[]> {
  const enabled = scenario.enabled_shims ?? [];
  const errors = shimRefusals(shims, enabled, scenario, allowed, trusted);
  if (errors.length) return errors;
  for (const name of enabled) errors.push(...await seedRefusals(shims.get(name)!, name, initialStateOf(scenario, name), '/initial_state', scenario, now, execution));
  for (const [taskIndex, task] of scenario.tasks.entries()) {
    for (const [name, seed] of Object.entries(task.initial_state ?? {})) errors.push(...await seedRefusals(shims.get(name)!, name, seed, `/tasks/${taskIndex}/initial_state`, scenario, now, execution));
  }
  return [...errors, ...toolRefusals(shims, enabled, scenario)];
}
