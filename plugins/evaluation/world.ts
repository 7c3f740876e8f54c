/**
 * A task's world: one state per shim the scenario enables, built from its `initial_state` when the task starts
 * (every task, every trial and every variant starts from the same world, so tasks stay independent), offered
 * to the agent as tools and changed only through the shims' `call`. Every call is a `tool_call` trace event and
 * every change a `state_change` event carrying the RFC 6902 diff, not the whole state; the initial and final
 * states (as each shim's `view` shows them) go to the run's `world.json` sidecar and to the metrics.
 */
import { applyStateDiff, stateDiff, type PatchOperation } from './state-diff.ts';
import type { Json, Shim, ShimCallContext, ShimOutcome } from '../../core/shim.ts';
import { OffloadBudgetError, type Offload } from '../../core/capabilities.ts';
import { actionOf, checkShimParams, type ShimAction } from '../../core/shim.ts';
import { canonicalToolName, toolKey } from '../../core/domain/tool-names.ts';
import type { Registry } from '../../core/registry.ts';
import type { Scenario, ScenarioTask } from '../../core/domain/scenario.ts';
import type { AgentTool, AgentTools, ToolOutcome } from '../../core/agent-adapter.ts';
import type { FieldError } from '../../core/problems.ts';
import type { WorldUnit } from './run-state.ts';
import { check } from '../../core/validate.ts';

/** Tool calls one task may make at most, whatever the agent asks: a loop must end. */
export const MAX_TOOL_CALLS = 200;
/** What one offloaded shim call may take when the caller names no budget (`AEH_SHIM_BUDGET_MS`'s default). */
const DEFAULT_SHIM_BUDGET_MS = 2000;

