/**
 * Published τ-bench v1 trajectories judged again by the harness (issue 34 item 4). τ-bench v1 published its
 * runs (`historical_trajectories/gpt-4o-airline.json` in sierra-research/tau-bench: 50 airline tasks × 4
 * trials, each conversation and the reward it got). Each trajectory becomes one task of a scenario and one
 * recorded answer for the `replay` agent: its tool calls, replayed in order on the task's world, and the agent's
 * messages as its answer; the task's gold actions and required outputs (v1's `tasks_test.py`) judge it as v1's
 * `Env.calculate_reward` does (tau_bench/envs/base.py): the final database equals the gold's, and every
 * `outputs` string appears in one of the agent's messages.
 *
 * What v1 replays: its tool-calling agent runs only the first tool call of a message, and a message with tool
 * calls says nothing to the user (`message_to_action`), so the published messages hold one call each and the
 * agent's words are the messages without calls. A trajectory the run cut at its 30 steps (`max_num_steps`)
 * was never judged (`reward_info` null) and is recorded as 0 whatever the database: `judged` says which.
 */
import type { Json, Shim } from '../../../core/shim.ts';
import type { Scenario, ScenarioTask } from '../../../core/domain/scenario.ts';
import { tauTask } from './tasks.ts';

/** A v1 task as `tasks_test.py` declares it (its `Task` model). */
export interface V1Task {
  user_id: string;
  actions: Array<{ name: string; kwargs: Record<string, unknown> }>;
  instruction: string;
  outputs: string[];
}

/** A published trajectory reduced to what its reward depends on. */
export interface V1Trajectory {
  task_id: number;
  trial: number;
  /** The reward v1 recorded. */
  reward: number;
  /** False when v1 never judged it (cut at the run's step limit: `reward_info` null, reward 0). */
  judged: boolean;
  /** Each tool call in order: its name and its arguments as the model wrote them (JSON text). */
  calls: Array<[string, string]>;
  /** What the agent said to the user, in order. */
  messages: string[];
}

interface PublishedMessage { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string; arguments: string } }> | null }

/** One published trajectory (an element of v1's `historical_trajectories/*.json`) reduced to its record. */
export function v1TrajectoryOf(published: { task_id: number; trial: number; reward: number; info?: { reward_info?: unknown }; traj: PublishedMessage[] }): V1Trajectory {
  const calls: Array<[string, string]> = [];
  const messages: string[] = [];
  for (const message of published.traj) {
    if (message.role !== 'assistant') continue;
    // v1's agent runs the first call of a message and keeps only that one (tool_calling_agent.py).
    const call = message.tool_calls?.[0]?.function;
    if (call) calls.push([call.name, call.arguments]);
    else if (typeof message.content === 'string') messages.push(message.content);
  }
  return { task_id: published.task_id, trial: published.trial, reward: published.reward, judged: published.info?.reward_info != null, calls, messages };
}

/** The scenario task id of a trajectory. */
export const trajectoryTaskId = (trajectory: Pick<V1Trajectory, 'task_id' | 'trial'>) => `task_${trajectory.task_id}_trial_${trajectory.trial}`;

/** What `v1ReplayScenario` built. */
export interface V1Replay {
  /** One task per trajectory, judged by its task's gold database and required outputs; no agent set. */
  tasks: ScenarioTask[];
  /** The recording the `replay` agent reads (JSON lines): per task, its answer then its calls. */
  recording: string;
}

/**
 * The trajectories as scenario tasks of `shim`'s world (`db`, v1's database) and the recording that replays them.
 * A task's gold is converted as `aeh bench tau` converts the release's (tasks.ts: basis DB and COMMUNICATE, the
 * gold actions the tools refuse left out); there is no simulated user: the recording holds the conversation.
 * The answer is the agent's messages joined by blank lines (a required output is a number: it cannot span two).
 */
export async function v1ReplayScenario(trajectories: readonly V1Trajectory[], tasks: readonly V1Task[], shim: Shim, db: Json): Promise<V1Replay> {
  const gold = new Map<number, ScenarioTask>();
  const lines: string[] = [];
  const built: ScenarioTask[] = [];
  for (const trajectory of trajectories) {
    const task = tasks[trajectory.task_id];
    if (!task) throw new Error(`τ-bench v1 trajectory of task ${trajectory.task_id}: no such task`);
    if (!gold.has(trajectory.task_id)) {
      const criteria = { actions: task.actions.map((action) => ({ name: action.name, arguments: action.kwargs })), communicate_info: task.outputs, reward_basis: ['DB', 'COMMUNICATE'] };
      gold.set(trajectory.task_id, await tauTask({ id: String(trajectory.task_id), user_scenario: { instructions: task.instruction }, evaluation_criteria: criteria }, shim, db, 'airline'));
    }
    const { user_simulator: _user, provenance: { user_simulator: _imported, ...provenance } = {}, ...converted } = gold.get(trajectory.task_id)!;
    const id = trajectoryTaskId(trajectory);
    built.push({ ...converted, id, input: `τ-bench v1 airline task ${trajectory.task_id}, trial ${trajectory.trial} (replayed)`, metrics: [{ id: 'state_match' }], provenance });
    lines.push(JSON.stringify({ type: 'agent_output', task_id: id, data: { output: trajectory.messages.join('\n\n') } }));
    for (const [name, text] of trajectory.calls) lines.push(JSON.stringify({ type: 'tool_call', task_id: id, data: { name: `${shim.name}.${name}`, arguments: JSON.parse(text) } }));
  }
  return { tasks: built, recording: `${lines.join('\n')}\n` };
}

