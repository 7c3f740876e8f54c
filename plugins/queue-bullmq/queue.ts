/**
 * The evaluation queue shared by every instance on one Redis, on BullMQ (issue 9 item 3): one job per task,
 * its id the task id, so a task is queued once however many instances enqueue it (the submitting one, and
 * every instance that resumes unfinished tasks at start-up). A worker holds a job under a lock it renews; an
 * instance killed with its jobs in hand stops renewing, and another instance's stalled-job check puts them
 * back in the queue within `lockDurationMs + stalledIntervalMs`, to be resumed from their handoff tokens.
 * https://docs.bullmq.io/guide/workers/stalled-jobs
 */
import { Queue, Worker, WaitingError, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../../core/capabilities.ts';
import type { Telemetry } from '../../core/telemetry.ts';
import type { TaskQueue, TaskWorker } from '../../core/tasks.ts';
import { redactUrl } from '../../core/guards/redact.ts';

/** Redis key prefix of the queue: outside the store's `aeh:` keys, so store listings never see jobs. */
export const QUEUE_PREFIX = 'aeh-queue';
/** The BullMQ queue every instance shares. */
export const QUEUE_NAME = 'evaluations';
/** How long a claim on a task lasts without renewal (renewed every half of it). */
export const LOCK_DURATION_MS = 6000;
/** BullMQ's largest job priority (2^21). */
const MAX_PRIORITY = 2_097_152;
/** How often each instance looks for tasks whose claim expired. */
export const STALLED_INTERVAL_MS = 2000;

export interface BullmqQueueOptions {
  /** A `redis://` or `rediss://` URL (`AEH_STORAGE`). */
  url: string;
  /** Tasks this instance runs at once (`AEH_CONCURRENCY`). */
  concurrency: number;
  /** Told about a worker that threw; the job is then retried with backoff. */
  onError?(taskId: string, error: unknown): void;
  logger: Logger;
  /** Counts `queue.tasks_started` and `queue.tasks_ended` on this instance (reported by `GET /api/info`). */
  telemetry?: Telemetry;
  /** Claim lifetime; a killed instance's tasks are taken over after at most this plus `stalledIntervalMs`. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Key prefix (tests use their own to share one Redis server). */
  prefix?: string;
}

interface TaskJob {
  task_id: string;
}

/** What the queue's parts share on one instance: the tasks running here, and whether it is closing. */
interface JobState {
  active: Set<string>;
  closing: boolean;
}

/** Logs Redis and BullMQ trouble, each distinct message once in a row. */
function createWarner(logger: Logger): (error: Error) => void {
  let lastWarning = '';
  return function warn(error) {
    if (error.message === lastWarning) return;
    lastWarning = error.message;
    logger.warn('evaluation queue (Redis): ' + error.message);
  };
}

/** The producer and consumer connections, once Redis answers; a clear error when it does not. */
async function connectRedis(url: string, warn: (error: Error) => void): Promise<{ producer: Redis; consumer: Redis }> {
  // Submissions fail fast while Redis is away; the worker's connection waits for it (BullMQ requires that).
  const producer = new Redis(url, { maxRetriesPerRequest: 2, retryStrategy: (attempt) => Math.min(200 * attempt, 2000) });
  const consumer = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (attempt) => Math.min(200 * attempt, 2000) });
  // ioredis and BullMQ report connection trouble as events; an unlistened `error` event would crash the process.
  producer.on('error', warn);
  consumer.on('error', warn);
  try {
    await producer.ping();
  } catch (error) {
    producer.disconnect();
    consumer.disconnect();
    throw new Error(`evaluation queue: cannot reach Redis at ${redactUrl(url)}: ${(error as Error).message}`);
  }
  return { producer, consumer };
}

/** Runs one job's task, counted as active while it runs; at shutdown, hands the job back to the queue. */
async function runJob(options: BullmqQueueOptions, state: JobState, job: Job<TaskJob>, token: string | undefined, claimLost: AbortSignal | undefined, run: TaskWorker): Promise<void> {
  const taskId = job.id ?? job.data.task_id;
  state.active.add(taskId);
  options.telemetry?.increment('queue.tasks_started');
  try {
    await run(taskId, claimLost);
  } catch (error) {
    options.onError?.(taskId, error);
    throw error;
  } finally {
    state.active.delete(taskId);
    options.telemetry?.increment('queue.tasks_ended');
  }
  // Shutting down, the runner returned at its last checkpoint: the task goes back to the queue at once for
  // another instance, instead of completing and waiting for a restart.
  if (state.closing && token) {
    await job.moveToWait(token);
    throw new WaitingError();
  }
}

