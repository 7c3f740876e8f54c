/**
 * The shim extension point: a world shim is a deterministic, stateful simulator of a system an agent works on
 * (a database, an order book, a payment processor, a mailbox), after the reference implementation's "world
 * shims" and tau-bench's simulated environments. An agent reaches a shim's actions as tools; the engine keeps
 * each run's world (one state per enabled shim) and judges the agent by the calls it made and the state it left.
 *
 * A shim is pure: `call(action, params, state)` returns a result and the next state and touches nothing else,
 * so a run resumed on another instance, replaying the recorded calls, reaches the same world. States are plain
 * JSON (stored with the run, diffed into the trace).
 */
import type { JsonSchema } from './validate.ts';
import { check, validatorOf } from './validate.ts';
import type { FieldError } from './problems.ts';
import { pointerPatternError } from './domain/pointer-patterns.ts';
import type { PatchOperation } from './domain/state-diff.ts';

/** A JSON value as a shim state holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One operation an agent may call, offered to it as a tool named `<shim>.<action>` (or `<shim>__<action>`). */
export interface ShimAction {
  name: string;
  description: string;
  /** JSON Schema (type `object`) of the parameters; calls that do not match are refused before `call`. */
  parameters: JsonSchema;
  /**
   * The shim reads and checks the arguments itself, as the system it reproduces does (AgentDojo's tools take
   * `"10.0"` for a float, as pydantic does, and word their own refusals): the engine offers `parameters` but does
   * not refuse a call that misses them.
   */
  validatesArguments?: boolean;
  /** JSON Schema of a successful result, for documentation and the conformance suite. */
  result?: JsonSchema;
  /** True for actions that change nothing but the shim's `incidental` state (reads, searches). */
  readOnly?: boolean;
  /** Ends the conversation when called successfully (a transfer to a human agent, τ-bench's `transfer_to_human_agents`): no further user turn follows. */
  terminal?: boolean;
  /**
   * Sends data out of the world's trust boundary (mail to another company, a request to an outside API): the
   * engine marks each such call `egress: true` in the trace, and the leak metrics read its arguments as they
   * read an answer. A function decides per call, from the call's parameters and the state and configuration
   * it is made against (mail to the company's own domain stays inside); it must be pure and cheap.
   */
  egress?: boolean | ShimEgress;
}

/** Whether one call of an action sends data out of the world: its parameters, the state before it, the shim's context. */
export type ShimEgress = (params: Record<string, unknown>, state: Json, context: ShimCallContext) => boolean;

/**
 * True when a call of `action` with `params` against `state` sends data out of the world (`ShimAction.egress`).
 * A declaration that throws counts as egress: reading a call too many is safer than missing a leak.
 */
export function isEgress(action: ShimAction, params: Record<string, unknown>, state: Json, context: ShimCallContext): boolean {
  const egress = action.egress;
  if (typeof egress !== 'function') return egress === true;
  try {
    return egress(params, state, context) === true;
  } catch {
    return true;
  }
}

/** Why a call failed, in the shim's own words: agents see it as the tool's error. */
export interface ShimError {
  /** `not_found`, `conflict`, `insufficient_funds`, `permission_denied`, `invalid`, `rate_limited`, … */
  code: string;
  message: string;
}

/** What one call returns: a result or an error, and the state after it (unchanged on error). */
export type ShimOutcome<S extends Json = Json> = { result: Json; state: S } | { error: ShimError; state: S };

/** A predicate of `Shim.checks` (a method's signature, so a shim of a narrower state is still a `Shim`). */
export type ShimCheck<S extends Json = Json> = { check(state: S, args: Record<string, unknown>): boolean }['check'];

/** What a call may know besides its parameters. */
export interface ShimCallContext {
  /** The shim's configuration from the scenario (`shim_config[name]`) or a stored named configuration. */
  config: Record<string, unknown>;
  /** The world's logical clock (ISO 8601), the same for every replay of the run: never the wall clock. */
  now: string;
}

