/**
 * The offload capability on Node, Deno and Bun (`node:worker_threads`): a small pool of workers that run
 * CPU-bound jobs (metrics, spec-to-eval) off the request thread, each under a wall-clock budget. A job past
 * its budget has its worker terminated (the only way to stop a synchronous loop or a backtracking regex) and
 * rejects with `OffloadBudgetError`; the next job starts a fresh worker. Workers start on first use and are
 * unref'd, so the pool never keeps a process alive by itself (a running job's budget timer does).
 *
 * A budget counts the worker thread's CPU time where the platform reports it (Linux, thread-cpu.ts), so a job
 * that load alone slowed down is not stopped: when the timer fires, a job that used less CPU than its budget
 * gets the rest. `WALL_FACTOR` times the budget in wall-clock time stops it whatever its CPU (a worker blocked,
 * or starved past any sense). Elsewhere the budget is wall-clock time. A cold worker's loading allowance is
 * wall-clock everywhere: a loader that hangs uses no CPU.
 */
import { Worker } from 'node:worker_threads';
import { OffloadBudgetError, type Logger, type Offload, type OffloadJob } from '../../core/capabilities.ts';
import { Problem, PROBLEM_CATALOGUE, type ProblemCode } from '../../core/problems.ts';
import { createFairQueue, type FairQueue } from './fair-queue.ts';
import { startModuleWorker } from './module-worker.ts';
import { threadCpuMs } from './thread-cpu.ts';

/** Options of `createWorkerPool`. */
export interface WorkerPoolOptions {
  /** Number of workers, at least 1 (`AEH_METRIC_WORKERS`; the default is min(2, cores)). */
  size: number;
  /**
   * How a worker started from TypeScript sources loads them: through tsx on Node (the default), natively on
   * Deno and Bun. Compiled code (dist/) needs neither.
   */
  typescript?: 'tsx' | 'native';
  logger?: Logger;
  /** Called as each job starts on a worker, with its group (telemetry; the fairness tests watch it). */
  onStart?(job: OffloadJob): void;
  /** How long a new worker may take to say it is ready (default `START_TIMEOUT_MS`). */
  startTimeoutMs?: number;
  /** The module each worker runs (default `./offload-worker`); tests start one that never gets ready. */
  workerUrl?: URL;
}

interface Pending {
  job: OffloadJob;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Where the worker's thread CPU time is read (thread-cpu.ts), once it said so. */
  cpuStat?: string;
  /** Until the worker says it is ready: past it, the worker is taken for one that cannot start. */
  startTimer?: ReturnType<typeof setTimeout>;
  running?: { id: number; pending: Pending; timer: ReturnType<typeof setTimeout>; onAbort?: () => void };
}

interface Reply {
  ready?: boolean;
  /** With `ready`: the worker thread's stat file, when it has one. */
  cpuStat?: string;
  /** The running job finished preparing (`OffloadJob.setupMs`): its own budget starts. */
  started?: boolean;
  /** The worker is loading the job's modules (allowed `LOAD_TIMEOUT_MS`), then has `loaded` them: the budget starts. */
  loading?: boolean;
  loaded?: boolean;
  id?: number;
  ok?: boolean;
  value?: unknown;
  error?: { name?: string; message?: string; code?: string; detail?: string; extra?: Record<string, unknown>; errors?: [] };
}

const WORKER_URL = new URL(`./offload-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

/** The job's error as it was thrown in the worker: a `Problem` keeps its code and members. */
function rebuildError(error: Reply['error'] = {}): Error {
  if (error.name === 'Problem' && error.code && error.code in PROBLEM_CATALOGUE) {
    return new Problem(error.code as ProblemCode, { detail: error.detail, extra: error.extra, errors: error.errors });
  }
  // A job that ran out of stack or memory on what it was given (nesting, sizes past the entry checks) is the
  // input's doing: a problem the caller reads (422), never a 500 (issue 33 item 4).
  if (error.name === 'RangeError') return new Problem('budget_exceeded', { detail: `the work could not be done within the worker's limits: ${(error.message ?? 'RangeError').slice(0, 200)}` });
  const rebuilt = new Error(error.message ?? 'the job failed');
  rebuilt.name = error.name ?? 'Error';
  return rebuilt;
}

/** A pool's state: its workers (slots), the jobs waiting for one, and whether it is closed. */
interface Pool {
  size: number;
  typescript: 'tsx' | 'native';
  logger?: Logger;
  slots: Slot[];
  /** Jobs waiting for a worker, served in turn by group (`OffloadJob.group`). */
  queue: FairQueue<Pending>;
  onStart?(job: OffloadJob): void;
  nextId: number;
  closed: boolean;
  startTimeoutMs: number;
  workerUrl: URL;
}

