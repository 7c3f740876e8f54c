/**
 * SHA3-256 of large stored files off the request thread (issue 36): a small pool of Node `worker_threads`, each
 * opening the file itself and reading it synchronously in 64 KiB slices into one reused buffer, as `hashFileInto`
 * does in-thread (fs-hash.ts), and hashing it with node:crypto's SHA3-256, the runtime's native hash the request
 * thread uses too. Hashing 1 MiB is ~3 ms of CPU: in a worker it blocks neither the event loop nor the other
 * requests, and a second core hashes beside the first.
 *
 * The pool only ever declines (`undefined`, the caller hashes in-thread): when the file is small (a round trip
 * costs more than its hash), when the runtime has no usable worker_threads, or when a worker fails or dies. A
 * worker that outlives its budget is ended and the request answered 503, never left hanging. Workers are spawned
 * on first use, unref'd while idle (an idle pool never keeps the process alive), and ended by `close`.
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { Problem } from '../../core/problems.ts';

/** A file's SHA3-256 (lower-case hex) and byte count. */
export interface FileDigest {
  hex: string;
  bytes: number;
}

/** Options of `createHashPool`. */
export interface HashPoolOptions {
  /** Workers at most; 0 turns the pool off. Default: the cores `os.availableParallelism()` reports, at most 4. */
  size?: number;
  /** Files smaller than this are left to the caller (hashed in-thread). Default 256 KiB. */
  minBytes?: number;
  /** How long one file's hash may take in a worker before it is ended and the request refused. Default 60 s. */
  timeoutMs?: number;
  /** The worker's CommonJS source (tests give one that fails). Default WORKER_SOURCE. */
  source?: string;
}

/**
 * The worker: one message `{ id, path }` in, `{ id, hex, bytes }` or `{ id, code, message }` out. A short read of
 * one byte more than what remains proves the end, as in fs-hash.ts; a file that grows is read to its new end.
 */
