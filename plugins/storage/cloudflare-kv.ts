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
import type { Driver } from 'unstorage';
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

/** Builds a store over a KV namespace binding. */
export function createKvStore(namespace: KvNamespace, options: KvStoreOptions = {}): Store {
  const { cacheMs = 1000, cacheValueBytes = 64 * 1024, cacheEntries = 1024, now = Date.now } = options;
  const cache = new Map<string, Cached>();
  // Bumped by every write and removal: a read that was in flight meanwhile may hold the old bytes, so it does
  // not cache them (the isolate must read its own writes).
  let writes = 0;
  const forget = (kvKey: string) => {
    writes++;
    cache.delete(kvKey);
  };
  const remember = (kvKey: string, bytes: Uint8Array | null) => {
    cache.delete(kvKey);
    if (cacheMs <= 0 || (bytes && bytes.byteLength > cacheValueBytes)) return;
    if (cache.size >= cacheEntries) cache.delete(cache.keys().next().value!);
    cache.set(kvKey, { bytes: bytes && bytes.slice(), at: now() });
  };
  // Writes and removals made through unstorage (store.remove, plugins using store.raw) drop the cached value.
  const driver = kvBindingDriver({ binding: namespace as never }) as Driver;
  const raw = createStorage({
    driver: {
      ...driver,
      async setItem(key, value, options) {
        forget(key);
        await driver.setItem!(key, value, options);
        forget(key);
      },
      async removeItem(key, options) {
        forget(key);
        await driver.removeItem!(key, options);
        forget(key);
      },
      async clear(base, options) {
        writes++;
        cache.clear();
        await driver.clear!(base, options);
        writes++;
        cache.clear();
      },
    },
  });
  // One chain per key: read-modify-write operations of this isolate never interleave on the same key.
  const serialised = createKeyedSerialiser();
  const ttl = (seconds?: number) => (seconds ? { expirationTtl: Math.max(MIN_TTL_SECONDS, Math.ceil(seconds)) } : undefined);
  const readFresh = async (kvKey: string) => {
    const value = await namespace.get(kvKey, 'arrayBuffer');
    return value === null ? null : new Uint8Array(value);
  };
  const read = async (key: string) => {
    const kvKey = storageKey(key);
    const cached = cache.get(kvKey);
    if (cached && now() - cached.at < cacheMs) return cached.bytes && cached.bytes.slice();
    const before = writes;
    const bytes = await readFresh(kvKey);
    if (writes === before) remember(kvKey, bytes);
    return bytes;
  };
  const write = async (kvKey: string, value: Uint8Array | string, ttlSeconds?: number) => {
    forget(kvKey);
    await namespace.put(kvKey, value, ttl(ttlSeconds));
    forget(kvKey);
    remember(kvKey, typeof value === 'string' ? new TextEncoder().encode(value) : value);
  };
  return createStore('cloudflare-kv', raw, {
    read,
    writeAtomic: (key, bytes) => write(storageKey(key), bytes),
    // The value is read whole, not as the binding's stream: a KV stream is an I/O object of the event that
    // opened it, and work that events share (a verification's single hashing pass) may read it from another.
    // KV values are at most 25 MiB, so holding one costs what it costs.
    async stream(key) {
      const bytes = await read(key);
      if (!bytes) return null;
      let offset = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(bytes.subarray(offset, offset + STREAM_CHUNK));
          offset += STREAM_CHUNK;
          if (offset >= bytes.length) controller.close();
        },
      });
    },
    increment(key, by, ttlSeconds) {
      return serialised(key, async () => {
        // Counters and locks are decided on what KV holds now, never on the cache.
        const current = await readFresh(storageKey(key));
        const next = (current ? Number(new TextDecoder().decode(current)) || 0 : 0) + by;
        await write(storageKey(key), String(next), ttlSeconds);
        return next;
      });
    },
    setIfAbsent(key, value, ttlSeconds) {
      return serialised(key, async () => {
        if ((await readFresh(storageKey(key))) !== null) return false;
        await write(storageKey(key), value, ttlSeconds);
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
