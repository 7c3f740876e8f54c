/**
 * The storage extension point. State lives in unstorage; a driver plugin builds a `Store` for one scheme
 * (`fs`, `memory`, `redis`). Keys are slash paths (`runs/<run_id>/certificate.json`), mapped onto unstorage's
 * colon keys, so the `fs` driver lays files out exactly as the contract's "Data on disk" section says.
 *
 * unstorage has no append, no streams and no atomic writes; drivers that can do better supply them as
 * `StoreCapabilities`, and the unstorage-backed `Store` (plugins/storage/unstorage-store.ts) falls back to
 * read-modify-write where they cannot.
 */
import type { Storage as Unstorage } from 'unstorage';
import type { Config } from './config.ts';
import type { IncrementalHash } from './capabilities.ts';

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
   * SHA3-256 of a value, hashed away from the request thread (fs on Node: a worker thread reads and hashes the
   * file), as lower-case hex with its byte count; `null` when the value is missing; `undefined` when the driver
   * declines this value (small, or no worker to be had), which the caller then hashes itself.
   */
  sha3OffThread?(key: string): Promise<{ hex: string; bytes: number } | null | undefined>;
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
  /**
   * SHA3-256 of a value as lower-case hex, or `null` when missing: off the request thread when the driver can
   * (`StoreCapabilities.sha3OffThread`), else fed from `hashInto` into a hash from `sha3` (the runtime's fastest).
   */
  sha3(key: string, sha3: () => IncrementalHash): Promise<string | null>;
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