/** The scenario replaying the trajectories with the `replay` agent reading `tracePath` (through the file jail). */
export function v1ReplayOf(replay: V1Replay, shim: Shim, tracePath: string): Scenario {
  return {
    id: 'tau-bench-v1-airline-trajectories',
    title: `τ-bench v1 airline: ${replay.tasks.length} published trajectories replayed`,
    description: "τ-bench v1's published trajectories, each one's tool calls replayed on the world and judged as v1's calculate_reward judges them (the gold database and the required outputs).",
    industry: 'travel',
    use_case: 'customer_service',
    tags: ['tau-bench', 'airline', 'v1', 'trajectories'],
    policy_ref: 'τ-bench v1 59a200c tau_bench/envs/airline/wiki.md',
    source: 'τ-bench v1 59a200c historical_trajectories',
    agent: { adapter: 'replay', trace_path: tracePath },
    topology: [],
    conversation: 'per_task',
    tool_names: 'bare',
    enabled_shims: [shim.name],
    tasks: replay.tasks,
  };
}

/** A trajectory whose reward the harness did not reproduce, and why. */
export interface RewardDifference {
  task_id: string;
  recorded: number;
  reproduced: number;
  cause: string;
}

/** How the harness's rewards compare with the recorded ones. */
export interface Reproduction {
  total: number;
  reproduced: number;
  recordedAverage: number;
  reproducedAverage: number;
  differences: RewardDifference[];
}

/**
 * Compares each trajectory's recorded reward with the harness's (`rewards`: 1 or 0 by scenario task id, with
 * the failure that made a 0, `why`). A difference on a trajectory v1 never judged says so: it was cut at v1's
 * step limit and recorded 0 whatever it did.
 */
export function compareRewards(trajectories: readonly V1Trajectory[], rewards: ReadonlyMap<string, { reward: number; why?: string }>): Reproduction {
  const differences: RewardDifference[] = [];
  let recordedSum = 0;
  let reproducedSum = 0;
  for (const trajectory of trajectories) {
    const id = trajectoryTaskId(trajectory);
    const ours = rewards.get(id);
    const reproduced = ours?.reward ?? 0;
    recordedSum += trajectory.reward;
    reproducedSum += reproduced;
    if (reproduced === trajectory.reward) continue;
    const cause = !ours ? 'the harness scored nothing for it'
      : !trajectory.judged ? `v1 never judged it: its run cut the conversation at the agent's 30 steps (max_num_steps) and recorded 0 (reward_info null); replayed, its ${trajectory.calls.length} calls ${reproduced === 1 ? 'leave the gold database' : `fail: ${ours.why}`}`
      : reproduced === 1 ? 'the harness passed what v1 failed' : `the harness failed what v1 passed: ${ours.why}`;
    differences.push({ task_id: id, recorded: trajectory.reward, reproduced, cause });
  }
  const total = trajectories.length;
  return { total, reproduced: total - differences.length, recordedAverage: recordedSum / total, reproducedAverage: reproducedSum / total, differences };
}

/**
 * Each task's reward from a run's trace: 1 when `state_match` scored 1 (the gold database and every required
 * output), else 0 with the first failure's message and the database paths that differ (`why`).
 */
export function rewardsOfTrace(trace: ReadonlyArray<{ type: string; task_id?: string | null; data?: Record<string, unknown> }>): Map<string, { reward: number; why?: string }> {
  const rewards = new Map<string, { reward: number; why?: string }>();
  for (const event of trace) {
    if (event.type !== 'metric_result' || event.data?.metric !== 'state_match' || !event.task_id) continue;
    if (event.data.score === 1) {
      rewards.set(event.task_id, { reward: 1 });
      continue;
    }
    const failures = (event.data.failures ?? []) as Array<{ message: string; evidence?: { differences?: Array<{ path: string }> } }>;
    const paths = failures.flatMap((failure) => failure.evidence?.differences?.map((difference) => difference.path) ?? []);
    const why = [failures[0]?.message ?? `state_match scored ${String(event.data.score)}`, ...(paths.length ? [`(${paths.slice(0, 4).join(', ')}${paths.length > 4 ? ', …' : ''})`] : [])].join(' ');
    rewards.set(event.task_id, { reward: 0, why });
  }
  return rewards;
}