const shimWorkerModule = () => new URL(`./shim-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

/** Where and how long shim calls run: the offload pool (absent on workerd) and the budget of one call. */
export interface ShimExecution {
  offload?: Offload;
  budgetMs: number;
  signal?: AbortSignal;
}

/** One shim call: in the pool under the budget when the shim names its module and there is a pool, else inline. */
async function runCall(shim: Shim, action: string, params: Record<string, unknown>, state: Json, context: ShimCallContext, execution: ShimExecution): Promise<ShimOutcome> {
  if (!shim.module || !execution.offload) return shim.call(action, params, state, context);
  try {
    return await execution.offload.run({ module: shimWorkerModule(), name: 'runShimCall', input: { module: shim.module, action, params, state, context }, budgetMs: execution.budgetMs, signal: execution.signal }) as ShimOutcome;
  } catch (error) {
    if (error instanceof OffloadBudgetError) return { error: { code: 'timeout', message: `the call ran past its ${execution.budgetMs} ms budget and was stopped; nothing changed` }, state };
    if ((error as Error)?.name === 'OffloadUnavailable') return shim.call(action, params, state, context);
    throw error;
  }
}

/** What a task's world records: the trace writer of the unit. */
export type WorldRecorder = (type: 'tool_call' | 'state_change', data: Record<string, unknown>) => number;

export interface TaskWorld extends AgentTools {
  /** Each shim's state as its view shows it when the task started. */
  readonly initial: Record<string, Json>;
  /** Each shim's state as its view shows it now. */
  views(): Promise<Record<string, Json>>;
  /** Ends the task's calls: an adapter still running after its deadline can no longer change or record anything. */
  close(): void;
}

/** A shim's configuration in a scenario whose named configurations submission already resolved. */
function configOf(scenario: Scenario, shim: string): Record<string, unknown> {
  const config = scenario.shim_config?.[shim];
  return config && typeof config === 'object' ? config : {};
}

async function viewOf(shim: Shim, state: Json): Promise<Json> {
  return shim.view ? shim.view(state) : state;
}

// A run's tasks all start from the same initial states (shims are deterministic and never mutate a state), so
// each is built once per scenario object rather than once per task: the SQL shim builds and dumps a database.
const starts = new WeakMap<Scenario, Map<string, Promise<{ state: Json; view: Json }>>>();

function startOf(scenario: Scenario, name: string, shim: Shim, context: ShimCallContext): Promise<{ state: Json; view: Json }> {
  let byShim = starts.get(scenario);
  if (!byShim) starts.set(scenario, (byShim = new Map()));
  let start = byShim.get(name);
  if (!start) {
    start = (async () => {
      const state = await shim.initialState(scenario.initial_state?.[name], context);
      return { state, view: await viewOf(shim, state) };
    })();
    // A failure is not kept: the next task tries again (and fails the same way, with its own error).
    start.catch(() => byShim!.delete(name));
    byShim.set(name, start);
  }
  return start;
}

/**
 * Builds a task's world, or `undefined` when the scenario enables no shim. Throws naming the shim when one is
 * not registered or refuses its initial state (submission checks both first, so this means a stale plan).
 */
export async function createTaskWorld(options: { shims: Registry<Shim>; scenario: Scenario; task: ScenarioTask; now: string; record: WorldRecorder; execution?: ShimExecution }): Promise<TaskWorld | undefined> {
  const { shims: registry, scenario, task, now, record } = options;
  const execution = options.execution ?? { budgetMs: DEFAULT_SHIM_BUDGET_MS };
  const names = scenario.enabled_shims ?? [];
  if (names.length === 0) return undefined;
  const shims = new Map<string, Shim>();
  const states = new Map<string, Json>();
  const contexts = new Map<string, ShimCallContext>();
  const initial: Record<string, Json> = {};
  for (const name of names) {
    const shim = registry.get(name);
    if (!shim) throw new Error(`shim "${name}" is not loaded`);
    const context: ShimCallContext = { config: configOf(scenario, name), now };
    shims.set(name, shim);
    contexts.set(name, context);
    const start = await startOf(scenario, name, shim, context);
    states.set(name, start.state);
    initial[name] = start.view;
  }
  const allowed = task.tools?.length ? new Set(task.tools.map(canonicalToolName)) : undefined;
  const list: AgentTool[] = [];
  // Offered tools by canonical name (`shim.action`), for the lookups of every call.
  const offered = new Map<string, { shim: string; action: ShimAction }>();
  for (const [name, shim] of shims) {
    for (const action of shim.actions) {
      const toolName = `${name}.${action.name}`;
      if (allowed && !allowed.has(toolName)) continue;
      list.push({ name: toolName, function_name: `${name}__${action.name}`, description: `${shim.description} ${action.description}`, parameters: action.parameters });
      offered.set(toolName, { shim: name, action });
    }
  }
  let calls = 0;
  let closed = false;

  async function call(name: string, args: unknown): Promise<ToolOutcome> {
    if (closed) return { error: { code: 'closed', message: 'the task is over: its world takes no more calls' } };
    const canonical = canonicalToolName(name);
    const argumentsRecord = (args && typeof args === 'object' && !Array.isArray(args) ? args : {}) as Record<string, unknown>;
    const fail = (code: string, message: string): ToolOutcome => {
      record('tool_call', { name: canonical, arguments: args ?? null, error: { code, message } });
      return { error: { code, message } };
    };
    if (++calls > MAX_TOOL_CALLS) return fail('rate_limited', `more than ${MAX_TOOL_CALLS} tool calls in one task`);
    const tool = offered.get(canonical);
    if (!tool) return fail('not_found', `no tool "${name}" here; tools: ${list.map((item) => item.name).join(', ')}`);
    const invalid = checkShimParams(tool.action, argumentsRecord);
    if (invalid.length) return fail('invalid', `arguments do not match the tool's schema: ${invalid.slice(0, 3).map((error) => `${error.path} ${error.message}`).join('; ')}`);
    const before = states.get(tool.shim)!;
    const outcome = await runCall(shims.get(tool.shim)!, tool.action.name, argumentsRecord, before, contexts.get(tool.shim)!, execution);
    if (closed) return { error: { code: 'closed', message: 'the task is over: its world takes no more calls' } };
    const seq = record('tool_call', { name: canonical, arguments: argumentsRecord as Json, ...('error' in outcome ? { error: outcome.error } : { result: outcome.result }) });
    if (outcome.state !== before) {
      const patch = stateDiff(before, outcome.state);
      if (patch.length) record('state_change', { shim: tool.shim, patch: patch as unknown as Json, tool_call_event: seq });
      states.set(tool.shim, outcome.state);
    }
    return 'error' in outcome ? { error: outcome.error } : { result: outcome.result };
  }

  return {
    list,
    call,
    initial,
    close: () => { closed = true; },
    has: (name) => offered.has(canonicalToolName(name)),
    async views() {
      const views: Record<string, Json> = {};
      for (const [name, shim] of shims) views[name] = await viewOf(shim, states.get(name)!);
      return views;
    },
  };
}

