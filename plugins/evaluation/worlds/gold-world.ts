/**
 * The world a task's gold solution produces (τ-bench's way of judging: the final database against the one the
 * gold actions produce): its `expected_actions` replayed, in order, on a fresh copy of the task's initial world,
 * with the run's clock. Built once per scenario and task: every attempt and turn compares against the same one.
 * A gold action the world refuses makes the scenario unjudgeable, said in words (`state_match` is then
 * unmeasured on it, never guessed).
 *
 * Where it runs (issue 33 item 3: one 0.87 MB submission's replays held `/healthz` for 7–15 s): in the offload
 * pool, as the submitter's shim work under the shim budget, when every enabled shim names a module a worker can
 * load (gold-jobs.ts) and it is more than a small replay; past the budget the task's `state_match` is unmeasured,
 * as past the metric budget. Submission bounds tasks × gold actions × world size (gold-replay-limit.ts).
 */
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { Registry } from '../../../core/registry.ts';
import type { Shim } from '../../../core/shim.ts';
import { createTaskWorld } from './world.ts';
import { runShimJob, type ShimExecution } from '../../../core/domain/shim-run.ts';
import { OffloadBudgetError } from '../../../core/capabilities.ts';
import { worldBytesOf } from './gold-replay-limit.ts';

/** The gold world's views by shim, or why it could not be built. */
export type GoldWorld = { expected: Record<string, unknown> } | { expectedError: string };

const built = new WeakMap<Scenario, Map<string, Promise<GoldWorld>>>();

/** Replays a task's gold actions here (in the worker, gold-jobs.ts; inline without a pool). */
export async function replay(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, now: string, execution?: ShimExecution): Promise<GoldWorld> {
  // The gold solution may use any tool of the enabled shims, whatever the task offers the agent.
  const world = await createTaskWorld({ shims, scenario, task: { ...task, tools: undefined }, now, record: () => -1, ...(execution ? { execution } : {}) });
  if (!world) return { expectedError: 'expected_actions need a world: the scenario enables no shim' };
  try {
    for (const [index, action] of (task.expected_actions ?? []).entries()) {
      const outcome = await world.call(action.name, action.arguments ?? {});
      if ('error' in outcome) return { expectedError: `gold action ${index + 1} (${action.name}) was refused by the world: ${outcome.error.code}: ${outcome.error.message}`.slice(0, 500) };
    }
    return { expected: await world.views() };
  } finally {
    world.close();
  }
}

const goldJobsModule = () => new URL(`./gold-jobs.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

/**
 * The module URL of each enabled shim, when a worker can load them all and some shim's calls would run here;
 * otherwise `undefined` (a shim without one replays here; shims whose calls run in the pool already do).
 */
function workerModules(shims: Registry<Shim>, scenario: Scenario): Record<string, string> | undefined {
  const modules: Record<string, string> = {};
  let callsHere = false;
  for (const name of scenario.enabled_shims ?? []) {
    const shim = shims.get(name);
    const url = shim?.module ?? shim?.replayModule;
    if (!url) return undefined;
    callsHere ||= !shim!.module;
    modules[name] = url;
  }
  return callsHere ? modules : undefined;
}

/** Replays at most this much work (gold actions × world bytes) here: less than a worker's round trip costs. */
const INLINE_REPLAY_WORK = 250_000;

/** `replay` in the offload pool as the run's shim work (shim-run.ts) where it can run there, else here. */
async function replayed(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, now: string, execution?: ShimExecution): Promise<GoldWorld> {
  const modules = workerModules(shims, scenario);
  const offload = execution?.offload;
  const small = (task.expected_actions?.length ?? 0) * worldBytesOf(scenario) <= INLINE_REPLAY_WORK;
  if (!offload || !modules || small) return replay(shims, scenario, task, now, execution);
  // The worker needs the world, not the other tasks.
  const input = { modules, scenario: { ...scenario, tasks: [] }, task, now };
  try {
    return await runShimJob(offload, { module: goldJobsModule(), name: 'replayGold', input, preload: Object.values(modules) }, execution) as GoldWorld;
  } catch (error) {
    if (error instanceof OffloadBudgetError) return { expectedError: `the gold solution did not replay within ${execution.budgetMs} ms (AEH_SHIM_BUDGET_MS): make the task's world or its expected_actions smaller` };
    if ((error as Error)?.name === 'OffloadUnavailable') return replay(shims, scenario, task, now, execution);
    throw error;
  }
}

/** The gold world of `task` (its `expected_actions` replayed); `undefined` for a task without them. */
export function goldWorldOf(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, now: string, execution?: ShimExecution): Promise<GoldWorld> | undefined {
  if (!task.expected_actions?.length) return undefined;
  let byTask = built.get(scenario);
  if (!byTask) built.set(scenario, (byTask = new Map()));
  let gold = byTask.get(task.id);
  if (!gold) byTask.set(task.id, (gold = replayed(shims, scenario, task, now, execution)));
  return gold;
}
