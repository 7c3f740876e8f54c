/**
 * The engine of one service instance: its queue, the tasks it is running (to cancel them) and the handoff key.
 * Everything else about a run is in storage, so an instance can stop at any moment and another one carries on.
 */
import { metricLimits, type MetricLimits } from './scoring/metric-limits.ts';
import type { Services } from '../../core/services.ts';
import { selectQueueFactory, type TaskQueue, type TaskQueueFactory } from '../../core/tasks.ts';
import { createMemoryQueue } from './running/memory-queue.ts';
import { handoffKey, HANDOFF_TTL_SECONDS, type HandoffState } from './running/handoff.ts';
import type { RunPlan } from './submission/plan.ts';
import { sha3Factory, type Sha3Factory } from '../../core/domain/hash.ts';
import { FINAL_STATUSES, keys, readTask, type TaskRecord } from '../../core/domain/runs.ts';
import { Problem } from '../../core/problems.ts';
import { createRunIndexer, type RunIndexer } from './listing/run-index.ts';
import { sweepOwnerMarkers } from './submission/owners.ts';
import { activeTasks } from './submission/active-tasks.ts';
import { createMcpWorlds, mcpBaseUrl, type McpWorlds } from './worlds/mcp-worlds.ts';
import { cacheTtlOf, readPrices } from './cost-settings.ts';
import type { Prices } from '../../core/domain/usage.ts';

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
  /** `AEH_METRIC_BUDGET_MS` and friends, read once from the plugin's settings. */
  metricLimits: MetricLimits;
  runIndex: RunIndexer;
  /**
   * Tasks this instance accepted and has not started yet, as it stored them: the runner takes them from here
   * instead of reading back and re-verifying what never left this process. Bounded; past the bound (and after
   * a restart) tasks come from storage and their tokens are verified.
   */
  fresh: Map<string, FreshTask>;
  /** The worlds of the tasks running here, reachable over MCP while their task runs (mcp-worlds.ts). */
  mcp: McpWorlds;
  /** How long the response cache keeps an answer (`AEH_AGENT_CACHE_TTL_SECONDS`); 0 when the cache is off. */
  cacheTtlSeconds: number;
  /** The price table (`AEH_PRICES` or `AEH_PRICES_FILE`), when one is configured. */
  prices?: Prices;
}

/** A task as submitted, kept in memory until its runner starts. */
export interface FreshTask {
  task: TaskRecord;
  plan: RunPlan;
  state: HandoffState;
}

/** How many accepted tasks keep their plan in memory (about 10 KB each for a 50-task scenario: 10 MB at most). */
export const FRESH_LIMIT = 1024;

/** Holds the engine of one app from start to stop. */
export interface EngineHolder {
  current?: Engine;
}

/** The running engine, or 503 while the instance starts or stops. */
export function engineOf(holder: EngineHolder): Engine {
  if (!holder.current) throw new Problem('unavailable', { detail: 'the evaluation engine is not running' });
  return holder.current;
}

export { FINAL_STATUSES };

/**
 * Starts the engine: the queue with `AEH_CONCURRENCY` workers (the first registered queue factory that accepts
 * the configuration, else the in-process one). The tasks a stopped instance left are resumed apart
 * (`resumeLeftTasks`), once every plugin has started.
 */
export async function startEngine(services: Services, runTask: (engine: Engine, taskId: string, signal: AbortSignal) => Promise<void>, queueFactories: readonly TaskQueueFactory[] = [], settings: Readonly<Record<string, string | undefined>> = {}): Promise<Engine> {
  const ttl = Number(settings.AEH_HANDOFF_TTL_SECONDS ?? '') || HANDOFF_TTL_SECONDS;
  // Read before the queue starts: a malformed price table or cache setting stops the start, naming the setting.
  const cacheTtlSeconds = cacheTtlOf(settings);
  const prices = await readPrices(settings, services);
  const queueOptions = {
    concurrency: services.config.concurrency,
    onError: (taskId: string, error: unknown) => services.logger.error('evaluation task stopped on an unexpected error; it resumes at the next start', { task_id: taskId, error: (error as Error)?.message }),
  };
  const factory = selectQueueFactory(queueFactories, services.config);
  const key = await handoffKey(services.store);
  const engine: Engine = {
    services,
    queue: factory ? await factory.create({ ...queueOptions, services }) : createMemoryQueue(queueOptions),
    running: new Map(),
    handoffKey: key,
    sha3: sha3Factory(services.capabilities),
    handoffTtlSeconds: ttl,
    metricLimits: metricLimits(settings),
    runIndex: createRunIndexer(services.store),
    fresh: new Map(),
    mcp: createMcpWorlds(key, mcpBaseUrl({ host: services.config.host, port: services.config.port, env: settings })),
    cacheTtlSeconds,
    ...(prices ? { prices } : {}),
  };
  engine.queue.start((taskId, claimLost) => {
    const controller = new AbortController();
    // Another instance may already be resuming the task: stop as at shutdown, keeping the last checkpoint.
    claimLost?.addEventListener('abort', () => controller.abort(new StopRequest('shutdown')), { once: true });
    const done = runTask(engine, taskId, controller.signal).finally(() => engine.running.delete(taskId));
    engine.running.set(taskId, { controller, done });
    return done;
  });
  return engine;
}

/**
 * Queues every task storage says is still queued or running (left by a stopped or crashed instance), oldest
 * first. Called when the service has started (`host.onReady`): a resumed run may end within milliseconds and
 * needs what other plugins open in their start hooks (a signer's key, for its certificate).
 */
export async function resumeLeftTasks(engine: Engine): Promise<void> {
  const { services } = engine;
  const active = activeTasks(services.store);
  const left = await active.list();
  const tasks = (await Promise.all(left.map((taskId) => readTask(services.store, taskId)))).filter((task): task is TaskRecord => task !== null);
  tasks.sort((a, b) => a.created_at.localeCompare(b.created_at));
  // In order (one connection keeps the order of a shared queue's commands); a shared queue ignores ids it holds.
  // Each owner's tasks are ranked again from 1, oldest first, for fair dispatch.
  const ranks = new Map<string, number>();
  await Promise.all(tasks.map((task) => {
    const rank = (ranks.get(task.submitted_by ?? '') ?? 0) + 1;
    ranks.set(task.submitted_by ?? '', rank);
    return engine.queue.enqueue(task.task_id, { owner: task.submitted_by, rank });
  }));
  if (tasks.length) services.logger.info(`resuming ${tasks.length} unfinished evaluation task(s) from their handoff tokens`);
  // Markers of tasks whose record is gone would be retried forever.
  const resumed = new Set(tasks.map((task) => task.task_id));
  await Promise.all(left.filter((taskId) => !resumed.has(taskId)).map((taskId) => active.remove(taskId)));
  await sweepOwnerMarkers(services.store, resumed);
}

/** Stops taking tasks; running ones stop at their next await and resume at the next start. */
export async function stopEngine(engine: Engine): Promise<void> {
  for (const { controller } of engine.running.values()) controller.abort(new StopRequest('shutdown'));
  await engine.queue.close();
}
