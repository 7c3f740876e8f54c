/**
 * A task's world: one state per shim the scenario enables, built from its `initial_state` when the task starts
 * (every task, every trial and every variant starts from the same world, so tasks stay independent), offered
 * to the agent as tools and changed only through the shims' `call`. Every call is a `tool_call` trace event and
 * every change a `state_change` event carrying the RFC 6902 diff, not the whole state; the initial and final
 * states (as each shim's `view` shows them) go to the run's `world.json` sidecar and to the metrics.
 *
 * Calls are applied one at a time, in the order they arrive (a per-world queue): an MCP client may send five
 * calls at once, and each must see the state the one before it left, as the trace records them. Otherwise
 * five inserts of one key would all succeed against the same starting state, and the trace, world.json and
 * the metrics would each tell a different story.
 */
import { stateDiff } from '../../../core/domain/state-diff.ts';
import type { Json, Shim, ShimCallContext } from '../../../core/shim.ts';
import { checkShimParams, isEgress, type ShimAction } from '../../../core/shim.ts';
import { callShim, type ShimExecution } from '../../../core/domain/shim-run.ts';
import { createLimiter } from '../../../core/keyed-queue.ts';
import { canonicalToolName } from '../../../core/domain/tool-names.ts';
import type { Registry } from '../../../core/registry.ts';
import type { Scenario, ScenarioTask, WorldCheck } from '../../../core/domain/scenario.ts';
import { checkWorld, reconcileWorld, type WorldCheckOutcome } from './world-links.ts';
import type { AgentTool, AgentTools, ToolOutcome } from '../../../core/agent-adapter.ts';
import { configOf, DEFAULT_SHIM_EXECUTION, startOf, viewOf } from './world-start.ts';
import { describeErrors } from '../../../core/validate.ts';
import { argumentsDepthRefusal } from '../../../core/guards/json-depth.ts';
import { createBusyMeter } from './busy-meter.ts';

export { worldRefusals } from '../submission/world-refusals.ts';
export { worldSidecar } from './world-sidecar.ts';

/** Tool calls one task may make at most, whatever the agent asks: a loop must end. */
export const MAX_TOOL_CALLS = 200;
/** What a task's world records: the trace writer of the unit. */
export type WorldRecorder = (type: 'tool_call' | 'state_change', data: Record<string, unknown>) => number;

export interface TaskWorld extends AgentTools {
  /** Each shim's state as its view shows it when the task started. */
  readonly initial: Record<string, Json>;
  /** Each shim's state as its view shows it now. */
  views(): Promise<Record<string, Json>>;
  /** Ends the task's calls: an adapter still running after its deadline can no longer change or record anything. */
  close(): void;
  /** What the scenario tells the agent (its `instructions`): the MCP server's instructions too. */
  readonly instructions?: string;
  /** The simulated user's tools (the scenario's `user_shims`), when there are any: its calls are recorded as the user's. */
  readonly user?: AgentTools;
  /** One of the task's `world_checks` on the world as it now stands. */
  check(check: WorldCheck): WorldCheckOutcome;
  /** Wall-clock milliseconds the world spent on the agent's calls so far (busy-meter.ts). */
  busyMs(): number;
}

/**
 * The tools a task offers one side (the agent, or the simulated user: the scenario's `user_shims`), by canonical name (`shim.action`) for the lookups of every call. With
 * `tool_names: "bare"` each is offered by its action's name and description alone (a benchmark's own), which `canonicalOf`
 * maps back; the trace and the scenario keep `shim.action` (submission refuses two shims sharing an action name).
 */
function offeredTools(shims: Map<string, Shim>, scenario: Scenario, task: ScenarioTask, side: 'agent' | 'user') {
  const allowed = side === 'agent' && task.tools?.length ? new Set(task.tools.map(canonicalToolName)) : undefined;
  const userShims = new Set(scenario.user_shims ?? []);
  const list: AgentTool[] = [];
  const offered = new Map<string, { shim: string; action: ShimAction }>();
  const bare = scenario.tool_names === 'bare';
  const aliases = new Map<string, string>();
  for (const [name, shim] of shims) {
    // The simulated user's own world is never the agent's, nor the agent's world the user's.
    if (userShims.has(name) !== (side === 'user')) continue;
    for (const action of shim.actions) {
      const toolName = `${name}.${action.name}`;
      if (allowed && !allowed.has(toolName)) continue;
      // A benchmark's own names come with its own descriptions: the agent reads the tool as the benchmark wrote it.
      list.push({ name: bare ? action.name : toolName, function_name: bare ? action.name : `${name}__${action.name}`, description: bare ? action.description : `${shim.description} ${action.description}`, parameters: action.parameters });
      offered.set(toolName, { shim: name, action });
      if (bare) aliases.set(action.name, toolName);
    }
  }
  return { list, offered, canonicalOf: (name: string) => aliases.get(name) ?? canonicalToolName(name) };
}