export const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { openSync, fstatSync, readSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
const SLICE = 64 << 10;
const buffer = Buffer.allocUnsafeSlow(SLICE);
parentPort.on('message', ({ id, path }) => {
  let fd;
  try {
    fd = openSync(path, 'r');
    const stat = fstatSync(fd);
    if (!stat.isFile()) return parentPort.postMessage({ id, code: 'ENOENT', message: 'not a file' });
    const hash = createHash('sha3-256');
    let total = 0;
    for (;;) {
      const wanted = Math.min(Math.max(stat.size - total, 0) + 1, SLICE);
      const bytesRead = readSync(fd, buffer, 0, wanted, null);
      if (bytesRead > 0) hash.update(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (bytesRead < wanted) break;
    }
    parentPort.postMessage({ id, hex: hash.digest('hex'), bytes: total });
  } catch (error) {
    parentPort.postMessage({ id, code: String(error && error.code || ''), message: String(error && error.message || error) });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
});
`;

const MISSING = new Set(['ENOENT', 'EISDIR', 'ENOTDIR']);
/** Consecutive worker failures after which the pool stays off for the life of the store. */
const MAX_FAILURES = 3;

type Settle = (result: FileDigest | null | undefined, error?: Error) => void;
interface Job {
  id: number;
  path: string;
  settle: Settle;
}
interface Slot {
  worker: Worker;
  job: Job | null;
  timer: ReturnType<typeof setTimeout> | null;
}

/** What a worker answered, as the in-thread hash would have: a digest, `null` for a missing file, or an error. */
function outcome(message: { hex?: string; bytes?: number; code?: string; message?: string }): { result: FileDigest | null } | { error: Error } {
  if (typeof message.hex === 'string') return { result: { hex: message.hex, bytes: message.bytes ?? 0 } };
  if (message.code && MISSING.has(message.code)) return { result: null };
  return { error: Object.assign(new Error(message.message ?? 'hashing failed'), { code: message.code }) };
}

/** A pool's workers, its queue and its settings. */
interface PoolState {
  slots: Slot[];
  queue: Job[];
  failures: number;
  closed: boolean;
  size: number;
  timeoutMs: number;
  source: string;
  /** The runtime's Worker: `undefined` until first looked for, `null` when there is none. */
  Worker: typeof Worker | null | undefined;
}

function release(pool: PoolState, slot: Slot): void {
  if (slot.timer) clearTimeout(slot.timer);
  slot.timer = null;
  slot.job = null;
  slot.worker.unref();
  const next = pool.queue.shift();
  if (next) run(pool, slot, next);
}

/** A worker that died or errored: its job is hashed in-thread instead, and a pool that keeps failing stops. */
function drop(pool: PoolState, slot: Slot): void {
  const index = pool.slots.indexOf(slot);
  if (index < 0) return;
  pool.slots.splice(index, 1);
  if (slot.timer) clearTimeout(slot.timer);
  slot.job?.settle(undefined);
  slot.job = null;
  if (++pool.failures >= MAX_FAILURES) pool.closed = true;
  if (pool.closed) for (const job of pool.queue.splice(0)) job.settle(undefined);
  else if (pool.queue.length) dispatch(pool, pool.queue.shift()!);
}

function spawn(pool: PoolState, Constructor: typeof Worker): Slot | null {
  let worker: Worker;
  try {
    worker = new Constructor(pool.source, { eval: true });
  } catch {
    pool.closed = true;
    return null;
  }
  const slot: Slot = { worker, job: null, timer: null };
  worker.on('message', (message) => {
    const job = slot.job;
    if (!job || message?.id !== job.id) return;
    pool.failures = 0;
    const answer = outcome(message);
    release(pool, slot);
    if ('error' in answer) job.settle(undefined, answer.error);
    else job.settle(answer.result);
  });
  worker.on('error', () => drop(pool, slot));
  worker.on('exit', () => drop(pool, slot));
  pool.slots.push(slot);
  return slot;
}

function run(pool: PoolState, slot: Slot, job: Job): void {
  slot.job = job;
  // Referenced while it works, so a one-shot command waits for its answer.
  slot.worker.ref();
  slot.timer = setTimeout(() => {
    pool.slots.splice(pool.slots.indexOf(slot), 1);
    slot.job = null;
    void slot.worker.terminate();
    job.settle(undefined, new Problem('unavailable', { detail: `hashing a stored file took longer than ${pool.timeoutMs / 1000} s; try again later` }));
    const next = pool.queue.shift();
    if (next) dispatch(pool, next);
  }, pool.timeoutMs);
  slot.worker.postMessage({ id: job.id, path: job.path });
}

function dispatch(pool: PoolState, job: Job): void {
  const idle = pool.slots.find((slot) => !slot.job);
  if (idle) return run(pool, idle, job);
  if (pool.slots.length < pool.size && pool.Worker) {
    const slot = spawn(pool, pool.Worker);
    return slot ? run(pool, slot, job) : job.settle(undefined);
  }
  pool.queue.push(job);
}

async function loadWorker(pool: PoolState): Promise<typeof Worker | null> {
  if (pool.Worker !== undefined) return pool.Worker;
  try {
    pool.Worker = (await import('node:worker_threads')).Worker ?? null;
  } catch {
    pool.Worker = null; // a runtime without worker_threads: every file is hashed in-thread
  }
  return pool.Worker;
}

/** A pool of hashing workers; `sha3(path)` answers `undefined` whenever the caller should hash in-thread. */
export function createHashPool({ size = Math.min(availableParallelism(), 4), minBytes = 256 << 10, timeoutMs = 60_000, source = WORKER_SOURCE }: HashPoolOptions = {}) {
  const pool: PoolState = { slots: [], queue: [], failures: 0, closed: size <= 0, size, timeoutMs, source, Worker: undefined };
  let nextId = 0;
  return {
    /** SHA3-256 of the file at `path` (already inside the store's jail), or `undefined`: hash it in-thread. */
    async sha3(path: string): Promise<FileDigest | null | undefined> {
      if (pool.closed) return undefined;
      let stat;
      try {
        stat = statSync(path, { throwIfNoEntry: false });
      } catch {
        return undefined; // the in-thread hash reports it as it always did
      }
      if (!stat?.isFile() || stat.size < minBytes) return undefined;
      // Closed meanwhile: no worker is spawned after close.
      if (!(await loadWorker(pool)) || pool.closed) return undefined;
      return new Promise<FileDigest | null | undefined>((resolve, reject) => {
        dispatch(pool, { id: nextId++, path, settle: (result, error) => (error ? reject(error) : resolve(result)) });
      });
    },
    /** Ends every worker; files in flight or queued are left to their callers to hash in-thread. */
    async close(): Promise<void> {
      pool.closed = true;
      for (const job of pool.queue.splice(0)) job.settle(undefined);
      const ending = pool.slots.splice(0);
      for (const slot of ending) {
        if (slot.timer) clearTimeout(slot.timer);
        slot.job?.settle(undefined);
        slot.job = null;
      }
      await Promise.all(ending.map((slot) => slot.worker.terminate()));
    },
  };
}

/** A store's hashing pool. */
export type HashPool = ReturnType<typeof createHashPool>;
