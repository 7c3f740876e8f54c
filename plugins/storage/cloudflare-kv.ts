/**
 * Cloudflare Workers KV store (`AEH_STORAGE=cloudflare-kv`, workerd): unstorage's `cloudflare-kv-binding` driver
 * over the KV namespace bound as `AEH_KV` (or the name in `AEH_KV_BINDING`), with the binding's own calls
 * where unstorage loses bytes: values are read as ArrayBuffer or streamed, and written whole (a KV put replaces
 * the value, so readers see the old or the new bytes, never a mix).
 *
 * KV has no atomic operations and is eventually consistent (a write may take up to 60 s to reach other
 * locations): counters, "set if absent" and appends are read-modify-write, serialised only within one isolate.
 * For the same reason the store keeps what it read for `AEH_KV_CACHE_MS` (default 1000 ms, 0 turns it off):
 * small values only (certificates, sidecars, records), bounded in count and bytes, and every write or removal
 * through this isolate updates the cache at once, so the isolate reads its own writes. A hot key then costs
 * one KV read per second instead of one per request (a certificate verified 2,000 times a second).
 * See docs/runtimes.md, "workerd". Keys are the store's colon keys (`runs:<run_id>:certificate.json`), the
 * layout `scripts/kv-seed.mjs` writes.
 */
import { asText, textSettings } from '../../core/plugin-settings.ts';
import { createStorage } from 'unstorage';
import kvBindingDriver from 'unstorage/drivers/cloudflare-kv-binding';
import type { Driver, Storage as Unstorage } from 'unstorage';
import type { Plugin } from '../../core/plugin.ts';
import { type Store, type StorageDriver } from '../../core/storage.ts';
import { createStore, storageKey } from './unstorage-store.ts';
import { createKeyedSerialiser } from '../../core/keyed-queue.ts';

/** The part of a Workers KV namespace binding this store uses (Cloudflare's `KVNamespace`). */
export interface KvNamespace {
  get(key: string, type: 'arrayBuffer'): Promise<ArrayBuffer | null>;
  put(key: string, value: Uint8Array | string, options?: { expirationTtl?: number }): Promise<void>;
  delete(key: string): Promise<void>;
  list(options?: { prefix?: string; cursor?: string }): Promise<{ keys: Array<{ name: string }>; list_complete: boolean; cursor?: string }>;
}

/** The binding name used when `AEH_KV_BINDING` is not set. */
export const DEFAULT_KV_BINDING = 'AEH_KV';
/** Chunk size of `stream()`. */
const STREAM_CHUNK = 1 << 20;
/** KV refuses an `expirationTtl` under 60 seconds. */
const MIN_TTL_SECONDS = 60;

/** Options of `createKvStore`. */
export interface KvStoreOptions {
  /** How long a value read stays in this isolate's cache; 0 reads KV every time (default 1000). */
  cacheMs?: number;
  /** Values larger than this are never cached (default 64 KiB: records, not traces). */
  cacheValueBytes?: number;
  /** Most values cached at once (default 1024); the oldest go first. */
  cacheEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Cached {
  bytes: Uint8Array | null;
  at: number;
}

function isKvNamespace(value: unknown): value is KvNamespace {
  return !!value && typeof value === 'object' && ['get', 'put', 'delete', 'list'].every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
}

/** This isolate's view of a KV namespace: the read cache, and the write counter that keeps it honest. */
interface KvView {
  namespace: KvNamespace;
  cache: Map<string, Cached>;
  /**
   * Bumped by every write and removal: a read that was in flight meanwhile may hold the old bytes, so it does
   * not cache them (the isolate must read its own writes).
   */
  writes: number;
  cacheMs: number;
  cacheValueBytes: number;
  cacheEntries: number;
  now: () => number;
}

function forget(view: KvView, kvKey: string): void {
  view.writes++;
  view.cache.delete(kvKey);
}

function forgetAll(view: KvView): void {
  view.writes++;
  view.cache.clear();
}

function remember(view: KvView, kvKey: string, bytes: Uint8Array | null): void {
  const { cache } = view;
  cache.delete(kvKey);
  if (view.cacheMs <= 0 || (bytes && bytes.byteLength > view.cacheValueBytes)) return;
  if (cache.size >= view.cacheEntries) cache.delete(cache.keys().next().value!);
  cache.set(kvKey, { bytes: bytes && bytes.slice(), at: view.now() });
}

/** What KV holds now, past the cache. */
async function readFresh(view: KvView, kvKey: string): Promise<Uint8Array | null> {
  const value = await view.namespace.get(kvKey, 'arrayBuffer');
  return value === null ? null : new Uint8Array(value);
}

/** A value through the cache: a copy of a fresh cached value, else KV's (cached unless a write raced it). */
async function readCached(view: KvView, key: string): Promise<Uint8Array | null> {
  const kvKey = storageKey(key);
  const cached = view.cache.get(kvKey);
  if (cached && view.now() - cached.at < view.cacheMs) return cached.bytes && cached.bytes.slice();
  const before = view.writes;
  const bytes = await readFresh(view, kvKey);
  if (view.writes === before) remember(view, kvKey, bytes);
  return bytes;
}

async function writeValue(view: KvView, kvKey: string, value: Uint8Array | string, ttlSeconds?: number): Promise<void> {
  forget(view, kvKey);
  await view.namespace.put(kvKey, value, ttlSeconds ? { expirationTtl: Math.max(MIN_TTL_SECONDS, Math.ceil(ttlSeconds)) } : undefined);
  forget(view, kvKey);
  remember(view, kvKey, typeof value === 'string' ? new TextEncoder().encode(value) : value);
}

/** unstorage over the binding, whose writes and removals (store.remove, plugins using store.raw) drop the cached value. */
function unstorageOver(view: KvView): Unstorage {
  const driver = kvBindingDriver({ binding: view.namespace as never }) as Driver;
  return createStorage({
    driver: {
      ...driver,
      async setItem(key, value, options) {
        forget(view, key);
        await driver.setItem!(key, value, options);
        forget(view, key);
      },
      async removeItem(key, options) {
        forget(view, key);
        await driver.removeItem!(key, options);
        forget(view, key);
      },
      async clear(base, options) {
        forgetAll(view);
        await driver.clear!(base, options);
        forgetAll(view);
      },
    },
  });
}

/** A value held whole, handed out in STREAM_CHUNK pieces. */
function chunkedStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(bytes.subarray(offset, offset + STREAM_CHUNK));
      offset += STREAM_CHUNK;
      if (offset >= bytes.length) controller.close();
    },
  });
}

