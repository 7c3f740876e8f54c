/**
 * Replays a τ²-bench telecom task on both worlds, as the harness's world runs it: its initialization actions
 * (telecom-sync.ts), then each gold action on the requestor's shim (`tau_telecom` for the assistant,
 * `tau_telecom_user` for the user: parameters checked against the action's schema, then the shim's pure call),
 * each followed by the worlds' `reconcile`, then its env assertions through the shims' `checks`. What the fidelity
 * check (bench/tau/fidelity.mjs --dual) compares with the reference's Python, and its fixture test without it.
 */
import { actionOf, checkShimParams, type Json, type Shim } from '../../../core/shim.ts';
import { canonicalDb, dbHash } from './shared.ts';
import type { TelecomDb } from './telecom.ts';
import type { TelecomUserDb } from './telecom-device.ts';
import { initializeTelecomWorlds, type TelecomInitCall } from './telecom-sync.ts';

/** A telecom task as tasks.json holds it (what the replay reads of it). */
export interface TelecomTaskLike {
  initial_state?: { initialization_actions?: TelecomInitCall[] | null } | null;
  evaluation_criteria?: {
    actions?: Array<{ name: string; arguments?: Record<string, unknown>; requestor?: string }> | null;
    env_assertions?: Array<{ env_type: string; func_name: string; arguments?: Record<string, unknown>; assert_value?: boolean }> | null;
  } | null;
}

/** Both worlds' hashes (`dbHash` of each shim's view). */
export interface WorldHashes { agent: string; user: string }

/** What one task's replay gave: hashes after initialization and after the gold, each action's outcome, each assertion's result. */
export interface TelecomReplay {
  init: WorldHashes;
  /** The user's world after initialization (what the converter ships as the task's starting device). */
  userDb: TelecomUserDb;
  /** `ok <canonical JSON of what the caller is shown>`, or `error: <message>`. */
  actions: string[];
  live: WorldHashes;
  assertions: boolean[];
}

const CONTEXT = { config: {}, now: '2025-02-25T00:00:00Z' };

/**
 * Replays `task` from `agentDb` (the carrier's database as published) with the two shims; `user` is
 * `tau_telecom_user`, whose `reconcile` keeps them in step.
 */
export async function replayTelecomTask(agentShim: Shim, userShim: Shim, agentDb: TelecomDb, task: TelecomTaskLike): Promise<TelecomReplay> {
  const start = initializeTelecomWorlds(agentDb, task.initial_state?.initialization_actions ?? []);
  const states: Record<string, Json> = { tau_telecom: start.agent, tau_telecom_user: start.user };
  const shims: Record<string, Shim> = { tau_telecom: agentShim, tau_telecom_user: userShim };
  const hashes = async (): Promise<WorldHashes> => ({ agent: dbHash(await agentShim.view!(states.tau_telecom)), user: dbHash(await userShim.view!(states.tau_telecom_user)) });
  const init = await hashes();
  const actions: string[] = [];
  for (const gold of task.evaluation_criteria?.actions ?? []) {
    const name = gold.requestor === 'user' ? 'tau_telecom_user' : 'tau_telecom';
    const action = actionOf(shims[name], gold.name);
    const problems = action ? checkShimParams(action, gold.arguments ?? {}) : [];
    if (!action || problems.length) {
      actions.push(action ? `error: invalid arguments ${problems.map((problem) => `${problem.path} ${problem.message}`).join('; ')}` : `error: Tool '${gold.name}' not found.`);
      continue;
    }
    const outcome = await shims[name].call(gold.name, gold.arguments ?? {}, states[name], CONTEXT);
    if ('error' in outcome) {
      actions.push(`error: ${outcome.error.message}`);
      continue;
    }
    actions.push(`ok ${canonicalDb(outcome.result)}`);
    states[name] = outcome.state;
    Object.assign(states, userShim.reconcile?.(states, CONTEXT) ?? {});
  }
  const live = await hashes();
  const assertions = (task.evaluation_criteria?.env_assertions ?? []).map((assertion) => {
    const name = assertion.env_type === 'user' ? 'tau_telecom_user' : 'tau_telecom';
    try {
      return shims[name].checks![assertion.func_name](states[name], assertion.arguments ?? {}) === (assertion.assert_value ?? true);
    } catch {
      return false;
    }
  });
  return { init, userDb: start.user, actions, live, assertions };
}