/**
 * Builds a task's world, or `undefined` when the scenario enables no shim. Throws naming the shim when one is
 * not registered or refuses its initial state (submission checks both first, so this means a stale plan), and
 * `ShimBudgetError` when a starting state did not build within the budget.
 */
export async function createTaskWorld(options: { shims: Registry<Shim>; scenario: Scenario; task: ScenarioTask; now: string; record: WorldRecorder; execution?: ShimExecution }): Promise<TaskWorld | undefined> {
  const { shims: registry, scenario, task, now, record } = options;
  const execution = options.execution ?? DEFAULT_SHIM_EXECUTION;
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
    const start = await startOf(scenario, name, shim, context, execution, task);
    states.set(name, start.state);
    initial[name] = start.view;
  }
  // The shims that keep in step with others do so from the start (a task's starting states are usually so already).
  for (const name of reconcileWorld(shims, states, contexts)) initial[name] = await viewOf(shims.get(name)!, states.get(name)!);
  const agent = offeredTools(shims, scenario, task, 'agent');
  const user = offeredTools(shims, scenario, task, 'user');
  let calls = 0;
  let closed = false;
  const closedOutcome: ToolOutcome = { error: { code: 'closed', message: 'the task is over: its world takes no more calls' } };
  const oneAtATime = createLimiter(1);
  const busy = createBusyMeter(); // from a call's arrival, its wait for the world's turn included: the harness's time

  /** Applies one call of `side` to the world as it now stands, and records it (a user's call says so). */
  async function apply(side: typeof agent, name: string, args: unknown): Promise<ToolOutcome> {
    if (closed) return closedOutcome;
    const canonical = side.canonicalOf(name);
    const requestor = side === user ? { requestor: 'user' } : {};
    const argumentsRecord = (args && typeof args === 'object' && !Array.isArray(args) ? args : {}) as Record<string, unknown>;
    const fail = (code: string, message: string): ToolOutcome => {
      record('tool_call', { name: canonical, arguments: args ?? null, error: { code, message }, ...requestor });
      return { error: { code, message } };
    };
    if (++calls > MAX_TOOL_CALLS) return fail('rate_limited', `more than ${MAX_TOOL_CALLS} tool calls in one task`);
    // Nested past what a call can mean (an agent's 20,000 levels, pruned as it was read): the agent's failed call.
    const tooDeep = argumentsDepthRefusal(args);
    if (tooDeep) return fail('invalid', tooDeep);
    const tool = side.offered.get(canonical);
    if (!tool) return fail('not_found', `no tool "${name}" here; tools: ${side.list.map((item) => item.name).join(', ')}`);
    const invalid = tool.action.validatesArguments ? [] : checkShimParams(tool.action, argumentsRecord);
    if (invalid.length) return fail('invalid', `arguments do not match the tool's schema: ${describeErrors(invalid)}`);
    const before = states.get(tool.shim)!;
    const context = contexts.get(tool.shim)!;
    // Decided on the state the call was made against; a refused call is marked too: its data was sent off, the
    // world's own guard stopping it is no credit to the agent.
    const egress = tool.action.egress !== undefined && isEgress(tool.action, argumentsRecord, before, context);
    const outcome = await callShim(shims.get(tool.shim)!, tool.action.name, argumentsRecord, before, context, execution);
    if (closed) return closedOutcome;
    const seq = record('tool_call', { name: canonical, arguments: argumentsRecord as Json, ...('error' in outcome ? { error: outcome.error } : { result: outcome.result }), ...(egress ? { egress: true } : {}), ...requestor });
    if (outcome.state !== before) {
      const patch = stateDiff(before, outcome.state);
      if (patch.length) record('state_change', { shim: tool.shim, patch: patch as unknown as Json, tool_call_event: seq });
      states.set(tool.shim, outcome.state);
      reconcileWorld(shims, states, contexts, (shim, patch) => record('state_change', { shim, patch: patch as unknown as Json, tool_call_event: seq, reconciled: true }));
    }
    return 'error' in outcome ? { error: outcome.error } : { result: outcome.result };
  }

  return {
    list: agent.list,
    call: (name, args) => busy.during(() => oneAtATime(() => apply(agent, name, args))), busyMs: busy.busyMs,
    ...(user.list.length ? { user: { list: user.list, call: (name: string, args: unknown) => oneAtATime(() => apply(user, name, args)), has: (name: string) => user.offered.has(user.canonicalOf(name)) } } : {}),
    initial,
    ...(scenario.instructions ? { instructions: scenario.instructions } : {}),
    close: () => { closed = true; },
    has: (name) => agent.offered.has(agent.canonicalOf(name)),
    async views() {
      const views: Record<string, Json> = {};
      for (const [name, shim] of shims) views[name] = await viewOf(shim, states.get(name)!);
      return views;
    },
    check: (check) => checkWorld(shims, states, check),
  };
}
