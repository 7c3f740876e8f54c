/**
 * The world a task's gold solution produces (τ-bench's way of judging: the final database against the one the
 * gold actions produce): its `expected_actions` replayed, in order, on a fresh copy of the task's initial world,
 * with the run's clock; `[]` is the initial world itself (the right answer changes nothing). A gold action the
 * world refuses makes the scenario unjudgeable, said in words (`state_match` is then unmeasured on it, never
 * guessed). The comparison leaves out what reading touches (each enabled shim's `incidental` state) and the
 * scenario's and task's `ignore_paths`.
 *
 * Gold without matchers is built once per scenario and task: every attempt and turn compares against the same
 * one. Gold with matchers (gold-matchers.ts) takes the matched values from the attempt's own calls, so it is
 * built per attempt; either way its calls run under the run's shim execution (its budget and limiter).
 *
 * Where it runs (issue 33 item 3: one 0.87 MB submission's replays held `/healthz` for 7–15 s): in the offload
 * pool, as the submitter's shim work under the shim budget, when every enabled shim names a module a worker can
 * load (gold-jobs.ts) and it is more than a small replay; past the budget the task's `state_match` is unmeasured,
 * as past the metric budget. Submission bounds tasks × gold actions × world size (gold-replay-limit.ts).
 */
import type { ExpectedAction, Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { Registry } from '../../../core/registry.ts';
import { actionOf, type Shim } from '../../../core/shim.ts';
import { hasGoldMatchers, resolveGoldActions, type AgentCall } from '../../../core/domain/gold-matchers.ts';
import { toolKey } from '../../../core/domain/tool-names.ts';
import { createTaskWorld } from './world.ts';
import { runShimJob, type ShimExecution } from '../../../core/domain/shim-run.ts';
import { OffloadBudgetError } from '../../../core/capabilities.ts';
import { worldBytesOf } from './gold-replay-limit.ts';

/** A gold action no call of the agent met (its index in `expected_actions`, as written). */
export interface UnmatchedAction {
  index: number;
  name: string;
  arguments?: Record<string, unknown>;
}

/** The gold world's views by shim, or why it could not be built; what its comparison leaves out. */
export type GoldWorld = ({ expected: Record<string, unknown>; unmatchedActions?: UnmatchedAction[] } | { expectedError: string }) & { ignoredPaths: string[] };

const built = new WeakMap<Scenario, Map<string, Promise<GoldWorld>>>();

/** What one replay gives: the gold world's views by shim, or why it could not be built. */
export type ReplayResult = { expected: Record<string, unknown> } | { expectedError: string };

/** The gold actions a replay runs, each with its index in `expected_actions` (for the words of a refusal). */
export type IndexedActions = ReadonlyArray<{ index: number; action: ExpectedAction }>;

/** Replays gold actions here (in the worker, gold-jobs.ts; inline without a pool). */
export async function replay(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, actions: IndexedActions, now: string, execution?: ShimExecution): Promise<ReplayResult> {
  // The gold solution may use any tool of the enabled shims, whatever the task offers the agent.
  const world = await createTaskWorld({ shims, scenario, task: { ...task, tools: undefined }, now, record: () => -1, ...(execution ? { execution } : {}) });
  if (!world) return { expectedError: 'expected_actions need a world: the scenario enables no shim' };
  try {
    for (const { index, action } of actions) {
      // A gold action of the simulated user's own world (τ²-bench's user actions) is the user's call.
      const side = !world.has(action.name) && world.user?.has(action.name) ? world.user : world;
      const outcome = await side.call(action.name, action.arguments ?? {});
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
async function replayed(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, actions: IndexedActions, now: string, execution?: ShimExecution): Promise<ReplayResult> {
  const modules = workerModules(shims, scenario);
  const offload = execution?.offload;
  const small = actions.length * worldBytesOf(scenario) <= INLINE_REPLAY_WORK;
  if (!offload || !modules || small) return replay(shims, scenario, task, actions, now, execution);
  // The worker needs the world, not the other tasks.
  const input = { modules, scenario: { ...scenario, tasks: [] }, task, actions, now };
  try {
    return await runShimJob(offload, { module: goldJobsModule(), name: 'replayGold', input, preload: Object.values(modules) }, execution) as ReplayResult;
  } catch (error) {
    if (error instanceof OffloadBudgetError) return { expectedError: `the gold solution did not replay within ${execution.budgetMs} ms (AEH_SHIM_BUDGET_MS): make the task's world or its expected_actions smaller` };
    if ((error as Error)?.name === 'OffloadUnavailable') return replay(shims, scenario, task, actions, now, execution);
    throw error;
  }
}

/**
 * What a gold comparison of `task` leaves out, as pointers rooted at the world: each enabled shim's incidental
 * state (`Shim.incidental` under `/<shim>`), then the scenario's and the task's `ignore_paths`.
 */
export function goldIgnoredPaths(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask): string[] {
  const incidental = (scenario.enabled_shims ?? []).flatMap((name) => (shims.get(name)?.incidental ?? []).map((pointer) => `/${name}${pointer}`));
  return [...incidental, ...(scenario.ignore_paths ?? []), ...(task.ignore_paths ?? [])];
}

/** True for a gold action of a read-only tool: it changes nothing a gold comparison looks at. */
function isRead(shims: Registry<Shim>, name: string): boolean {
  const key = toolKey(name);
  const shim = key ? shims.get(key.shim) : undefined;
  return Boolean(shim && actionOf(shim, key!.action)?.readOnly);
}

/** The gold world of an attempt: matchers met by its calls; a write no call met is left out and reported. */
async function matchedReplay(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, calls: readonly AgentCall[], now: string, execution?: ShimExecution): Promise<GoldWorld> {
  const gold = task.expected_actions ?? [];
  const { actions, unmatched } = resolveGoldActions(gold, calls);
  const left = new Set(unmatched);
  const world = await replayed(shims, scenario, task, actions.map((action, index) => ({ index, action })).filter(({ index }) => !left.has(index)), now, execution);
  // A read no call met changes nothing the comparison sees: only writes the agent did not make are failures.
  const missing = unmatched.filter((index) => !isRead(shims, gold[index].name)).map((index) => ({ index, name: gold[index].name, ...(gold[index].arguments ? { arguments: gold[index].arguments } : {}) }));
  return { ...world, ...('expected' in world && missing.length ? { unmatchedActions: missing } : {}), ignoredPaths: goldIgnoredPaths(shims, scenario, task) };
}

/**
 * The gold world of `task` (its `expected_actions` replayed, matchers met by the attempt's `calls`);
 * `undefined` for a task without `expected_actions` (no gold; `[]` is a gold: nothing changes).
 */
export function goldWorldOf(shims: Registry<Shim>, scenario: Scenario, task: ScenarioTask, now: string, execution?: ShimExecution, calls: readonly AgentCall[] = []): Promise<GoldWorld> | undefined {
  const gold = task.expected_actions;
  if (gold === undefined) return undefined;
  if (hasGoldMatchers(gold)) return matchedReplay(shims, scenario, task, calls, now, execution);
  let byTask = built.get(scenario);
  if (!byTask) built.set(scenario, (byTask = new Map()));
  let world = byTask.get(task.id);
  if (!world) {
    byTask.set(task.id, (world = replayed(shims, scenario, task, gold.map((action, index) => ({ index, action })), now, execution)
      .then((replayed) => ({ ...replayed, ignoredPaths: goldIgnoredPaths(shims, scenario, task) }))));
  }
  return world;
}
