/**
 * Work queued per key within this process: each job for a key starts when the previous one for that key has
 * settled (fulfilled or not), and jobs for different keys run side by side. Used for read-modify-write
 * sequences that a driver cannot make atomic, and for countersigning one run at a time.
 */
export type KeyedSerialiser = <T>(key: string, work: () => Promise<T>) => Promise<T>;

export function createKeyedSerialiser(): KeyedSerialiser {
  const tails = new Map<string, Promise<unknown>>();
  return function serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    tails.set(key, settled);
    // The map forgets a key once its last job settled, so it holds only keys with work in flight.
    void settled.then(() => {
      if (tails.get(key) === settled) tails.delete(key);
    });
    return next;
  };
}

/** Runs work with at most `limit` jobs in flight; the others wait, first come first served. */
export type Limiter = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * A limiter of `limit` (at least 1) jobs at once. With 1 it applies work strictly one job at a time, in the
 * order it was asked for: a task world's tool calls (one state, changed by one call after another).
 */
export function createLimiter(limit: number): Limiter {
  const waiting: Array<() => void> = [];
  let running = 0;
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async function limited<T>(work: () => Promise<T>): Promise<T> {
    // The slot a finishing job hands over is taken as it is handed over, so no late comer can overtake.
    if (running < Math.max(1, limit)) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      release();
    }
  };
}
