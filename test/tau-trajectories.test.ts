/**
 * Issue 34 item 4: τ-bench v1's published GPT-4o airline trajectories (200: 50 tasks × 4 trials) replayed
 * through the service by the `replay` agent, each one's recorded calls run on a fresh airline world, judged by
 * v1's gold (the database and the required outputs), give their recorded reward. The records are committed
 * (plugins/shims/tau/fixtures/v1-airline-gpt-4o.json.gz, written by bench/tau/trajectories.mjs --write-fixture),
 * so this runs without the reference.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { testApp } from './helpers.ts';
import { evaluate } from './evaluation-fixtures.ts';
import { readTauDb, tauAirlineShim } from '../plugins/shims/tau/index.ts';
import { compareRewards, rewardsOfTrace, v1ReplayOf, v1ReplayScenario, type V1Task, type V1Trajectory } from '../plugins/shims/tau/trajectories.ts';
import { BUNDLED_TAU_DIR } from '../cli/commands/bench.ts';
import type { Plugin } from '../core/plugin.ts';

const files = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };
const records = JSON.parse(gunzipSync(readFileSync(new URL('../plugins/shims/tau/fixtures/v1-airline-gpt-4o.json.gz', import.meta.url))).toString()) as { tasks: V1Task[]; trajectories: V1Trajectory[] };

async function replayed(trajectories: V1Trajectory[]) {
  const shim = tauAirlineShim();
  const replay = await v1ReplayScenario(trajectories, records.tasks, shim as never, await readTauDb({ dir: BUNDLED_TAU_DIR, files }, 'airline'));
  const t = await testApp();
  writeFileSync(join(t.root, 'trajectories.jsonl'), replay.recording);
  return evaluate(t, { scenario: v1ReplayOf(replay, shim as never, 'trajectories.jsonl') });
}

describe('τ-bench v1 published trajectories replayed (issue 34 item 4)', () => {
  it('reproduces the recorded reward of 199 of the 200, the one difference a trajectory v1 never judged', async () => {
    expect(records.trajectories).toHaveLength(200);
    const { run, trace } = await replayed(records.trajectories);
    expect(run.status).toBe('succeeded');
    const result = compareRewards(records.trajectories, rewardsOfTrace(trace));
    expect(result).toMatchObject({ total: 200, reproduced: 199 });
    expect(result.recordedAverage).toBeCloseTo(0.42, 10);
    expect(result.reproducedAverage).toBeCloseTo(0.425, 10);
    // v1's run cut it at 30 steps and recorded 0 unjudged; its calls do leave the gold database (v1's own tools agree).
    expect(result.differences).toEqual([{ task_id: 'task_46_trial_3', recorded: 0, reproduced: 1, cause: expect.stringContaining('v1 never judged it') }]);
  }, 120_000);

  it('runs every replayed call on the world: the trace has each call with the world\'s answer and its state change', async () => {
    // Task 20, trial 0: reward 1, a lookup, a search, then the reservation's flights changed.
    const trajectory = records.trajectories.find((entry) => entry.task_id === 20 && entry.trial === 0)!;
    expect(trajectory.reward).toBe(1);
    const { trace } = await replayed([trajectory]);
    const calls = trace.filter((event: any) => event.type === 'tool_call');
    expect(calls.map((event: any) => event.data.name)).toEqual(trajectory.calls.map(([name]) => `tau_airline.${name}`));
    expect(calls.map((event: any) => event.data.name).at(-1)).toBe('tau_airline.update_reservation_flights');
    expect(calls.every((event: any) => event.data.executed !== false && (event.data.result !== undefined || event.data.error))).toBe(true);
    expect(trace.some((event: any) => event.type === 'state_change')).toBe(true);
    expect(trace.find((event: any) => event.type === 'metric_result' && event.data.metric === 'state_match').data.score).toBe(1);
  }, 60_000);

  it('records a call an adapter reports but did not run as not executed (before, one with a result was dropped: neither run nor recorded)', async () => {
    const claims: Plugin = {
      name: 'claims-agent',
      setup(host) {
        host.agents.register({ name: 'claims', description: 'test: reports a world call it never ran', async call() {
          return { output: 'Cancelled.', tool_calls: [{ name: 'tau_airline.cancel_reservation', arguments: { reservation_id: 'EHGLP3' }, result: { status: 'cancelled' } }] };
        } }, 'claims-agent');
      },
    };
    const t = await testApp({ plugins: [claims] });
    const scenario = { id: 'claims', title: 'claims', policy_ref: 'test', industry: 'travel', use_case: 'customer_service', tags: [], topology: [], agent: { adapter: 'claims' }, enabled_shims: ['tau_airline'], tasks: [{ id: 't', input: 'Cancel EHGLP3.', expected_actions: [] }] };
    const { trace } = await evaluate(t, { scenario });
    expect(trace.filter((event: any) => event.type === 'tool_call').map((event: any) => event.data)).toEqual([
      { name: 'tau_airline.cancel_reservation', arguments: { reservation_id: 'EHGLP3' }, result: { status: 'cancelled' }, executed: false },
    ]);
    expect(trace.some((event: any) => event.type === 'state_change')).toBe(false);
  }, 60_000);
});