/**
 * Every reason a scenario's world cannot be built, for a 400 at submission: an unknown or disallowed shim
 * (`AEH_ENABLED_SHIMS`), an initial state for a shim that is not enabled or that its schema or the shim
 * refuses (the SQL shim runs the schema's statements), and task tools naming an action no enabled shim has.
 */
export async function worldRefusals(shims: Registry<Shim>, scenario: Scenario, allowed: readonly string[] | undefined, now: string, trusted: readonly string[] = []): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const enabled = scenario.enabled_shims ?? [];
  enabled.forEach((name, index) => {
    if (!shims.get(name)) errors.push({ path: `/enabled_shims/${index}`, message: `unknown shim "${name}"; known: ${shims.names().join(', ') || 'none'}` });
    else if (allowed && !allowed.includes(name) && !trusted.includes(name)) errors.push({ path: `/enabled_shims/${index}`, message: `shim "${name}" is not allowed on this service (AEH_ENABLED_SHIMS: ${allowed.join(', ') || 'none'})` });
  });
  for (const name of Object.keys(scenario.initial_state ?? {})) {
    if (!enabled.includes(name)) errors.push({ path: `/initial_state/${name}`, message: `shim "${name}" is not in enabled_shims` });
  }
  if (errors.length) return errors;
  for (const name of enabled) {
    const shim = shims.get(name)!;
    const seed = scenario.initial_state?.[name];
    if (shim.initialStateSchema && seed !== undefined) {
      const invalid = check(shim.initialStateSchema, seed, `/initial_state/${name}`);
      if (invalid.length) {
        errors.push(...invalid);
        continue;
      }
    }
    try {
      await shim.initialState(seed, { config: configOf(scenario, name), now });
    } catch (error) {
      errors.push({ path: `/initial_state/${name}`, message: `the ${name} shim cannot start from it: ${String((error as Error)?.message ?? error).slice(0, 300)}` });
    }
  }
  scenario.tasks.forEach((task, taskIndex) => {
    for (const field of ['tools', 'required_tools', 'forbidden_tools'] as const) {
      (task[field] ?? []).forEach((tool, toolIndex) => {
        const key = toolKey(tool);
        const shim = key && enabled.includes(key.shim) ? shims.get(key.shim) : undefined;
        if (shim && !actionOf(shim, key!.action)) errors.push({ path: `/tasks/${taskIndex}/${field}/${toolIndex}`, message: `shim "${key!.shim}" has no action "${key!.action}"; actions: ${shim.actions.map((action) => action.name).join(', ')}` });
      });
    }
  });
  return errors;
}

/**
 * The `world.json` sidecar: each enabled shim's initial state (as its view shows it) and, for every unit that
 * changed the world, the final state, rebuilt from the initial state and the unit's recorded diffs; the other
 * units that ran left it as it started (`unchanged`, their count).
 */
export async function worldSidecar(shims: Registry<Shim>, scenario: Scenario, now: string, units: readonly WorldUnit[], unitsRun: number): Promise<Json> {
  const raw = new Map<string, Json>();
  const initial: Record<string, Json> = {};
  for (const name of scenario.enabled_shims ?? []) {
    const shim = shims.get(name);
    if (!shim) continue;
    const start = await startOf(scenario, name, shim, { config: configOf(scenario, name), now });
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