export interface Shim<S extends Json = Json> {
  /** snake_case, unique; the `target` of assertions is `shim:<name>`. */
  name: string;
  description: string;
  actions: ShimAction[];
  /** JSON Schema of the scenario's `initial_state[name]`; refused at submission when it does not match. */
  initialStateSchema?: JsonSchema;
  /** Builds the starting state from the scenario's `initial_state[name]` (`undefined` when it gives none). */
  initialState(seed: unknown, context: ShimCallContext): S | Promise<S>;
  /** Runs one action. Must be deterministic and must not mutate `state`; return a new state object instead. */
  call(action: string, params: Record<string, unknown>, state: S, context: ShimCallContext): ShimOutcome<S> | Promise<ShimOutcome<S>>;
  /**
   * The URL of a module whose default export is this shim (`import.meta.url`): its calls then run in a worker,
   * off the request thread, each under the shim budget (`AEH_SHIM_BUDGET_MS`, 2000 ms); one past it fails with
   * `timeout` and leaves the state as it was. For shims whose calls can run long on what an agent sends (the
   * SQL shim runs the agent's SQL). Without a worker pool (workerd) calls run inline.
   */
  module?: string;
  /**
   * The URL of a module whose default export is this shim, for a shim whose calls are cheap enough to stay on the
   * request thread: a worker may still load it, so its gold solutions (`expected_actions`, replayed on a whole
   * world per task) are replayed in the offload pool under the shim budget. `module` implies it. Without either,
   * gold solutions replay inline, bounded only at submission.
   */
  replayModule?: string;
  /**
   * What assertions with `target: "shim:<name>"` look at (a JSON path is taken from it). Defaults to the state;
   * a shim whose state is an encoding (the SQL shim's tables) shows a readable form.
   */
  view?(state: S): Json | Promise<Json>;
  /**
   * The RFC 6902 diff from `before`'s view to `after`'s, exactly `stateDiff(view(before), view(after))`
   * (core/domain/state-diff.ts), for a shim whose view rebuilds what its states share: world.json holds every
   * unit's final world as such a diff, and a view of 1,000 keyed records is a walk of all of them where the
   * states' own arrays compare by identity. Without it the harness diffs the views.
   */
  viewDiff?(before: S, after: S): PatchOperation[];
  /**
   * The parts of the view that reading touches (a mail's `read` flag, a query log, an access time): RFC 6901
   * pointers relative to the view, a `*` segment for any member or element (`/messages/*` then `/read`). A gold
   * comparison (`expected_actions`) leaves them out, so an agent that reads what the gold solution did not is not
   * failed for it; assertions still see them. The conformance suite holds a `readOnly` action to changing nothing
   * else.
   */
  incidental?: string[];
  /**
   * Named predicates over this shim's state that a task's `world_checks` assert once the conversation is over
   * (τ²-bench's env assertions: `assert_can_send_mms`, `assert_no_overdue_bill`): true when the world is as
   * expected. Pure; one that throws fails its check, with its message.
   */
  checks?: Record<string, ShimCheck<S>>;
  /**
   * Keeps this shim's state in step with the other shims of the same world (τ²-bench's telecom device follows
   * the carrier's line and bills, and a bill its user paid becomes paid at the carrier): the world calls it with
   * every enabled shim's state, by name, when the task starts and after every call that changed a state, and
   * applies the states it returns (its own or another shim's; `undefined`: nothing changes), recording each
   * change. Must be pure, cheap and idempotent (a second call on its own result changes nothing).
   */
  reconcile?(world: Readonly<Record<string, Json>>, context: ShimCallContext): Record<string, Json> | undefined;
}

const SHIM_NAME = /^[a-z][a-z0-9_]{0,39}$/;
const ACTION_NAME = /^[a-z][a-z0-9_]{0,47}$/;

/**
 * Checks a shim definition (names, unique actions, parameter schemas that compile) and returns it frozen.
 * Failing here fails the start with a message naming the shim, like every other extension point.
 */
