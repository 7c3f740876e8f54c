/**
 * The task queue conformance suite: the in-process queue, the BullMQ one and a team's own (a `TaskQueueFactory`
 * plugin) run it. It pins what the engine relies on (core/tasks.ts `TaskQueue`): every task runs exactly once,
 * never more than `concurrency` at a time and all of them when that many wait; a duplicate id is ignored while
 * the task waits or runs; tasks queued before `start` wait for it; `remove` takes a waiting task off, never a
 * running one; a worker that throws is reported to `onError` and the others keep running; every owner's first
 * task runs before anyone's second; `close` resolves only once the running tasks returned.
 */
import { describe, it, expect, afterEach } from 'vitest';
import type { MemoryQueueOptions, TaskQueue, TaskWorker } from '../core/tasks.ts';

/** Options of `testQueue`. */
export interface QueueConformanceOptions {
  /** Skip the suite (the backing service is not reachable). */
  skip?: boolean;
}

/** Builds a fresh, empty queue; called for each test (a shared queue gets a key prefix of its own). */
export type QueueFactory = (options: MemoryQueueOptions) => TaskQueue | Promise<TaskQueue>;

const tick = (ms = 2) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds; a hang guard (60 s: a busy machine stretches waits), not a timing assertion. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await tick();
  }
}

/** A worker that records what ran and holds tasks named in `held` until `release(id)`. */
function recorder(held: string[] = []) {
  const ran: string[] = [];
  const returned: string[] = [];
  const gates = new Map<string, () => void>();
  let running = 0;
  let peak = 0;
  const worker: TaskWorker = async (taskId) => {
    ran.push(taskId);
    peak = Math.max(peak, ++running);
    try {
      if (held.includes(taskId)) await new Promise<void>((resolve) => gates.set(taskId, resolve));
      else await tick(1);
    } finally {
      running--;
      returned.push(taskId);
    }
  };
  const release = (taskId: string) => until(() => gates.has(taskId), `${taskId} started`).then(() => gates.get(taskId)!());
  return { worker, ran, returned, release, running: () => running, peak: () => peak };
}

/** Runs the conformance suite against the queues `create` builds. */
export function testQueue(label: string, create: QueueFactory, options: QueueConformanceOptions = {}): void {
  describe.skipIf(options.skip ?? false)(`task queue conformance: ${label}`, () => {
    const opened: TaskQueue[] = [];
    const fresh = async (queueOptions: MemoryQueueOptions = { concurrency: 2 }) => {
      const queue = await create(queueOptions);
      opened.push(queue);
      return queue;
    };
    afterEach(async () => {
      await Promise.allSettled(opened.splice(0).map((queue) => queue.close()));
    });
    runningCases(fresh);
    controlCases(fresh);
  });
}

