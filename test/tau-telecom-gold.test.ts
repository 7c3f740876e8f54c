/**
 * Issue 34 item 3: the scenario `aeh bench tau --domain telecom` runs is the whole base split, and its gold
 * covers both sides of dual control. Each of the 114 base tasks, as the converter writes it (its own starting
 * worlds, its env assertions as world_checks, its ACTION checks), is played in the engine's task world: the
 * user's gold actions by the simulated user's tools (`world.user`, never the agent's), the agent's by the agent's,
 * in τ-bench's order. Every task then passes its world checks and ACTION checks, and none does when either side
 * leaves its part undone. No Python, no model: the release's shipped data.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BUNDLED_TAU_DIR } from '../cli/commands/bench.ts';
import { createRegistry } from '../core/registry.ts';
import type { Scenario, ScenarioTask } from '../core/domain/scenario.ts';
import type { Shim } from '../core/shim.ts';
import { createTaskWorld } from '../plugins/evaluation/worlds/world.ts';
import { tauDbLoader, tauScenario, tauTelecomShim, tauTelecomUserShim } from '../plugins/shims/tau/index.ts';
import { scenarioTaskId } from '../plugins/shims/tau/tasks.ts';

const files = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };
const data = { dir: BUNDLED_TAU_DIR, files };
type Gold = { name: string; arguments: Record<string, unknown>; requestor: 'user' | 'assistant' };
const TASKS = JSON.parse(gunzipSync(readFileSync(join(BUNDLED_TAU_DIR, 'telecom', 'tasks.json.gz'))).toString()) as Array<{ id: string; evaluation_criteria: { actions: Gold[] | null } }>;
const SPLITS = JSON.parse(gunzipSync(readFileSync(join(BUNDLED_TAU_DIR, 'telecom', 'split_tasks.json.gz'))).toString()) as { base: string[] };
const goldById = new Map(TASKS.map((task) => [scenarioTaskId(task.id), task.evaluation_criteria.actions ?? []]));

const shims = createRegistry<Shim>('shim', (shim) => shim.name);
shims.register(tauTelecomShim(tauDbLoader(data)) as unknown as Shim);
shims.register(tauTelecomUserShim() as unknown as Shim);

/** Plays the task's gold of the sides in `play` in the engine's world; the world checks' results and the calls made. */
async function play(scenario: Scenario, task: ScenarioTask, sides: ReadonlySet<Gold['requestor']>) {
  const calls: Array<{ name: string; arguments: Record<string, unknown>; requestor: string; failed: boolean }> = [];
  const world = (await createTaskWorld({ shims, scenario, task, now: '2025-02-25T00:00:00.000Z', record: () => 0 }))!;
  for (const action of goldById.get(task.id)!) {
    if (!sides.has(action.requestor)) continue;
    // τ-bench's own tool names, as both sides are offered them (tool_names: "bare").
    const outcome = action.requestor === 'user' ? await world.user!.call(action.name, action.arguments) : await world.call(action.name, action.arguments);
    calls.push({ name: `${action.requestor === 'user' ? 'tau_telecom_user' : 'tau_telecom'}.${action.name}`, arguments: action.arguments, requestor: action.requestor, failed: 'error' in outcome });
  }
  const actions = actionChecksOf(task).map((check) => calls.some((call) => call.name === check.where.name && Object.entries(check.where.arguments).every(([key, value]) => JSON.stringify(call.arguments[key]) === JSON.stringify(value))));
  return { calls, checks: (task.world_checks ?? []).map((check) => world.check(check)), actions };
}
/** The task's ACTION checks (τ²-bench's: each gold action among the calls made, on its compared arguments). */
const actionChecksOf = (task: ScenarioTask) => (task.expected_outcome ?? []).filter((check) => check.target === 'tool_calls') as unknown as Array<{ where: { name: string; arguments: Record<string, unknown> } }>;
/** τ²-bench's reward on this basis: every env assertion holds and every ACTION check is met. */
const passes = ({ checks, actions }: { checks: Array<{ passed: boolean | null }>; actions: boolean[] }) => checks.length > 0 && checks.every((check) => check.passed === true) && actions.every(Boolean);

describe('τ-bench telecom, the base split as aeh bench tau runs it (issue 34 item 3)', async () => {
  const { scenario } = await tauScenario('telecom', data);

  it("is the base split's 114 tasks, each from its own worlds, judged on its env assertions over both worlds", () => {
    expect(scenario.id).toBe('tau-bench-telecom-base');
    expect(scenario.tasks.map((task) => task.id)).toEqual(SPLITS.base.map(scenarioTaskId));
    expect(scenario).toMatchObject({ enabled_shims: ['tau_telecom', 'tau_telecom_user'], user_shims: ['tau_telecom_user'] });
    for (const task of scenario.tasks) {
      expect(Object.keys(task.initial_state ?? {}).sort()).toEqual(['tau_telecom', 'tau_telecom_user']);
      expect(task.world_checks?.length).toBeGreaterThan(0);
    }
    const checked = new Set(scenario.tasks.flatMap((task) => task.world_checks!.map((check) => check.shim)));
    expect([...checked].sort()).toEqual(['tau_telecom', 'tau_telecom_user']);
    // The 20 tasks judged on ACTION too are those only a human can help with: the agent's transfer must be made.
    const actionChecks = scenario.tasks.flatMap((task) => actionChecksOf(task));
    expect(actionChecks).toHaveLength(20);
    expect(new Set(actionChecks.map((check) => JSON.stringify(check.where)))).toEqual(new Set([JSON.stringify({ name: 'tau_telecom.transfer_to_human_agents', arguments: {} })]));
  });

  it("every task passes when both sides play their gold, the user's on its own tools and the agent's on its own", async () => {
    const failing: string[] = [];
    let userCalls = 0;
    let agentCalls = 0;
    for (const task of scenario.tasks) {
      const played = await play(scenario, task, new Set(['user', 'assistant']));
      const { calls, checks } = played;
      userCalls += calls.filter((call) => call.requestor === 'user').length;
      agentCalls += calls.filter((call) => call.requestor === 'assistant').length;
      if (!passes(played)) failing.push(`${task.id}: ${checks.filter((check) => check.passed !== true).map((check) => check.detail).join('; ')}`);
    }
    expect(failing).toEqual([]);
    // All of the base split's gold: 393 actions of the user's, 123 of the agent's (test/tau-telecom-tasks.test.ts).
    expect([userCalls, agentCalls]).toEqual([393, 123]);
  });

  it("no task passes with one side's part left undone, when that part is in its gold: its env assertions see it, or (the transfer) its ACTION check", async () => {
    const passedAnyway: string[] = [];
    for (const task of scenario.tasks) {
      const gold = goldById.get(task.id)!;
      for (const side of ['user', 'assistant'] as const) {
        if (!gold.some((action) => action.requestor === side)) continue;
        const other = side === 'user' ? 'assistant' : 'user';
        if (passes(await play(scenario, task, new Set([other])))) passedAnyway.push(`${task.id} without the ${side}'s part`);
      }
    }
    expect(passedAnyway).toEqual([]);
  });
});