export function defineShim<S extends Json>(shim: Shim<S>): Shim<S> {
  if (!SHIM_NAME.test(shim.name)) throw new Error(`shim name "${shim.name}" must be snake_case (${SHIM_NAME})`);
  if (!shim.description) throw new Error(`shim "${shim.name}" needs a description`);
  if (!Array.isArray(shim.actions) || shim.actions.length === 0) throw new Error(`shim "${shim.name}" needs at least one action`);
  if (typeof shim.call !== 'function' || typeof shim.initialState !== 'function') throw new Error(`shim "${shim.name}" needs initialState() and call()`);
  const seen = new Set<string>();
  for (const action of shim.actions) {
    if (!ACTION_NAME.test(action.name)) throw new Error(`shim "${shim.name}": action name "${action.name}" must be snake_case (${ACTION_NAME})`);
    if (seen.has(action.name)) throw new Error(`shim "${shim.name}": action "${action.name}" is defined twice`);
    seen.add(action.name);
    if (!action.description) throw new Error(`shim "${shim.name}": action "${action.name}" needs a description`);
    if (action.parameters?.type !== 'object') throw new Error(`shim "${shim.name}": the parameters of "${action.name}" must be a JSON Schema of type "object"`);
    if (action.egress !== undefined && typeof action.egress !== 'boolean' && typeof action.egress !== 'function') throw new Error(`shim "${shim.name}": egress of "${action.name}" must be a boolean or a function (params, state, context) => boolean`);
    compiles(shim.name, action.name, action.parameters);
  }
  if (shim.initialStateSchema) compiles(shim.name, 'initial state', shim.initialStateSchema);
  if (shim.checks !== undefined && (typeof shim.checks !== 'object' || Object.values(shim.checks).some((check) => typeof check !== 'function'))) throw new Error(`shim "${shim.name}": checks must be an object of functions (state, args) => boolean`);
  if (shim.viewDiff !== undefined && typeof shim.viewDiff !== 'function') throw new Error(`shim "${shim.name}": viewDiff must be a function (before, after) => operations`);
  if (shim.reconcile !== undefined && typeof shim.reconcile !== 'function') throw new Error(`shim "${shim.name}": reconcile must be a function (world, context) => states`);
  if (shim.incidental !== undefined && !Array.isArray(shim.incidental)) throw new Error(`shim "${shim.name}": incidental must be a list of JSON Pointers`);
  for (const pointer of shim.incidental ?? []) {
    const problem = typeof pointer !== 'string' ? 'is not a string' : pointer === '' ? 'names the whole view: nothing would be compared' : pointerPatternError(pointer);
    if (problem) throw new Error(`shim "${shim.name}": incidental ${JSON.stringify(pointer)} ${problem}`);
  }
  return Object.freeze({ ...shim, ...(shim.incidental ? { incidental: Object.freeze([...shim.incidental]) as string[] } : {}), actions: Object.freeze(shim.actions.map((action) => Object.freeze({ ...action }))) as ShimAction[] });
}

function compiles(shim: string, what: string, schema: JsonSchema): void {
  try {
    validatorOf(schema);
  } catch (error) {
    // workerd cannot compile at run time (EvalError): its validators are precompiled by the build.
    if (!(error instanceof EvalError)) throw new Error(`shim "${shim}": the schema of ${what} does not compile: ${(error as Error).message}`);
  }
}

/** The action of a shim by name, or `undefined`. */
export function actionOf(shim: Shim, name: string): ShimAction | undefined {
  return shim.actions.find((action) => action.name === name);
}

/** Why a call's parameters do not fit the action's schema; empty when they do. */
export function checkShimParams(action: ShimAction, params: unknown): FieldError[] {
  return check(action.parameters, params ?? {}, '/arguments');
}

/** A failed outcome with the state unchanged. */
export function shimError<S extends Json>(state: S, code: string, message: string): ShimOutcome<S> {
  return { error: { code, message }, state };
}
