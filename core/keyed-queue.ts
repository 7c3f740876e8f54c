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
