/**
 * The task queue: where accepted evaluations wait for a worker (service-spec.md design rule 2, asynchronous
 * evaluations; `AEH_CONCURRENCY`). The queue only orders task ids and bounds how many run at once; every task's
 * state lives in storage, so a queue can be swapped (in-process here, Redis/BullMQ for scale-out) without the
 * engine changing, and a restarted instance refills it from storage.
 */

import type { Config } from './config.ts';
import type { Services } from './services.ts';

/**
 * Runs one task to its end; the queue never runs more than `concurrency` of these at once. A shared queue
 * aborts `signal` when this instance lost its claim on the task (another instance may resume it): the worker
 * must stop at its next await and leave the task where its last checkpoint left it.
 */
export type TaskWorker = (taskId: string, signal?: AbortSignal) => Promise<void>;

export interface TaskQueue {
  /** `memory`, `bullmq`, … for `GET /api/info` and the doctor. */
  readonly kind: string;
  readonly concurrency: number;
  /**
   * True when other instances take tasks from this queue too: a task accepted here may have been started (and
   * checkpointed) elsewhere, so its state must always be read from storage, never from this instance's memory.
   */
  readonly shared?: boolean;
  /** Starts handing tasks to `worker`. */
  start(worker: TaskWorker): void;
  /**
   * Adds a task; never drops one, whatever the backlog. Duplicate ids (waiting or running) are ignored. With an
   * `owner`, tasks are dispatched fairly across owners (see `EnqueueOptions`) instead of first come, first served.
   */
  enqueue(taskId: string, options?: EnqueueOptions): void | Promise<void>;
  /** Takes a task that is still waiting off the queue; true when it was waiting here. */
  remove(taskId: string): boolean | Promise<boolean>;
  /** True while the task is waiting or running in this queue (for a shared queue: running on this instance). */
  has(taskId: string): boolean;
  stats(): { waiting: number; active: number };
  /** Stops handing out tasks and resolves when the running ones returned. */
  close(): Promise<void>;
}

/**
 * Who a task belongs to, so that one principal's backlog cannot starve everyone else's (issue 13 item 7).
 * The memory queue gives each free slot to the owner with the fewest running tasks, in turn among equals; a
 * shared queue that can only order by a number uses `rank` (the owner's outstanding tasks, this one included),
 * so every owner's first task goes before anyone's second.
 */
export interface EnqueueOptions {
  /** A stable principal id (`Principal.id`); tasks without one share the owner `""`. */
  owner?: string;
  /** 1 for the owner's oldest outstanding task, 2 for the next, … */
  rank?: number;
}

export interface MemoryQueueOptions {
  /** Tasks run at once (`AEH_CONCURRENCY`). */
  concurrency: number;
  /** Told about a worker that threw (the worker is expected to record failures itself). */
  onError?(taskId: string, error: unknown): void;
}

/** What a queue factory gets: the memory queue's options plus the services (configuration, logger, telemetry). */
export interface TaskQueueOptions extends MemoryQueueOptions {
  services: Services;
}

/**
 * Another queue than the in-process one (BullMQ on Redis, so that several instances share one backlog),
 * registered with `host.queues`. The engine takes the first factory that accepts the configuration.
 */
export interface TaskQueueFactory {
  /** The queue's `kind`, reported by `GET /api/info`. */
  name: string;
  /** True when this queue can serve the configuration (for BullMQ: `AEH_STORAGE` is a Redis URL). */
  accepts(config: Config): boolean;
  /** Connects the queue; a failure fails the start with its message. */
  create(options: TaskQueueOptions): TaskQueue | Promise<TaskQueue>;
}

/** The first registered factory that accepts the configuration; none means the in-process memory queue. */
export function selectQueueFactory(factories: readonly TaskQueueFactory[], config: Config): TaskQueueFactory | undefined {
  return factories.find((factory) => factory.accepts(config));
}

/** The memory queue's fair-share bookkeeping: who waits, who runs, and when each owner was last served. */
interface Backlog {
  /** Per owner a Set: insertion order is the FIFO, and removal is O(1). The Map's order is the round robin. */
  waitingByOwner: Map<string, Set<string>>;
  ownerOf: Map<string, string>;
  runningByOwner: Map<string, number>;
  /** When each owner last got a slot (a dispatch counter); forgotten with the owner's last task. */
  lastServed: Map<string, number>;
  dispatches: number;
  waitingCount: number;
}