type Fresh = (options?: MemoryQueueOptions) => Promise<TaskQueue>;
const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}_${index + 1}`);

function runningCases(fresh: Fresh): void {
  it('reports its kind and the concurrency it was given', async () => {
    const queue = await fresh({ concurrency: 3 });
    expect(queue.kind).toMatch(/^[a-z][a-z0-9_-]*$/);
    expect(queue.concurrency).toBe(3);
  });

  it('runs every task of a large backlog exactly once, never more than `concurrency` at a time', async () => {
    const queue = await fresh({ concurrency: 2 });
    const run = recorder();
    const backlog = ids('task', 200);
    for (const id of backlog) await queue.enqueue(id);
    queue.start(run.worker);
    await until(() => run.returned.length >= backlog.length, 'every task returned');
    expect([...run.ran].sort()).toEqual([...backlog].sort());
    expect(run.peak()).toBeLessThanOrEqual(2);
  }, 30_000);

  it('runs `concurrency` tasks at once when that many wait, and reports them as running', async () => {
    const queue = await fresh({ concurrency: 2 });
    const run = recorder(['task_a', 'task_b', 'task_c']);
    queue.start(run.worker);
    for (const id of ['task_a', 'task_b', 'task_c']) await queue.enqueue(id);
    await until(() => run.running() === 2, 'two tasks run');
    expect(queue.stats().active).toBe(2);
    for (const id of run.ran) expect(queue.has(id), `${id} is running here`).toBe(true);
    for (const id of ['task_a', 'task_b', 'task_c']) await run.release(id);
    // Once a worker's promise settled, the queue forgets the task (a hang here fails the test).
    await until(() => !['task_a', 'task_b', 'task_c'].some((id) => queue.has(id)), 'no task is held any more');
    expect(run.returned).toHaveLength(3);
  }, 30_000);

  it('ignores a duplicate id while the task waits or runs', async () => {
    const queue = await fresh({ concurrency: 1 });
    const run = recorder(['task_a']);
    queue.start(run.worker);
    await queue.enqueue('task_a');
    await until(() => run.ran.includes('task_a'), 'task_a started');
    await queue.enqueue('task_a');
    await queue.enqueue('task_b');
    await queue.enqueue('task_b');
    await run.release('task_a');
    await until(() => run.returned.includes('task_b'), 'task_b returned');
    // One worker, first come first served: a duplicate queued before the sentinel would run before it.
    await queue.enqueue('task_sentinel');
    await until(() => run.returned.includes('task_sentinel'), 'the sentinel returned');
    expect(run.ran).toEqual(['task_a', 'task_b', 'task_sentinel']);
  }, 30_000);

  it('gives each free slot fairly: every owner\'s first task runs before anyone\'s second', async () => {
    const queue = await fresh({ concurrency: 1 });
    const run = recorder();
    const mallory = ids('mallory', 6);
    for (const [index, id] of mallory.entries()) await queue.enqueue(id, { owner: 'mallory', rank: index + 1 });
    await queue.enqueue('bob_1', { owner: 'bob', rank: 1 });
    await queue.enqueue('bob_2', { owner: 'bob', rank: 2 });
    queue.start(run.worker);
    await until(() => run.returned.length === 8, 'every task returned');
    const at = (id: string) => run.ran.indexOf(id);
    expect(at('bob_1')).toBeLessThan(at('mallory_2'));
    expect(at('bob_2')).toBeLessThan(at('mallory_3'));
    expect(run.ran.filter((id) => id.startsWith('mallory'))).toEqual(mallory);
  }, 30_000);
}

function controlCases(fresh: Fresh): void {
  it('takes a waiting task off the queue, never a running one', async () => {
    const queue = await fresh({ concurrency: 1 });
    const run = recorder(['task_a']);
    queue.start(run.worker);
    await queue.enqueue('task_a');
    await until(() => run.ran.includes('task_a'), 'task_a started');
    await queue.enqueue('task_b');
    expect(await queue.remove('task_a')).toBe(false);
    expect(await queue.remove('task_b')).toBe(true);
    await run.release('task_a');
    await queue.enqueue('task_sentinel');
    await until(() => run.returned.includes('task_sentinel'), 'the sentinel returned');
    expect(run.ran).toEqual(['task_a', 'task_sentinel']);
  }, 30_000);

  it('tells onError about a worker that threw, and keeps running the others', async () => {
    const errors: Array<[string, unknown]> = [];
    const failure = new Error('storage is away');
    const queue = await fresh({ concurrency: 1, onError: (taskId, error) => errors.push([taskId, error]) });
    const ran: string[] = [];
    queue.start(async (taskId) => {
      ran.push(taskId);
      if (taskId === 'task_bad' && ran.filter((id) => id === 'task_bad').length === 1) throw failure;
    });
    for (const id of ['task_1', 'task_bad', 'task_2', 'task_3']) await queue.enqueue(id);
    await until(() => errors.length >= 1 && ['task_1', 'task_2', 'task_3'].every((id) => ran.includes(id)), 'the others ran');
    expect(errors[0]![0]).toBe('task_bad');
    expect((errors[0]![1] as Error).message).toBe('storage is away');
  }, 30_000);

  it('resolves close once the running tasks returned, and refuses tasks after', async () => {
    const queue = await fresh({ concurrency: 2 });
    const run = recorder(['task_a']);
    const order: string[] = [];
    queue.start(async (taskId, signal) => {
      await run.worker(taskId, signal);
      order.push(`${taskId} returned`);
    });
    await queue.enqueue('task_a');
    await until(() => run.ran.includes('task_a'), 'task_a started');
    const closing = queue.close().then(() => order.push('closed'));
    // Gives a close that does not wait the chance to resolve early.
    await tick(50);
    await run.release('task_a');
    await closing;
    expect(order).toEqual(['task_a returned', 'closed']);
    await expect((async () => queue.enqueue('task_late'))()).rejects.toThrow();
  }, 30_000);
}
