/**
 * Counters on a driver without an atomic increment: each update is a read and an atomic write of the whole
 * value, one at a time per key (on the fs store the write is a temp file, an fsync and a rename, ~0.35 ms of CPU).
 * Increments that arrive while one is being written are added up and written together once it is done, so a
 * burst of N costs two writes instead of N (issue 36: a quota counter is written at every submission and
 * every finished run). Each caller still resolves only once a write holding its own increment is stored, and
 * gets the value the counter had just after its increment, as if the increments had been applied one by one.
 */
import type { KeyedSerialiser } from '../../core/keyed-queue.ts';

/** Adds `by` to the counter `key` and returns its new value (a read-modify-write of the whole value). */
export type RewriteIncrement = (key: string, by: number) => Promise<number>;

/** The increments of a key waiting for the write under way to finish, applied as one. */
interface Batch {
  total: number;
  written?: Promise<number>;
}

/**
 * Batches `rewrite` per key behind `serialised` (the serialiser of the store's other read-modify-writes, so an
 * increment never interleaves with them on one key).
 */
export function createBatchedIncrement(serialised: KeyedSerialiser, rewrite: RewriteIncrement): RewriteIncrement {
  const waiting = new Map<string, Batch>();
  return (key, by) => {
    let batch = waiting.get(key);
    if (!batch) waiting.set(key, (batch = { total: 0 }));
    const through = (batch.total += by);
    const joined = batch;
    // The serialiser starts work on a later microtask at the earliest, so increments of this tick join too;
    // the batch closes when its write starts, and later increments wait for the next one.
    joined.written ??= serialised(key, () => {
      if (waiting.get(key) === joined) waiting.delete(key);
      return rewrite(key, joined.total);
    });
    return joined.written.then((after) => after - joined.total + through);
  };
}
