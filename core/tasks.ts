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
