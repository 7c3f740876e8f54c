/**
 * Appends for the memory store without copying the whole value each time: unstorage has no append, and the
 * store's fallback reads the value, concatenates and writes it back, so a trace of N appends cost O(N²) bytes
 * copied (issue 36). Here a value appended to lives in a buffer that grows by doubling, and the store holds a
 * view of its filled part: an append copies its own bytes (amortised), and a view once handed out never changes,
 * since later bytes go past its end. A value written or removed otherwise (its stored view is no longer ours)
 * starts a new buffer from what is stored.
 */
import type { Storage as Unstorage } from 'unstorage';
import { storageKey } from './unstorage-store.ts';
import { createKeyedSerialiser } from '../../core/keyed-queue.ts';

/** How many values keep their growing buffer; past it the oldest is forgotten (its next append copies it once). */
const KEPT = 1024;

interface Growing {
  buffer: Uint8Array;
  length: number;
  view: Uint8Array;
}

const asBytes = (value: unknown): Uint8Array => (value instanceof Uint8Array ? value : typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array());

/** The `append` capability of the memory store over `raw`. */
export function createMemoryAppend(raw: Unstorage): (key: string, bytes: Uint8Array) => Promise<void> {
  const growing = new Map<string, Growing>();
  // One append at a time per key, as the store's read-modify-write fallback was: each reads what the last wrote.
  const serialised = createKeyedSerialiser();
  return (key, bytes) => serialised(key, async () => {
    const checked = storageKey(key);
    const stored = await raw.getItemRaw(checked);
    let entry = growing.get(checked);
    growing.delete(checked);
    if (!entry || entry.view !== stored) {
      const existing = stored === null || stored === undefined ? new Uint8Array() : asBytes(stored);
      entry = { buffer: new Uint8Array(Math.max(256, 2 * (existing.length + bytes.length))), length: existing.length, view: existing };
      entry.buffer.set(existing);
    } else if (entry.length + bytes.length > entry.buffer.length) {
      const larger = new Uint8Array(2 * (entry.length + bytes.length));
      larger.set(entry.buffer.subarray(0, entry.length));
      entry.buffer = larger;
    }
    entry.buffer.set(bytes, entry.length);
    entry.length += bytes.length;
    entry.view = entry.buffer.subarray(0, entry.length);
    // Most recently appended last, so the first key is the one appended to longest ago.
    growing.set(checked, entry);
    if (growing.size > KEPT) growing.delete(growing.keys().next().value!);
    await raw.setItemRaw(checked, entry.view);
  });
}
