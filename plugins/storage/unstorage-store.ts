/**
 * A `Store` over an unstorage instance, shared by the bundled drivers (memory, fs, Redis, Cloudflare KV):
 * slash keys on unstorage's colon keys, bytes, JSON, appends, streams and counters, with the driver's
 * `StoreCapabilities` where it has them and read-modify-write (serialised per key) where it has not.
 */
import type { Storage as Unstorage } from 'unstorage';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import type { Store, StoreCapabilities } from '../../core/storage.ts';
import type { IncrementalHash } from '../../core/capabilities.ts';
import { createKeyedSerialiser } from '../../core/keyed-queue.ts';
import { parseJson } from '../../core/guards/json.ts';
import { createBatchedIncrement } from './batched-increment.ts';

/**
 * A path of plain segments (letters, digits, `_`, `-`, `.`; no empty one), as nearly every key is: it needs no
 * filtering, only the `.` and `..` check (issue 36: the general form cost ~2 µs a key, dozens of keys a run).
 */
const PLAIN_PATH = /^[\w.-]+(?:\/[\w.-]+)*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

/** Maps a slash path to an unstorage key, refusing segments that could escape a folder. */
export function storageKey(path: string): string {
  if (PLAIN_PATH.test(path)) {
    if (DOT_SEGMENT.test(path)) throw new Error(`invalid storage key segment "${path.split('/').find((segment) => segment === '.' || segment === '..')}"`);
    return path.replaceAll('/', ':');
  }
  const segments = path.split('/').filter((segment) => segment.length > 0);
  for (const segment of segments) {
    if (segment === '.' || segment === '..' || segment.includes(':') || segment.includes('?') || segment.includes('\\') || segment.includes('\0')) {
      throw new Error(`invalid storage key segment "${segment}"`);
    }
  }
  return segments.join(':');
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A value as unstorage hands it back (bytes, a string, a Buffer's JSON) as plain bytes. */
export function toBytes(value: unknown): Uint8Array | null {
  if (value === null || value === undefined) return null;
  // Node Buffers are Uint8Array subclasses; hand out plain views so callers see one type whatever the driver.
  if (value instanceof Uint8Array) return value.constructor === Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof value === 'string') return encoder.encode(value);
  // Some drivers hand back Node Buffers as JSON ({type:'Buffer',data:[…]}) after a round trip.
  if (typeof value === 'object' && Array.isArray((value as { data?: unknown }).data)) return Uint8Array.from((value as { data: number[] }).data);
  return encoder.encode(JSON.stringify(value));
}

/** A value's bytes as a stream of 64 KiB chunks, for drivers that cannot stream. */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const chunk = 64 * 1024;
      for (let offset = 0; offset < bytes.length; offset += chunk) controller.enqueue(bytes.subarray(offset, offset + chunk));
      controller.close();
    },
  });
}

/** Feeds a stream into `hash`; the byte count. */
async function hashStream(stream: ReadableStream<Uint8Array>, hash: IncrementalHash): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return bytes;
}

// Read-modify-write fallbacks for drivers without the capability; the caller serialises them per key.

async function appendByRewrite(store: Store, key: string, bytes: Uint8Array): Promise<void> {
  const existing = (await store.getBytes(key)) ?? new Uint8Array();
  await store.setBytes(key, concatBytes(existing, bytes));
}

async function incrementByRewrite(store: Store, key: string, by: number): Promise<number> {
  const current = Number((await store.getJson<number>(key)) ?? 0);
  const next = current + by;
  await store.setJson(key, next);
  return next;
}

async function setIfAbsentByRewrite(store: Store, key: string, value: string): Promise<boolean> {
  if (await store.has(key)) return false;
  await store.setBytes(key, encoder.encode(value));
  return true;
}

/** `Store.sha3`: off the request thread when the driver takes the value, else through `hashInto` here. */
async function sha3Of(store: Store, capabilities: StoreCapabilities, key: string, sha3: () => IncrementalHash): Promise<string | null> {
  const offThread = await capabilities.sha3OffThread?.(key);
  if (offThread !== undefined) return offThread && offThread.hex;
  const hash = sha3();
  return (await store.hashInto(key, hash)) === null ? null : bytesToHex(hash.digest());
}

/**
 * Builds a `Store` over an unstorage instance, using the driver's capabilities where given and safe
 * read-modify-write fallbacks otherwise (serialised per key within this process).
 */
export function createStore(driver: string, raw: Unstorage, capabilities: StoreCapabilities = {}): Store {
  const serialised = createKeyedSerialiser();
  const incrementBatched = createBatchedIncrement(serialised, (key, by) => incrementByRewrite(store, key, by));

  async function getBytes(key: string): Promise<Uint8Array | null> {
    if (capabilities.read) return capabilities.read(key);
    return toBytes(await raw.getItemRaw(storageKey(key)));
  }
  async function setBytes(key: string, bytes: Uint8Array): Promise<void> {
    if (capabilities.writeAtomic) return capabilities.writeAtomic(key, bytes);
    await raw.setItemRaw(storageKey(key), bytes);
  }

  const store: Store = {
    driver,
    raw,
    async getJson<T>(key: string): Promise<T | null> {
      const bytes = await getBytes(key);
      // parseJson: a corrupt value's error must not quote it (stored keys and secrets included) into a log.
      return bytes ? (parseJson(decoder.decode(bytes)) as T) : null;
    },
    setJson(key, value) {
      return setBytes(key, encoder.encode(JSON.stringify(value)));
    },
    getBytes,
    setBytes,
    append(key, bytes) {
      if (capabilities.append) return capabilities.append(key, bytes);
      return serialised(key, () => appendByRewrite(store, key, bytes));
    },
    async stream(key) {
      if (capabilities.stream) return capabilities.stream(key);
      const bytes = await getBytes(key);
      return bytes ? streamOf(bytes) : null;
    },
    async size(key) {
      if (capabilities.size) return capabilities.size(key);
      const bytes = await getBytes(key);
      return bytes ? bytes.length : null;
    },
    fingerprint: async (key) => (capabilities.fingerprint ? capabilities.fingerprint(key) : null),
    async hashInto(key, hash) {
      if (capabilities.hashInto) return capabilities.hashInto(key, hash);
      const stream = await store.stream(key);
      return stream ? hashStream(stream, hash) : null;
    },
    sha3: (key, sha3) => sha3Of(store, capabilities, key, sha3),
    async has(key) {
      return raw.hasItem(storageKey(key));
    },
    async remove(key) {
      await raw.removeItem(storageKey(key));
    },
    async keys(prefix) {
      const base = storageKey(prefix);
      if (capabilities.keys) return capabilities.keys(base.split(':').join('/'));
      const found = await raw.getKeys(base);
      return found.map((key) => key.split(':').join('/'));
    },
    increment(key, by = 1, ttlSeconds) {
      if (capabilities.increment) return capabilities.increment(key, by, ttlSeconds);
      return incrementBatched(key, by);
    },
    setIfAbsent(key, value, ttlSeconds) {
      if (capabilities.setIfAbsent) return capabilities.setIfAbsent(key, value, ttlSeconds);
      return serialised(key, () => setIfAbsentByRewrite(store, key, value));
    },
    async freeBytes() {
      return capabilities.freeBytes ? capabilities.freeBytes() : null;
    },
    async close() {
      await capabilities.close?.();
      await raw.dispose();
    },
  };
  return store;
}
