import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { silentLogger } from '../../core/capabilities.ts';
import { createTelemetry } from '../../core/telemetry.ts';
import { parseConfig } from '../../core/config.ts';
import type { TaskQueue } from '../../core/tasks.ts';
import { startRedis, SKIP_REDIS, type RedisServer } from '../../test/redis-server.ts';
import { testApp, TEST_KEY } from '../../test/helpers.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../test/evaluation-fixtures.ts';
import { createBullmqQueue, type BullmqQueueOptions } from './queue.ts';
import { bullmqQueueFactory } from './index.ts';
import { testQueue } from '../../testing/index.ts';

let redis: RedisServer | undefined;
let prefixes = 0;
const queues: TaskQueue[] = [];
beforeAll(async () => {
  if (!SKIP_REDIS) redis = await startRedis();
});
afterAll(async () => {
  await Promise.allSettled(queues.map((queue) => queue.close()));
  await redis?.stop();
});

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

/** A queue on its own key prefix, so the tests of this file never share jobs unless they mean to. */
async function queueOn(prefix: string, options: Partial<BullmqQueueOptions> = {}): Promise<TaskQueue> {
  const queue = await createBullmqQueue({ url: redis!.url, concurrency: 2, logger: silentLogger, prefix, ...options });
  queues.push(queue);
  return queue;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await tick();
  }
}

// Each queue on a key prefix of its own: the suite's queues never see each other's jobs.
testQueue('bullmq', (options) => queueOn(`conformance${++prefixes}`, options), { skip: SKIP_REDIS });

describe('queue: bullmq factory', () => {
  it('accepts exactly the Redis configurations', () => {
    expect(bullmqQueueFactory.accepts(parseConfig({ AEH_STORAGE: 'redis://127.0.0.1:6379' }))).toBe(true);
    expect(bullmqQueueFactory.accepts(parseConfig({ AEH_STORAGE: 'rediss://cache.example:6380/2' }))).toBe(true);
    expect(bullmqQueueFactory.accepts(parseConfig({ AEH_STORAGE: 'fs' }))).toBe(false);
    expect(bullmqQueueFactory.accepts(parseConfig({ AEH_STORAGE: 'memory' }))).toBe(false);
  });

  it('fails with a clear message, password hidden, when Redis is unreachable', async () => {
    await expect(createBullmqQueue({ url: 'redis://user:secret@127.0.0.1:1', concurrency: 1, logger: silentLogger })).rejects.toThrow(/cannot reach Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1/);
  });
});

