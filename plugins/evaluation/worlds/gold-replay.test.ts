/**
 * Hostile (issue 33 item 3): `expected_actions` were replayed in-process with no budget: one 0.87 MB submission
 * (a 20,000-key kv world, 40 tasks × 200 gold kv.set) held /healthz for 7–15 s. Submission now bounds tasks ×
 * gold actions × world size (400 naming the limit), and a gold solution is replayed in the worker pool as the
 * submitter's shim work under AEH_SHIM_BUDGET_MS; past it, the task's state_match is unmeasured. Outcomes and
 * order, no timings.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Offload, OffloadJob } from '../../../core/capabilities.ts';
import type { Plugin } from '../../../core/plugin.ts';
import { createWorkerPool } from '../../../runtime/node/offload.ts';
import { testApp } from '../../../test/helpers.ts';
import { evaluate, waitForTask } from '../../../test/evaluation-fixtures.ts';
import spinWorld from '../../../test/spin-gold-shim.ts';
import { MAX_GOLD_REPLAY_WORK } from './gold-replay-limit.ts';

const base = (world: Record<string, unknown>, tasks: unknown[]) => ({
  id: 'gold-replay', title: 'Gold replay', industry: 'Retail', use_case: 'Support', tags: ['test'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { '*': { output: 'Done.', tool_calls: [{ name: 'payments.refund', arguments: { charge_id: 'ch_1' } }] } } },
  topology: [], ...world, tasks,
});
const PAYMENTS = { enabled_shims: ['payments'], initial_state: { payments: { currency: 'EUR', balances: { alice: 100 }, charges: [{ id: 'ch_1', customer: 'alice', amount: 40 }] } } };

/** A pool whose jobs are noted (name and group), to see where a replay ran and as whose work. */
function notingPool(): { offload: Offload; jobs: Array<Pick<OffloadJob, 'name' | 'group' | 'budgetMs'>> } {
  const pool = createWorkerPool({ size: 1 });
  const jobs: Array<Pick<OffloadJob, 'name' | 'group' | 'budgetMs'>> = [];
  return { jobs, offload: { size: pool.size, run: (job) => (jobs.push({ name: job.name, group: job.group, budgetMs: job.budgetMs }), pool.run(job)), close: () => pool.close() } };
}

describe('hostile: gold replays are bounded and run off the request thread (issue 33 item 3)', () => {
  const pools: Offload[] = [];
  afterAll(async () => Promise.all(pools.map((pool) => pool.close())));

  it('refuses at submission 40 tasks × 200 gold kv.set on a 20,000-key world, naming the limit', async () => {
    const t = await testApp();
    const entries = Object.fromEntries(Array.from({ length: 20_000 }, (_, n) => [`k${n}`, n]));
    const actions = Array.from({ length: 200 }, (_, n) => ({ name: 'kv.set', arguments: { key: `k${n}`, value: 0 } }));
    const tasks = Array.from({ length: 40 }, (_, n) => ({ id: `t${n}`, input: 'reset', expected_actions: actions, metrics: [{ id: 'task_success' }] }));
    const body = { scenario: base({ enabled_shims: ['kv'], initial_state: { kv: { entries } } }, tasks) };
    expect(JSON.stringify(body).length).toBeLessThan(1_048_576);
    const refused = await t.json('POST', '/api/evaluate', { body });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'validation_failed', limit: MAX_GOLD_REPLAY_WORK, errors: [{ path: '/tasks' }] });
    expect(refused.body.detail).toMatch(/8000 expected_actions on a world of \d+ bytes.*the limit is 20000000 \(tasks × expected_actions × world size\)/);
    expect((await t.json('GET', '/api/v1/runs')).body.items).toEqual([]);
  });

  it("replays a gold solution in the pool as the submitter's shim work, judging as inline (a small one here)", async () => {
    const { offload, jobs } = notingPool();
    pools.push(offload);
    const t = await testApp({ capabilities: { offload } });
    // 500 customers: a world of ~11 KB, and 40 gold actions, 39 of them reads.
    const customers = Object.fromEntries(Array.from({ length: 500 }, (_, n) => [`customer_${n}`, 1000 + n]));
    const world = { ...PAYMENTS, initial_state: { payments: { ...PAYMENTS.initial_state.payments, balances: { ...PAYMENTS.initial_state.payments.balances, ...customers } } } };
    const reads = Array.from({ length: 39 }, () => ({ name: 'payments.get_charge', arguments: { charge_id: 'ch_1' } }));
    const tasks = [{ id: 'refund', input: 'Refund ch_1.', expected_actions: [...reads, { name: 'payments.refund', arguments: { charge_id: 'ch_1' } }], metrics: [{ id: 'task_success' }] }];
    const { run, trace } = await evaluate(t, { scenario: base(world, tasks) });
    expect(trace.find((event: any) => event.type === 'metric_result' && event.data.metric === 'state_match').data.score).toBe(1);
    expect(run.compliance.status).toBe('pass');
    expect(jobs.filter((job) => job.name === 'replayGold')).toEqual([{ name: 'replayGold', group: 'principal:static-key', budgetMs: t.config.shimBudgetMs }]);
    // A small replay costs less here than a worker's round trip.
    const small = [{ id: 'refund', input: 'Refund ch_1.', expected_actions: [{ name: 'payments.refund', arguments: { charge_id: 'ch_1' } }], metrics: [{ id: 'task_success' }] }];
    expect((await evaluate(t, { scenario: base(PAYMENTS, small) })).run.compliance.status).toBe('pass');
    expect(jobs.filter((job) => job.name === 'replayGold')).toHaveLength(1);
  });

  it('stops a gold replay that never ends at AEH_SHIM_BUDGET_MS: state_match unmeasured, the service answering meanwhile', async () => {
    const { offload } = notingPool();
    pools.push(offload);
    const plugin: Plugin = { name: 'test-spin-world', setup(host) { host.shims.register(spinWorld as never, 'test-spin-world'); } };
    const t = await testApp({ plugins: [plugin], env: { AEH_SHIM_BUDGET_MS: '1000' }, capabilities: { offload } });
    const scenario = {
      // A world large enough that its replay is not one of the small ones done inline.
      ...base({ enabled_shims: ['spin_world'], initial_state: { spin_world: { padding: 'x'.repeat(300_000) } } }, [{ id: 'spin', input: 'Look.', expected_actions: [{ name: 'spin_world.spin' }], metrics: [{ id: 'task_success' }] }]),
      agent: { adapter: 'scripted', replies: { '*': 'Looked.' } },
    };
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    // Were the replay on this thread, nothing would answer until the process died.
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    const task = await waitForTask(t, accepted.body.task_id, 60_000);
    expect(task.status).toBe('succeeded');
    const run = (await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
    expect(run.compliance.status).toBe('error');
    expect(run.compliance.reason).toMatch(/state_match on spin: .*the gold solution did not replay within 1000 ms \(AEH_SHIM_BUDGET_MS\)/);
  }, 120_000);
});