/** Takes a worker out of the pool and terminates it. */
function retire(pool: Pool, slot: Slot): void {
  const index = pool.slots.indexOf(slot);
  if (index >= 0) pool.slots.splice(index, 1);
  void slot.worker.terminate();
}

/** Ends the slot's running job (its timer and abort listener) and returns it, to be settled. */
function finish(slot: Slot): Pending {
  const running = slot.running!;
  clearTimeout(running.timer);
  if (running.onAbort) running.pending.job.signal?.removeEventListener('abort', running.onAbort);
  slot.running = undefined;
  return running.pending;
}

/** How long a cold worker may take to load a job's modules before the job fails (as past its budget). */
const LOAD_TIMEOUT_MS = 60_000;
/**
 * How long a new worker may take to say it is ready. One that never does (a loader that deadlocked, a thread
 * starved for good) would otherwise hold every queued job forever, as no budget runs before a job starts
 * (issue 36: a suite that never finished); past it, it is taken for a worker that cannot start.
 */
export const START_TIMEOUT_MS = 60_000;

/** A job may take this many times its budget in wall-clock time, whatever CPU it used (see above). */
export const WALL_FACTOR = 10;
/** The shortest wait before the CPU used is read again (/proc counts in 10 ms steps). */
const RECHECK_MIN_MS = 20;

/**
 * Past `job.budgetMs` (or `ms`) of the worker's CPU time from now (wall-clock time where that is not known, or
 * with `wall`), the job fails with `OffloadBudgetError` and its worker is retired.
 */
function budgetTimer(pool: Pool, slot: Slot, job: OffloadJob, ms = job.budgetMs, wall = false): ReturnType<typeof setTimeout> {
  const cpuStart = wall ? undefined : threadCpuMs(slot.cpuStat);
  const wallEnd = Date.now() + ms * WALL_FACTOR;
  const expire = () => {
    if (!slot.running) return;
    if (cpuStart !== undefined) {
      const used = threadCpuMs(slot.cpuStat);
      const left = used === undefined ? 0 : Math.min(ms - (used - cpuStart), wallEnd - Date.now());
      if (left > 0) {
        slot.running.timer = setTimeout(expire, Math.max(left, RECHECK_MIN_MS));
        return;
      }
    }
    finish(slot).reject(new OffloadBudgetError(job.budgetMs));
    retire(pool, slot);
    pump(pool);
  };
  return setTimeout(expire, ms);
}

/** Sends a job to an idle worker, under its budget and its abort signal: either retires the worker. */
function startJob(pool: Pool, slot: Slot, pending: Pending): void {
  const { job } = pending;
  const id = pool.nextId++;
  // A job that prepares first (`setupMs`) has that long until it says `started`; any other, its budget.
  const timer = budgetTimer(pool, slot, job, job.setupMs);
  let onAbort: (() => void) | undefined;
  if (job.signal) {
    onAbort = () => {
      finish(slot).reject(job.signal!.reason);
      retire(pool, slot);
      pump(pool);
    };
    job.signal.addEventListener('abort', onAbort, { once: true });
  }
  slot.running = { id, pending, timer, onAbort };
  pool.onStart?.(job);
  slot.worker.postMessage({ id, module: job.module, name: job.name, input: job.input, ...(job.preload ? { preload: job.preload } : {}) });
}

/** A worker's message: it is ready, or the reply to its running job. */
function onReply(pool: Pool, slot: Slot, reply: Reply): void {
  if (reply.ready) {
    clearTimeout(slot.startTimer);
    slot.ready = true;
    slot.cpuStat = reply.cpuStat;
    pump(pool);
    return;
  }
  if (!slot.running || slot.running.id !== reply.id) return;
  if (reply.loading || reply.loaded || reply.started) {
    // A cold worker's loading is not the job's work: it gets its own allowance, and the budget starts after it. A
    // job that prepares further (`setupMs`: metrics warming their caches) gets that too, until it says `started`.
    const { job } = slot.running.pending;
    clearTimeout(slot.running.timer);
    const allowance = reply.loading ? LOAD_TIMEOUT_MS : reply.loaded && job.setupMs !== undefined ? job.setupMs : undefined;
    slot.running.timer = budgetTimer(pool, slot, job, allowance, reply.loading);
    return;
  }
  const pending = finish(slot);
  if (reply.ok) pending.resolve(reply.value);
  else pending.reject(rebuildError(reply.error));
  pump(pool);
}