/** The worker that takes this instance's share of the jobs, its claims renewed and released as BullMQ does. */
function startWorker(options: BullmqQueueOptions, consumer: Redis, warn: (error: Error) => void, processor: (job: Job<TaskJob>, token?: string, signal?: AbortSignal) => Promise<void>): Worker<TaskJob> {
  const worker = new Worker<TaskJob>(QUEUE_NAME, processor, {
    connection: consumer,
    prefix: options.prefix ?? QUEUE_PREFIX,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs ?? LOCK_DURATION_MS,
    stalledInterval: options.stalledIntervalMs ?? STALLED_INTERVAL_MS,
    // A task whose instance keeps dying is taken over again several times before it is parked.
    maxStalledCount: 10,
  });
  worker.on('error', warn);
  worker.on('stalled', (jobId) => options.logger.info('evaluation task returned to the queue: the instance running it stopped renewing its claim', { task_id: jobId }));
  // The lock could not be renewed (Redis away, the event loop blocked): another instance may now hold the
  // task, so this one stops it at its next await.
  worker.on('lockRenewalFailed', (jobIds) => {
    for (const jobId of jobIds) worker.cancelJob(jobId, 'claim lost');
  });
  return worker;
}

/** Connects to Redis and returns the shared queue; fails with a clear message when Redis cannot be reached. */
export async function createBullmqQueue(options: BullmqQueueOptions): Promise<TaskQueue> {
  const { url, concurrency, logger, prefix = QUEUE_PREFIX } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`queue concurrency must be a positive integer, got ${concurrency}`);
  const warn = createWarner(logger);
  const { producer, consumer } = await connectRedis(url, warn);
  const queue = new Queue<TaskJob>(QUEUE_NAME, {
    connection: producer,
    prefix,
    // A job that threw (a storage failure) is retried; after the last attempt it is dropped and the task's
    // active marker brings it back at the next start of any instance. Finished jobs leave nothing behind, so
    // a task id can be queued again (a restart resuming it finds its status final and does nothing).
    defaultJobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: true },
  });
  queue.on('error', warn);
  const state: JobState = { active: new Set(), closing: false };
  let worker: Worker<TaskJob> | undefined;
  let waitingCount = 0;
  let countedAt = 0;

  return {
    kind: 'bullmq',
    concurrency,
    shared: true,
    start(run) {
      if (worker) throw new Error('the task queue is already started');
      worker = startWorker(options, consumer, warn, (job, token, signal) => runJob(options, state, job, token, signal, run));
    },
    async enqueue(taskId, options) {
      if (state.closing) throw new Error('the task queue is closed');
      // Fair share across principals on a queue that orders by one number: a task's priority is its owner's
      // count of outstanding tasks (lower runs first, FIFO among equals), so everyone's first task goes before
      // anyone's second. Every job gets a priority: BullMQ runs jobs without one before all prioritised jobs.
      const priority = Math.min(Math.max(Math.floor(options?.rank ?? 1), 1), MAX_PRIORITY);
      // Adding an id BullMQ already holds (waiting, delayed or active) is a no-op: each task is queued once.
      await queue.add('evaluate', { task_id: taskId }, { jobId: taskId, priority });
    },
    async remove(taskId) {
      // BullMQ refuses (0) only while an instance holds the job's lock; otherwise (waiting, delayed, already
      // gone, or held by a dead instance whose lock expired) nobody runs the task and it is now off the queue.
      return (await queue.remove(taskId)) === 1;
    },
    has: (taskId) => state.active.has(taskId),
    stats() {
      if (Date.now() - countedAt > 1000 && !state.closing) {
        countedAt = Date.now();
        queue.getJobCounts('waiting', 'delayed', 'prioritized').then(
          (counts) => (waitingCount = (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0)),
          () => undefined,
        );
      }
      return { waiting: waitingCount, active: state.active.size };
    },
    async close() {
      state.closing = true;
      // Waits for the running tasks (the engine has told them to stop) and hands unfinished ones back.
      // A worker closed before its connections are ready leaves BullMQ's own connect promise rejecting with
      // "Connection is closed" where nobody awaits it: let it finish connecting first.
      await worker?.waitUntilReady().catch(() => undefined);
      await worker?.close();
      await queue.close();
      await Promise.allSettled([producer.quit(), consumer.quit()]);
    },
  };
}
