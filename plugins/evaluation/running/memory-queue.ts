/**
 * The in-process task queue, the engine's default when no registered queue accepts the configuration: at most
 * `concurrency` tasks at once, and a fair share between owners (round robin over principals, FIFO within each),
 * so that one principal's backlog cannot hold everyone else's evaluations back.
 */
import type { EnqueueOptions, MemoryQueueOptions, TaskQueue, TaskWorker } from '../../../core/tasks.ts';

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
