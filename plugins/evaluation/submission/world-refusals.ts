/**
 * Every reason a scenario's world cannot be built, for a 400 at submission: an unknown or disallowed shim
 * (`AEH_ENABLED_SHIMS`), an initial state for a shim that is not enabled or that its schema or the shim
 * refuses (the SQL shim runs the schema's statements), and task tools naming an action no enabled shim has.
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

/**
 * The field errors of a scenario's world. Throws a 422 `budget_exceeded` problem when an initial state did not
 * build within the budget: the scenario may be valid, it is too costly to run here.
 */
export async function worldRefusals(shims: Registry<Shim>, scenario: Scenario, allowed: readonly string[] | undefined, now: string, trusted: readonly string[] = [], execution: ShimExecution = DEFAULT_SHIM_EXECUTION): Promise<FieldError[]> {
  const enabled = scenario.enabled_shims ?? [];
  const errors = shimRefusals(shims, enabled, scenario, allowed, trusted);
  if (errors.length) return errors;
  for (const name of enabled) {
    const shim = shims.get(name)!;
    // Checked as the world starts: its injection vectors rendered.
    const seed = initialStateOf(scenario, name);
    if (shim.initialStateSchema && seed !== undefined) {
      const invalid = check(shim.initialStateSchema, seed, `/initial_state/${name}`);
      if (invalid.length) {
        errors.push(...invalid);
        continue;
      }
    }
    try {
      await buildShimState(shim, seed, { config: configOf(scenario, name), now }, execution);
    } catch (error) {
      if (error instanceof ShimBudgetError) throw shimBudgetProblem(error, `/initial_state/${name}`);
      errors.push({ path: `/initial_state/${name}`, message: `the ${name} shim cannot start from it: ${String((error as Error)?.message ?? error).slice(0, 300)}` });
    }
  }
  return [...errors, ...toolRefusals(shims, enabled, scenario)];
}
