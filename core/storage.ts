/**
 * The storage extension point. State lives in unstorage; a driver plugin builds a `Store` for one scheme
 * (`fs`, `memory`, `redis`). Keys are slash paths (`runs/<run_id>/certificate.json`), mapped onto unstorage's
 * colon keys, so the `fs` driver lays files out exactly as the contract's "Data on disk" section says.
 *
 * unstorage has no append, no streams and no atomic writes; drivers that can do better supply them as
 * `StoreCapabilities`, and the core falls back to read-modify-write where they cannot.
 */
import type { Storage as Unstorage } from 'unstorage';
import { concatBytes } from '@noble/hashes/utils.js';
import type { Config } from './config.ts';
import type { IncrementalHash } from './capabilities.ts';
import { createKeyedSerialiser } from './keyed-queue.ts';
import { parseJson } from './json.ts';

/** Optional, driver-specific abilities that unstorage does not offer. */
export interface StoreCapabilities {
  /** Replaces a value so that readers see the old or the new bytes, never a mix (temp file, then rename). */
  writeAtomic?(key: string, bytes: Uint8Array): Promise<void>;
  /** Reads a value's exact bytes (for drivers whose unstorage driver has no raw read). */
  read?(key: string): Promise<Uint8Array | null>;
  /** Appends bytes without reading the value back. */
  append?(key: string, bytes: Uint8Array): Promise<void>;
  /** Streams a value in chunks, for values too large to hold in memory (traces). */
  stream?(key: string): Promise<ReadableStream<Uint8Array> | null>;
  /** Size in bytes without reading the value. */
  size?(key: string): Promise<number | null>;
  /**
   * A cheap proof that a value's bytes did not change: two equal fingerprints of a key, taken at any two
   * times, guarantee its bytes were the same at both (fs: one `stat`). `null` when the value is missing or the
   * driver cannot prove it right now (a file changed too recently for its timestamps to tell); callers then
   * read the bytes. Drivers without it are always read.
   */
  fingerprint?(key: string): Promise<string | null>;
  /**
   * Feeds a value's bytes into `hash` without handing them out, so the driver can reuse its read buffers (fs:
   * a fresh 1 MiB buffer per read costs more CPU in page faults than the read), so a chunk passed to
   * `hash.update` is valid only during that call. Returns the byte count, or `null` when the value is missing.
   */
  hashInto?(key: string, hash: IncrementalHash): Promise<number | null>;
  /**
   * The keys under a prefix (slash form), listing only that part of the store: unstorage's fs driver lists
   * the whole data directory and filters, which made every prefix listing cost as much as the whole store.
   */
  keys?(prefix: string): Promise<string[]>;
  /** Atomically adds `by` to an integer counter and returns the new value. */
  increment?(key: string, by: number, ttlSeconds?: number): Promise<number>;
  /** Sets a value only if the key is absent; true when this caller won. */
  setIfAbsent?(key: string, value: string, ttlSeconds?: number): Promise<boolean>;
  /** Free bytes on the medium, for the doctor. */
  freeBytes?(): Promise<number | null>;
  /** Closes connections (Redis) at shutdown. */
  close?(): Promise<void>;
}

/** What the service stores and reads; every plugin reaches storage through this. */
export interface Store {
  /** `fs`, `memory`, `redis` or a plugin's own name. */
  readonly driver: string;
  /** The unstorage instance, for plugins that want its full API. */
  readonly raw: Unstorage;
  getJson<T>(key: string): Promise<T | null>;
  /** Writes JSON atomically. */
  setJson(key: string, value: unknown): Promise<void>;
  getBytes(key: string): Promise<Uint8Array | null>;
  /** Writes bytes atomically. */
  setBytes(key: string, bytes: Uint8Array): Promise<void>;
  append(key: string, bytes: Uint8Array): Promise<void>;
  stream(key: string): Promise<ReadableStream<Uint8Array> | null>;
  size(key: string): Promise<number | null>;
  /** The driver's change proof of a value (`StoreCapabilities.fingerprint`), or `null` when it offers none. */
  fingerprint(key: string): Promise<string | null>;
  /** Feeds a value's bytes into `hash` (`StoreCapabilities.hashInto`, else streamed); the byte count, or `null` when missing. */
  hashInto(key: string, hash: IncrementalHash): Promise<number | null>;
  has(key: string): Promise<boolean>;
  remove(key: string): Promise<void>;
  /** Keys below a prefix, as slash paths. */
  keys(prefix: string): Promise<string[]>;
  increment(key: string, by?: number, ttlSeconds?: number): Promise<number>;
  setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean>;
  freeBytes(): Promise<number | null>;
  close(): Promise<void>;
}

/** A storage driver plugin: builds the store for the schemes it claims. */
export interface StorageDriver {
  /** Unique name (`fs`, `memory`, `redis`). */
  name: string;
  /** True when this driver serves the `AEH_STORAGE` value. */
  accepts(storage: string): boolean;
  create(config: Config): Store | Promise<Store>;
}

/** Maps a slash path to an unstorage key, refusing segments that could escape a folder. */
export function storageKey(path: string): string {
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

function toBytes(value: unknown): Uint8Array | null {
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

/**
 * Builds a `Store` over an unstorage instance, using the driver's capabilities where given and safe
 * read-modify-write fallbacks otherwise (serialised per key within this process).
 */
export function createStore(driver: string, raw: Unstorage, capabilities: StoreCapabilities = {}): Store {
  const serialised = createKeyedSerialiser();

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
    async fingerprint(key) {
      return capabilities.fingerprint ? capabilities.fingerprint(key) : null;
    },
    async hashInto(key, hash) {
      if (capabilities.hashInto) return capabilities.hashInto(key, hash);
      const stream = await store.stream(key);
      return stream ? hashStream(stream, hash) : null;
    },
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
      return serialised(key, () => incrementByRewrite(store, key, by));
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