/** The owner whose turn it is: fewest running tasks, then the one served longest ago (never served first). */
function nextOwner({ waitingByOwner, runningByOwner, lastServed }: Backlog): string | undefined {
  let chosen: string | undefined;
  let best = [Infinity, Infinity];
  for (const owner of waitingByOwner.keys()) {
    const candidate = [runningByOwner.get(owner) ?? 0, lastServed.get(owner) ?? -1];
    if (candidate[0] < best[0] || (candidate[0] === best[0] && candidate[1] < best[1])) {
      chosen = owner;
      best = candidate;
    }
  }
  return chosen;
}

/** Moves the next task (the first of the owner whose turn it is) from waiting to running. */
function take(backlog: Backlog): string {
  const owner = nextOwner(backlog)!;
  const tasks = backlog.waitingByOwner.get(owner)!;
  const taskId = tasks.values().next().value as string;
  tasks.delete(taskId);
  if (tasks.size === 0) backlog.waitingByOwner.delete(owner);
  backlog.lastServed.set(owner, backlog.dispatches++);
  backlog.waitingCount--;
  backlog.runningByOwner.set(owner, (backlog.runningByOwner.get(owner) ?? 0) + 1);
  return taskId;
}

/** A running task ended: its owner runs one fewer, and an owner with nothing left is forgotten. */
function settle({ ownerOf, runningByOwner, waitingByOwner, lastServed }: Backlog, taskId: string): void {
  const owner = ownerOf.get(taskId) ?? '';
  ownerOf.delete(taskId);
  const running = (runningByOwner.get(owner) ?? 1) - 1;
  if (running > 0) runningByOwner.set(owner, running);
  else runningByOwner.delete(owner);
  if (running <= 0 && !waitingByOwner.has(owner)) lastServed.delete(owner);
}

function addWaiting(backlog: Backlog, taskId: string, owner: string): void {
  backlog.ownerOf.set(taskId, owner);
  const tasks = backlog.waitingByOwner.get(owner);
  if (tasks) tasks.add(taskId);
  else backlog.waitingByOwner.set(owner, new Set([taskId]));
  backlog.waitingCount++;
}

/** Takes a waiting task out of the backlog; false when it is not waiting. */
function removeWaiting(backlog: Backlog, taskId: string): boolean {
  const { ownerOf, waitingByOwner, runningByOwner, lastServed } = backlog;
  const owner = ownerOf.get(taskId);
  const tasks = owner === undefined ? undefined : waitingByOwner.get(owner);
  if (!tasks?.delete(taskId)) return false;
  ownerOf.delete(taskId);
  backlog.waitingCount--;
  if (tasks.size === 0) {
    waitingByOwner.delete(owner!);
    if (!runningByOwner.has(owner!)) lastServed.delete(owner!);
  }
  return true;
}

/**
 * An in-process queue, fair across owners: a burst of any size waits (ids only, a few bytes each) while at most
 * `concurrency` tasks run; each free slot goes to the owner with the fewest running tasks, ties in the order the
 * owners last got a slot (round robin), and each owner's tasks run in the order they came.
 */
export function createMemoryQueue({ concurrency, onError }: MemoryQueueOptions): TaskQueue {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`queue concurrency must be a positive integer, got ${concurrency}`);
  const backlog: Backlog = { waitingByOwner: new Map(), ownerOf: new Map(), runningByOwner: new Map(), lastServed: new Map(), dispatches: 0, waitingCount: 0 };
  const active = new Map<string, Promise<void>>();
  let worker: TaskWorker | undefined;
  let closed = false;

  function pump(): void {
    while (worker && !closed && active.size < concurrency && backlog.waitingCount > 0) {
      const taskId = take(backlog);
      const running = worker(taskId)
        .catch((error) => onError?.(taskId, error))
        .finally(() => {
          active.delete(taskId);
          settle(backlog, taskId);
          pump();
        });
      active.set(taskId, running);
    }
  }

  return {
    kind: 'memory',
    concurrency,
    start(taskWorker) {
      worker = taskWorker;
      pump();
    },
    enqueue(taskId, options) {
      if (closed) throw new Error('the task queue is closed');
      if (backlog.ownerOf.has(taskId)) return;
      addWaiting(backlog, taskId, options?.owner ?? '');
      pump();
    },
    remove(taskId) {
      if (active.has(taskId)) return false;
      return removeWaiting(backlog, taskId);
    },
    has: (taskId) => backlog.ownerOf.has(taskId),
    stats: () => ({ waiting: backlog.waitingCount, active: active.size }),
    async close() {
      closed = true;
      await Promise.allSettled([...active.values()]);
    },
  };
}