describe.skipIf(SKIP_REDIS)('queue: bullmq on a real Redis', () => {
  it('runs every task once, at most `concurrency` at a time, and ignores duplicate ids', async () => {
    const telemetry = createTelemetry();
    const queue = await queueOn(`q${++prefixes}`, { concurrency: 3, telemetry });
    const ran: string[] = [];
    let running = 0;
    let peak = 0;
    queue.start(async (taskId) => {
      running++;
      peak = Math.max(peak, running);
      ran.push(taskId);
      await tick(10);
      running--;
    });
    const ids = Array.from({ length: 30 }, (_, index) => `task_${index}`);
    await Promise.all([...ids, ...ids.slice(0, 10)].map((id) => queue.enqueue(id)));
    await until(() => ran.length >= 30 && running === 0);
    await tick(50);
    expect(ran.sort()).toEqual([...ids].sort());
    expect(peak).toBeLessThanOrEqual(3);
    expect(telemetry.snapshot()).toMatchObject({ 'queue.tasks_started': 30, 'queue.tasks_ended': 30 });
    expect(queue.kind).toBe('bullmq');
    expect(queue.shared).toBe(true);
  });

  it('takes a waiting task off the queue but never one that is running somewhere', async () => {
    const queue = await queueOn(`q${++prefixes}`, { concurrency: 1 });
    let release!: () => void;
    const started: string[] = [];
    queue.start(async (taskId) => {
      started.push(taskId);
      if (taskId === 'task_a') await new Promise<void>((resolve) => (release = resolve));
    });
    await queue.enqueue('task_a');
    await until(() => started.includes('task_a'));
    await queue.enqueue('task_b');
    try {
      expect(queue.has('task_a')).toBe(true);
      expect(await queue.remove('task_a')).toBe(false);
      expect(await queue.remove('task_b')).toBe(true);
      // Nothing holds it any more, anywhere: cancelling it again is safe.
      expect(await queue.remove('task_b')).toBe(true);
    } finally {
      release();
    }
    await until(() => !queue.has('task_a'));
    await tick(100);
    expect(started).toEqual(['task_a']);
  });

  it('shares one backlog between instances: both run some, none runs a task twice', async () => {
    const prefix = `q${++prefixes}`;
    const a = await queueOn(prefix, { concurrency: 2 });
    const b = await queueOn(prefix, { concurrency: 2 });
    const byA: string[] = [];
    const byB: string[] = [];
    a.start(async (taskId) => {
      byA.push(taskId);
      await tick(20);
    });
    b.start(async (taskId) => {
      byB.push(taskId);
      await tick(20);
    });
    const ids = Array.from({ length: 24 }, (_, index) => `task_${index}`);
    for (const id of ids) await (index(id) % 2 ? a : b).enqueue(id);
    await until(() => byA.length + byB.length >= ids.length);
    await tick(100);
    expect([...byA, ...byB].sort()).toEqual([...ids].sort());
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
  });

  it('hands the tasks it was running back at close, to be resumed by another instance', async () => {
    const prefix = `q${++prefixes}`;
    const leaving = await queueOn(prefix, { concurrency: 2 });
    const started: string[] = [];
    const stop = new AbortController();
    leaving.start(async (taskId) => {
      started.push(taskId);
      // Like the runner: returns at its next await once told that the instance stops.
      await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
    });
    await leaving.enqueue('task_x');
    await leaving.enqueue('task_y');
    await until(() => started.length === 2);
    stop.abort();
    await leaving.close();
    const staying = await queueOn(prefix, { concurrency: 2 });
    const resumed: string[] = [];
    staying.start(async (taskId) => {
      resumed.push(taskId);
    });
    await until(() => resumed.length === 2, 5000);
    expect(resumed.sort()).toEqual(['task_x', 'task_y']);
    await expect(leaving.enqueue('task_z')).rejects.toThrow(/closed/);
  });

  it('orders by the owner rank, so one principal\'s backlog does not starve another (issue 13 item 7)', async () => {
    const queue = await queueOn(`q${++prefixes}`, { concurrency: 1 });
    for (let rank = 1; rank <= 20; rank++) await queue.enqueue(`task_m${rank}`, { owner: 'mallory', rank });
    await queue.enqueue('task_b1', { owner: 'bob', rank: 1 });
    await queue.enqueue('task_b2', { owner: 'bob', rank: 2 });
    const ran: string[] = [];
    queue.start(async (taskId) => {
      ran.push(taskId);
    });
    await until(() => ran.length === 22);
    // Rank 1 of both owners first, in arrival order; then rank 2 of both; then mallory's backlog.
    expect(ran.slice(0, 4)).toEqual(['task_m1', 'task_b1', 'task_m2', 'task_b2']);
    expect(ran.slice(4)).toEqual(Array.from({ length: 18 }, (_, index) => `task_m${index + 3}`));
  });

  it('retries a task whose worker threw (a storage failure) and reports the error', async () => {
    const errors: string[] = [];
    const queue = await queueOn(`q${++prefixes}`, { concurrency: 1, onError: (taskId, error) => errors.push(`${taskId}: ${(error as Error).message}`) });
    let attempts = 0;
    queue.start(async () => {
      if (++attempts === 1) throw new Error('storage is away');
    });
    await queue.enqueue('task_r');
    await until(() => attempts === 2, 5000);
    expect(errors).toEqual(['task_r: storage is away']);
  });
});

function index(id: string): number {
  return Number(id.slice(id.indexOf('_') + 1));
}

describe.skipIf(SKIP_REDIS)('queue: bullmq through the app', () => {
  it('evaluations on AEH_STORAGE=redis:// run through the shared queue, reported by /api/info', async () => {
    const t = await testApp({ env: { AEH_STORAGE: redis!.url }, plugins: [testMetrics] });
    try {
      const info = await t.json('GET', '/api/info', { key: TEST_KEY });
      expect(info.body.queue).toEqual({ kind: 'bullmq', concurrency: 4 });
      const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('bullmq-app') } });
      expect(accepted.status).toBe(202);
      const task = await waitForTask(t, accepted.body.task_id);
      expect(task.status).toBe('succeeded');
      const after = await t.json('GET', '/api/info', { key: TEST_KEY });
      expect(after.body.telemetry['queue.tasks_started']).toBe(1);
    } finally {
      await t.app.close();
    }
  });

  it('memory storage keeps the in-process queue', async () => {
    const t = await testApp();
    const info = await t.json('GET', '/api/info', { key: TEST_KEY });
    expect(info.body.queue.kind).toBe('memory');
    await t.app.close();
  });
});
