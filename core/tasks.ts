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
  /** Adds a task at the end; never drops one, whatever the backlog. Duplicate ids (waiting or running) are ignored. */
  enqueue(taskId: string): void | Promise<void>;
  /** Takes a task that is still waiting off the queue; true when it was waiting here. */
  remove(taskId: string): boolean | Promise<boolean>;
  /** True while the task is waiting or running in this queue (for a shared queue: running on this instance). */
  has(taskId: string): boolean;
  stats(): { waiting: number; active: number };
  /** Stops handing out tasks and resolves when the running ones returned. */
  close(): Promise<void>;
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

/**
 * A bounded in-process FIFO: a burst of any size waits in order (ids only, a few bytes each) while at most
 * `concurrency` tasks run.
 */
export function createMemoryQueue({ concurrency, onError }: MemoryQueueOptions): TaskQueue {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`queue concurrency must be a positive integer, got ${concurrency}`);
  // A Set keeps insertion order and removes in O(1): the FIFO and the index of waiting ids in one.
  const waiting = new Set<string>();
  const active = new Map<string, Promise<void>>();
  let worker: TaskWorker | undefined;
  let closed = false;

  function pump(): void {
    while (worker && !closed && active.size < concurrency && waiting.size > 0) {
      const taskId = waiting.values().next().value as string;
      waiting.delete(taskId);
      const running = worker(taskId)
        .catch((error) => onError?.(taskId, error))
        .finally(() => {
          active.delete(taskId);
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
    enqueue(taskId) {
      if (closed) throw new Error('the task queue is closed');
      if (waiting.has(taskId) || active.has(taskId)) return;
      waiting.add(taskId);
      pump();
    },
    remove: (taskId) => waiting.delete(taskId),
    has: (taskId) => waiting.has(taskId) || active.has(taskId),
    stats: () => ({ waiting: waiting.size, active: active.size }),
    async close() {
      closed = true;
      await Promise.allSettled([...active.values()]);
    },
  };
}
