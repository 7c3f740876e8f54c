/**
 * One principal's reservations, one at a time (issue 25 item 11): a quota check and the write that takes the
 * place must be one step, or parallel submissions all read "2 of 3" and all get in. Within this process a queue
 * per principal orders them; across instances sharing a store (Redis) a short lock in the store does too. The
 * lock is a pair of time slots claimed with `setIfAbsent` (as a suite's launch lease is), so a holder that died
 * blocks the principal for two slots at most, on any store, with or without expiry.
 */
import type { Store } from '../../../core/storage.ts';
import { Problem } from '../../../core/problems.ts';
import { createKeyedSerialiser, type KeyedSerialiser } from '../../../core/keyed-queue.ts';
import { storeIsProcessLocal } from '../../../core/domain/store-locality.ts';

/** One slot of the store lock; a reservation takes milliseconds. */
const LOCK_SLOT_MS = 5_000;
/** The longest a reservation waits for the lock: past two slots, a dead holder's slots have passed. */
const LOCK_WAIT_MS = 3 * LOCK_SLOT_MS;
const queues = new WeakMap<Store, KeyedSerialiser>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Claims the store lock of `key` (the present slot and the next); its release. */
async function storeLock(store: Store, key: string, now: () => number): Promise<() => Promise<void>> {
  const token = crypto.randomUUID();
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    const slot = Math.floor(now() / LOCK_SLOT_MS);
    const slots = [`locks/principal/${key}/${slot}`, `locks/principal/${key}/${slot + 1}`];
    const ttl = Math.ceil((3 * LOCK_SLOT_MS) / 1000);
    if (await store.setIfAbsent(slots[0]!, token, ttl)) {
      if (await store.setIfAbsent(slots[1]!, token, ttl)) return async () => { await Promise.all(slots.map((slotKey) => store.remove(slotKey))); };
      await store.remove(slots[0]!);
    }
    if (performance.now() > deadline) throw new Problem('unavailable', { detail: 'your queue quota could not be checked just now; retry in a moment', headers: { 'Retry-After': '1' } });
    await sleep(wait + Math.random() * wait);
  }
}

/**
 * Runs `work` as the only reservation of `key` (a principal's storage-safe key) under way in this process and,
 * on a store shared by instances, anywhere.
 */
export function withPrincipalLock<T>(store: Store, key: string, now: () => number, work: () => Promise<T>): Promise<T> {
  let queue = queues.get(store);
  if (!queue) queues.set(store, (queue = createKeyedSerialiser()));
  return queue(key, async () => {
    if (storeIsProcessLocal(store)) return work();
    const release = await storeLock(store, key, now);
    try {
      return await work();
    } finally {
      await release().catch(() => undefined);
    }
  });
}
