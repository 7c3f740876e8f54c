import { afterEach, describe, expect, it } from 'vitest';
import { OffloadBudgetError, type Offload } from '../../core/capabilities.ts';
import { Problem } from '../../core/problems.ts';
import { createWorkerPool, workerPoolFromEnv } from './offload.ts';
import { OFFLOAD_JOBS_MODULE } from '../../test/offload-jobs.ts';
import { ownThreadStatPath, threadCpuMs } from './thread-cpu.ts';
import { SLOW_MODULE } from '../../test/offload-slow-module.ts';

const job = (name: string, input: unknown = null, budgetMs = 60_000) => ({ module: OFFLOAD_JOBS_MODULE, name, input, budgetMs });

describe('runtime: node offload pool', () => {
  let pool: Offload | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('runs a named export of a TypeScript module in a worker and returns its value', async () => {
    pool = createWorkerPool({ size: 2 });
    expect(pool.size).toBe(2);
    const values = await Promise.all([1, 2, 3].map((n) => pool!.run(job('echo', { n }))));
    expect(values).toEqual([{ echoed: { n: 1 } }, { echoed: { n: 2 } }, { echoed: { n: 3 } }]);
  });

  it('stops a job past its budget with OffloadBudgetError, and the next job gets a fresh worker', async () => {
    pool = createWorkerPool({ size: 1 });
    const stalled = pool.run(job('spin', null, 300));
    const queued = pool.run(job('echo', 'after'));
    await expect(stalled).rejects.toBeInstanceOf(OffloadBudgetError);
    await expect(stalled).rejects.toMatchObject({ budgetMs: 300 });
    expect(await queued).toEqual({ echoed: 'after' });
  });

  it('counts a budget in the worker\'s CPU time on Linux: a job the machine did not schedule is not stopped, one blocked past ten times its budget is', async () => {
    pool = createWorkerPool({ size: 1 });
    expect(await pool.run(job('echo', 'warm'))).toEqual({ echoed: 'warm' });
    if (!ownThreadStatPath()) return; // no /proc: the budget is wall-clock, as the test above shows
    // 600 ms without CPU against a 300 ms budget: on a machine whose cores are all busy a job waits like this.
    expect(await pool.run(job('blocked', 600, 300))).toBe('woke');
    // The wall-clock guard: 10 × 50 ms, long before the 60 s wait ends.
    const stuck = pool.run(job('blocked', 60_000, 50));
    await expect(stuck).rejects.toBeInstanceOf(OffloadBudgetError);
    expect(await pool.run(job('echo', 'after'))).toEqual({ echoed: 'after' });
  });

  it('reads a thread\'s CPU time from /proc where there is one', () => {
    const path = ownThreadStatPath();
    if (!path) return expect(threadCpuMs(path)).toBeUndefined();
    const before = threadCpuMs(path)!;
    // A fixed amount of work (not a wall-clock loop: a busy machine would give it less CPU), ~100 ms of it.
    let sum = 0;
    for (let index = 0; index < 1e8; index++) sum = (sum + index) % 1_000_003;
    expect(sum).toBeGreaterThanOrEqual(0);
    expect(threadCpuMs(path)! - before).toBeGreaterThanOrEqual(10);
    expect(threadCpuMs('/proc/nonexistent/stat')).toBeUndefined();
  });

  it('rethrows a Problem with its code and members', async () => {
    pool = createWorkerPool({ size: 1 });
    const failure = await pool.run(job('refuse', { detail: 'too dense' })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Problem);
    expect(failure).toMatchObject({ code: 'spec_parse_failed', status: 422, detail: 'too dense', extra: { pitfalls: [{ code: 'x', line: 1, message: 'too dense' }] } });
  });

  it('starts a job\'s budget once a cold worker has loaded its modules and their warmUp()', async () => {
    pool = createWorkerPool({ size: 1 });
    // Loading takes half a second; the job itself, far less than its 50 ms.
    expect(await pool.run({ module: SLOW_MODULE, name: 'wasWarmed', input: null, budgetMs: 50 })).toBe(true);
    expect(await pool.run({ ...job('echo', 'warm', 50), preload: [SLOW_MODULE] })).toEqual({ echoed: 'warm' });
    await expect(pool.run(job('spin', null, 50))).rejects.toBeInstanceOf(OffloadBudgetError);
  });

  it('reports a missing export as the job error', async () => {
    pool = createWorkerPool({ size: 1 });
    await expect(pool.run(job('nothing'))).rejects.toThrow(/no exported function "nothing"/);
  });

  it('stops waiting, and the worker, when the signal aborts', async () => {
    pool = createWorkerPool({ size: 1 });
    const controller = new AbortController();
    const stalled = pool.run({ ...job('spin'), signal: controller.signal });
    setTimeout(() => controller.abort(new Error('cancelled')), 200);
    await expect(stalled).rejects.toThrow('cancelled');
    expect(await pool.run(job('echo', 1))).toEqual({ echoed: 1 });
  });

  it('rejects with OffloadUnavailable when no worker can start', async () => {
    // Node 20 cannot load the worker's TypeScript without tsx: the worker fails before it is ready.
    pool = createWorkerPool({ size: 1, typescript: 'native' });
    await expect(pool.run(job('echo'))).rejects.toMatchObject({ name: 'OffloadUnavailable' });
  });

  it('takes a worker that never gets ready for one that cannot start: its jobs fail as OffloadUnavailable, not wait forever', async () => {
    // Issue 36: a suite never finished under load; a worker that neither got ready nor stopped held every job.
    const errors: string[] = [];
    const logger = { info: () => undefined, warn: () => undefined, error: (message: string) => void errors.push(message) };
    pool = createWorkerPool({ size: 2, startTimeoutMs: 300, workerUrl: new URL('../../test/offload-never-ready.mjs', import.meta.url), logger });
    const jobs = [pool.run(job('echo', 1)), pool.run(job('echo', 2)), pool.run(job('echo', 3))];
    for (const pending of jobs) await expect(pending).rejects.toMatchObject({ name: 'OffloadUnavailable', message: expect.stringMatching(/did not become ready within 300 ms/) });
    expect(errors[0]).toMatch(/offload worker could not start: it did not become ready within 300 ms/);
    // The next job spawns a worker again (and is refused the same way, without waiting for the first ones).
    await expect(pool.run(job('echo', 4))).rejects.toMatchObject({ name: 'OffloadUnavailable' });
  });

  it('refuses jobs once closed', async () => {
    pool = createWorkerPool({ size: 1 });
    await pool.close();
    await expect(pool.run(job('echo'))).rejects.toThrow(/closed/);
  });

  it('sizes itself from AEH_METRIC_WORKERS: min(2, cores) by default, none at 0, an error when malformed', async () => {
    const fromEnv = (value: string | undefined, cores = 8) => workerPoolFromEnv({ AEH_METRIC_WORKERS: value }, cores, 'tsx');
    expect(fromEnv(undefined)?.size).toBe(2);
    expect(fromEnv(undefined, 1)?.size).toBe(1);
    expect(fromEnv('3')?.size).toBe(3);
    expect(fromEnv('0')).toBeUndefined();
    expect(() => fromEnv('two')).toThrow(/AEH_METRIC_WORKERS/);
    expect(() => fromEnv('-1')).toThrow(/AEH_METRIC_WORKERS/);
  });
});
