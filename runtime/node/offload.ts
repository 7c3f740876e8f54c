/**
 * The offload capability on Node, Deno and Bun (`node:worker_threads`): a small pool of workers that run
 * CPU-bound jobs (metrics, spec-to-eval) off the request thread, each under a wall-clock budget. A job past
 * its budget has its worker terminated (the only way to stop a synchronous loop or a backtracking regex) and
 * rejects with `OffloadBudgetError`; the next job starts a fresh worker. Workers start on first use and are
 * unref'd, so the pool never keeps a process alive by itself (a running job's budget timer does).
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { OffloadBudgetError, type Logger, type Offload, type OffloadJob } from '../../core/capabilities.ts';
import { Problem, PROBLEM_CATALOGUE, type ProblemCode } from '../../core/problems.ts';

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
}

interface Pending {
  job: OffloadJob;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  running?: { id: number; pending: Pending; timer: ReturnType<typeof setTimeout>; onAbort?: () => void };
}

interface Reply {
  ready?: boolean;
  id?: number;
  ok?: boolean;
  value?: unknown;
  error?: { name?: string; message?: string; code?: string; detail?: string; extra?: Record<string, unknown>; errors?: [] };
}

const workerUrl = new URL(`./offload-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

function startWorker(typescript: 'tsx' | 'native'): Worker {
  if (!workerUrl.pathname.endsWith('.ts') || typescript === 'native') return new Worker(workerUrl);
  // Node 20 runs no TypeScript: the worker registers tsx's loader, then imports its entry (and, through the
  // same loader, the .ts modules its jobs name).
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  const code = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(workerUrl.href)}); })`;
  return new Worker(code, { eval: true });
}

/** The job's error as it was thrown in the worker: a `Problem` keeps its code and members. */
function rebuildError(error: Reply['error'] = {}): Error {
  if (error.name === 'Problem' && error.code && error.code in PROBLEM_CATALOGUE) {
    return new Problem(error.code as ProblemCode, { detail: error.detail, extra: error.extra, errors: error.errors });
  }
  const rebuilt = new Error(error.message ?? 'the job failed');
  rebuilt.name = error.name ?? 'Error';
  return rebuilt;
}

/** A pool of `size` workers running offload jobs, each under its budget. */
export function createWorkerPool(options: WorkerPoolOptions): Offload {
  const { size, typescript = 'tsx', logger } = options;
  const slots: Slot[] = [];
  const queue: Pending[] = [];
  let nextId = 1;
  let closed = false;

  const retire = (slot: Slot) => {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    void slot.worker.terminate();
  };

  const finish = (slot: Slot) => {
    const running = slot.running!;
    clearTimeout(running.timer);
    if (running.onAbort) running.pending.job.signal?.removeEventListener('abort', running.onAbort);
    slot.running = undefined;
    return running.pending;
  };

  const start = (slot: Slot, pending: Pending) => {
    const { job } = pending;
    const id = nextId++;
    const timer = setTimeout(() => {
      finish(slot).reject(new OffloadBudgetError(job.budgetMs));
      retire(slot);
      pump();
    }, job.budgetMs);
    let onAbort: (() => void) | undefined;
    if (job.signal) {
      onAbort = () => {
        finish(slot).reject(job.signal!.reason);
        retire(slot);
        pump();
      };
      job.signal.addEventListener('abort', onAbort, { once: true });
    }
    slot.running = { id, pending, timer, onAbort };
    slot.worker.postMessage({ id, module: job.module, name: job.name, input: job.input });
  };

  const spawn = (): Slot => {
    const slot: Slot = { worker: startWorker(typescript), ready: false };
    // Never holds the process open by itself; a running job's budget timer does, which is what a caller needs.
    slot.worker.unref();
    slot.worker.on('message', (reply: Reply) => {
      if (reply.ready) {
        slot.ready = true;
        pump();
        return;
      }
      if (!slot.running || slot.running.id !== reply.id) return;
      const pending = finish(slot);
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(rebuildError(reply.error));
      pump();
    });
    const stopped = (reason: string) => {
      if (!slots.includes(slot)) return;
      slots.splice(slots.indexOf(slot), 1);
      if (slot.running) finish(slot).reject(new Error(`the offload worker stopped: ${reason}`));
      else if (!slot.ready) {
        // A worker that cannot even start would fail every job the same way: fail the queue, say why once.
        logger?.error(`offload worker could not start: ${reason}`);
        for (const pending of queue.splice(0)) {
          const unavailable = new Error(`the offload worker could not start: ${reason}`);
          unavailable.name = 'OffloadUnavailable';
          pending.reject(unavailable);
        }
        return;
      }
      pump();
    };
    slot.worker.on('error', (error) => stopped(error.message));
    slot.worker.on('exit', (code) => stopped(`exit code ${code}`));
    slots.push(slot);
    return slot;
  };

  function pump(): void {
    while (queue.length && !closed) {
      const pending = queue[0];
      if (pending.job.signal?.aborted) {
        queue.shift();
        pending.reject(pending.job.signal.reason);
        continue;
      }
      const idle = slots.find((slot) => slot.ready && !slot.running);
      if (idle) {
        queue.shift();
        start(idle, pending);
        continue;
      }
      const starting = slots.filter((slot) => !slot.ready).length;
      if (slots.length < size && starting < queue.length) {
        spawn();
        continue;
      }
      return;
    }
  }

  return {
    size,
    run(job) {
      if (closed) return Promise.reject(new Error('the offload pool is closed'));
      return new Promise((resolve, reject) => {
        queue.push({ job, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const pending of queue.splice(0)) pending.reject(new Error('the offload pool is closed'));
      await Promise.all(slots.splice(0).map((slot) => {
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
