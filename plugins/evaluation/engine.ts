/**
 * The engine of one service instance: its queue, the tasks it is running (to cancel them) and the handoff key.
 * Everything else about a run is in storage, so an instance can stop at any moment and another one carries on.
 */
import type { Services } from '../../core/services.ts';
import { createMemoryQueue, type TaskQueue } from '../../core/tasks.ts';
import { handoffKey, HANDOFF_TTL_SECONDS } from '../../core/handoff.ts';
import { sha3Factory, type Sha3Factory } from '../../core/hash.ts';
import { keys, readTask, type TaskRecord } from '../../core/runs.ts';
import { Problem } from '../../core/problems.ts';
import { createRunIndexer, type RunIndexer } from './run-index.ts';

/** Why a running task was told to stop. */
export class StopRequest extends Error {
  constructor(readonly kind: 'cancel' | 'shutdown') {
    super(kind === 'cancel' ? 'the task was cancelled' : 'the instance is shutting down');
    this.name = 'StopRequest';
  }
}

export interface Engine {
  services: Services;
  queue: TaskQueue;
  /** Tasks running on this instance, to cancel them. */
  running: Map<string, { controller: AbortController; done: Promise<void> }>;
  handoffKey: CryptoKey;
  sha3: Sha3Factory;
  handoffTtlSeconds: number;
  runIndex: RunIndexer;
}

/** Holds the engine of one app from start to stop. */
export interface EngineHolder {
  current?: Engine;
}

/** The running engine, or 503 while the instance starts or stops. */
export function engineOf(holder: EngineHolder): Engine {
  if (!holder.current) throw new Problem('unavailable', { detail: 'the evaluation engine is not running' });
  return holder.current;
}

export const FINAL_STATUSES = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * Starts the engine: the queue with `AEH_CONCURRENCY` workers, then every task storage says is still queued or
 * running (left by a stopped or crashed instance), oldest first.
 */
export async function startEngine(services: Services, runTask: (engine: Engine, taskId: string, signal: AbortSignal) => Promise<void>): Promise<Engine> {
  const ttl = Number(services.config.env.AEH_HANDOFF_TTL_SECONDS ?? '') || HANDOFF_TTL_SECONDS;
  const engine: Engine = {
    services,
    queue: createMemoryQueue({
      concurrency: services.config.concurrency,
      onError: (taskId, error) => services.logger.error('evaluation task stopped on an unexpected error; it resumes at the next start', { task_id: taskId, error: (error as Error)?.message }),
    }),
    running: new Map(),
    handoffKey: await handoffKey(services.store),
    sha3: sha3Factory(services.capabilities),
    handoffTtlSeconds: ttl,
    runIndex: createRunIndexer(services.store),
  };
  engine.queue.start((taskId) => {
    const controller = new AbortController();
    const done = runTask(engine, taskId, controller.signal).finally(() => engine.running.delete(taskId));
    engine.running.set(taskId, { controller, done });
    return done;
  });
  const left = await services.store.keys('tasks-active');
  const tasks = (await Promise.all(left.map((key) => readTask(services.store, key.slice(key.lastIndexOf('/') + 1))))).filter((task): task is TaskRecord => task !== null);
  tasks.sort((a, b) => a.created_at.localeCompare(b.created_at));
  for (const task of tasks) engine.queue.enqueue(task.task_id);
  if (tasks.length) services.logger.info(`resuming ${tasks.length} unfinished evaluation task(s) from their handoff tokens`);
  // Markers of tasks whose record is gone would be retried forever.
  await Promise.all(left.filter((key) => !tasks.some((task) => key.endsWith(`/${task.task_id}`))).map((key) => services.store.remove(key)));
  return engine;
}

/** Stops taking tasks; running ones stop at their next await and resume at the next start. */
export async function stopEngine(engine: Engine): Promise<void> {
  for (const { controller } of engine.running.values()) controller.abort(new StopRequest('shutdown'));
  await engine.queue.close();
}

/** The storage key of a task's active marker. */
export const activeKey = keys.activeTask;