/** A worker stopped (error or exit): its job fails; a worker that never started fails the whole queue. */
function onStopped(pool: Pool, slot: Slot, reason: string): void {
  if (!pool.slots.includes(slot)) return;
  pool.slots.splice(pool.slots.indexOf(slot), 1);
  clearTimeout(slot.startTimer);
  if (slot.running) finish(slot).reject(new Error(`the offload worker stopped: ${reason}`));
  else if (!slot.ready) {
    // A worker that cannot even start would fail every job the same way: fail the queue, say why once.
    pool.logger?.error(`offload worker could not start: ${reason}`);
    for (const pending of pool.queue.drain()) {
      const unavailable = new Error(`the offload worker could not start: ${reason}`);
      unavailable.name = 'OffloadUnavailable';
      pending.reject(unavailable);
    }
    return;
  }
  pump(pool);
}

function spawn(pool: Pool): Slot {
  const slot: Slot = { worker: startModuleWorker(pool.workerUrl, {}, pool.typescript), ready: false };
  // Never holds the process open by itself; a running job's budget timer does, which is what a caller needs.
  slot.worker.unref();
  slot.worker.on('message', (reply: Reply) => onReply(pool, slot, reply));
  slot.worker.on('error', (error) => onStopped(pool, slot, error.message));
  slot.worker.on('exit', (code) => onStopped(pool, slot, `exit code ${code}`));
  // Neither ready nor stopped in time: stopped here, and the jobs waiting for it fail as `OffloadUnavailable`
  // (their callers run them inline), instead of waiting for a message that may never come.
  slot.startTimer = setTimeout(() => {
    onStopped(pool, slot, `it did not become ready within ${pool.startTimeoutMs} ms`);
    void slot.worker.terminate();
  }, pool.startTimeoutMs);
  slot.startTimer.unref?.();
  pool.slots.push(slot);
  return slot;
}

/** Starts queued jobs on idle workers, dropping aborted ones, and spawns workers while the queue needs them. */
function pump(pool: Pool): void {
  const { slots, queue } = pool;
  while (queue.size && !pool.closed) {
    const pending = queue.peek()!;
    if (pending.job.signal?.aborted) {
      queue.shift();
      pending.reject(pending.job.signal.reason);
      continue;
    }
    const idle = slots.find((slot) => slot.ready && !slot.running);
    if (idle) {
      queue.shift();
      startJob(pool, idle, pending);
      continue;
    }
    const starting = slots.filter((slot) => !slot.ready).length;
    if (slots.length < pool.size && starting < queue.size) {
      spawn(pool);
      continue;
    }
    return;
  }
}

/** A pool of `size` workers running offload jobs, each under its budget; waiting groups take turns. */
export function createWorkerPool(options: WorkerPoolOptions): Offload {
  const { size, typescript = 'tsx', logger, onStart, startTimeoutMs = START_TIMEOUT_MS, workerUrl = WORKER_URL } = options;
  const pool: Pool = { size, typescript, logger, slots: [], queue: createFairQueue(), onStart, nextId: 1, closed: false, startTimeoutMs, workerUrl };
  return {
    size,
    run(job) {
      if (pool.closed) return Promise.reject(new Error('the offload pool is closed'));
      return new Promise((resolve, reject) => {
        pool.queue.push(job.group ?? '', { job, resolve, reject });
        pump(pool);
      });
    },
    async close() {
      pool.closed = true;
      for (const pending of pool.queue.drain()) pending.reject(new Error('the offload pool is closed'));
      await Promise.all(pool.slots.splice(0).map((slot) => {
        clearTimeout(slot.startTimer);
        if (slot.running) finish(slot).reject(new Error('the offload pool is closed'));
        return slot.worker.terminate();
      }));
    },
  };
}

/**
 * The pool the environment asks for: `AEH_METRIC_WORKERS` workers (default min(2, cores); 0 runs every job
 * inline, on the request thread, with no budget for synchronous work).
 */
export function workerPoolFromEnv(env: Record<string, string | undefined>, cores: number, typescript: 'tsx' | 'native', logger?: Logger): Offload | undefined {
  const raw = env.AEH_METRIC_WORKERS?.trim();
  const size = raw ? Number(raw) : Math.min(2, Math.max(1, cores));
  if (!/^\d{1,3}$/.test(raw ?? '0') || !Number.isInteger(size) || size > 64) {
    throw new Error(`AEH_METRIC_WORKERS must be an integer from 0 to 64, got "${raw}"`);
  }
  return size > 0 ? createWorkerPool({ size, typescript, logger }) : undefined;
}