/** Builds a store over a KV namespace binding. */
export function createKvStore(namespace: KvNamespace, options: KvStoreOptions = {}): Store {
  const { cacheMs = 1000, cacheValueBytes = 64 * 1024, cacheEntries = 1024, now = Date.now } = options;
  const view: KvView = { namespace, cache: new Map(), writes: 0, cacheMs, cacheValueBytes, cacheEntries, now };
  // One chain per key: read-modify-write operations of this isolate never interleave on the same key.
  const serialised = createKeyedSerialiser();
  return createStore('cloudflare-kv', unstorageOver(view), {
    read: (key) => readCached(view, key),
    writeAtomic: (key, bytes) => writeValue(view, storageKey(key), bytes),
    // The value is read whole, not as the binding's stream: a KV stream is an I/O object of the event that
    // opened it, and work that events share (a verification's single hashing pass) may read it from another.
    // KV values are at most 25 MiB, so holding one costs what it costs.
    async stream(key) {
      const bytes = await readCached(view, key);
      return bytes ? chunkedStream(bytes) : null;
    },
    increment(key, by, ttlSeconds) {
      return serialised(key, async () => {
        // Counters and locks are decided on what KV holds now, never on the cache.
        const current = await readFresh(view, storageKey(key));
        const next = (current ? Number(new TextDecoder().decode(current)) || 0 : 0) + by;
        await writeValue(view, storageKey(key), String(next), ttlSeconds);
        return next;
      });
    },
    setIfAbsent(key, value, ttlSeconds) {
      return serialised(key, async () => {
        if ((await readFresh(view, storageKey(key))) !== null) return false;
        await writeValue(view, storageKey(key), value, ttlSeconds);
        return true;
      });
    },
  });
}

/**
 * The KV store plugin for a worker's bindings (the `env` of a module worker): serves `AEH_STORAGE=cloudflare-kv`
 * from the KV namespace binding named by `AEH_KV_BINDING` (default `AEH_KV`).
 */
/** The plugin's settings (exported so the build precompiles their validator: workerd forbids code generation). */
export const KV_SETTINGS = textSettings({ AEH_KV_BINDING: 'The KV namespace binding (default AEH_KV)', AEH_KV_CACHE_MS: 'Read cache in milliseconds (default 1000, 0 off)' });

export function cloudflareKvStorage(bindings: Record<string, unknown>): Plugin {
  let settings: Readonly<Record<string, string | undefined>> = {};
  const driver: StorageDriver = {
    name: 'cloudflare-kv',
    accepts: (storage) => storage === 'cloudflare-kv',
    create() {
      const name = settings.AEH_KV_BINDING?.trim() || DEFAULT_KV_BINDING;
      const namespace = bindings[name];
      if (!isKvNamespace(namespace)) {
        throw new Error(`AEH_STORAGE=cloudflare-kv needs a KV namespace bound as ${name}: add it to the worker's bindings (wrangler: [[kv_namespaces]] binding = "${name}"), or set AEH_KV_BINDING to the binding's name`);
      }
      const cacheMs = settings.AEH_KV_CACHE_MS?.trim() || '1000';
      if (!/^\d{1,9}$/.test(cacheMs)) throw new Error(`AEH_KV_CACHE_MS must be a whole number of milliseconds (0 turns the read cache off), got "${cacheMs}"`);
      return createKvStore(namespace, { cacheMs: Number(cacheMs) });
    },
  };
  return {
    name: 'storage-cloudflare-kv',
    settings: KV_SETTINGS,
    setup(host) {
      settings = asText(host.settings);
      host.storageDrivers.register(driver, 'storage-cloudflare-kv');
    },
  };
}
