/**
 * Cloudflare Workers KV store (`AEH_STORAGE=cloudflare-kv`, workerd): unstorage's `cloudflare-kv-binding` driver
 * over the KV namespace bound as `AEH_KV` (or the name in `AEH_KV_BINDING`), with the binding's own calls
 * where unstorage loses bytes: values are read as ArrayBuffer or streamed, and written whole (a KV put replaces
 * the value, so readers see the old or the new bytes, never a mix).
 *
 * KV has no atomic operations and is eventually consistent (a write may take up to 60 s to reach other
 * locations): counters, "set if absent" and appends are read-modify-write, serialised only within one isolate.
 * See docs/runtimes.md, "workerd". Keys are the store's colon keys (`runs:<run_id>:certificate.json`), the
 * layout `scripts/kv-seed.mjs` writes.
 */
import { createStorage } from 'unstorage';
import kvBindingDriver from 'unstorage/drivers/cloudflare-kv-binding';
import type { Plugin } from '../../core/plugin.ts';
import { createStore, storageKey, type Store, type StorageDriver } from '../../core/storage.ts';

/** The part of a Workers KV namespace binding this store uses (Cloudflare's `KVNamespace`). */
export interface KvNamespace {
  get(key: string, type: 'arrayBuffer'): Promise<ArrayBuffer | null>;
  get(key: string, type: 'stream'): Promise<ReadableStream<Uint8Array> | null>;
  put(key: string, value: Uint8Array | string, options?: { expirationTtl?: number }): Promise<void>;
  delete(key: string): Promise<void>;
  list(options?: { prefix?: string; cursor?: string }): Promise<{ keys: Array<{ name: string }>; list_complete: boolean; cursor?: string }>;
}

/** The binding name used when `AEH_KV_BINDING` is not set. */
export const DEFAULT_KV_BINDING = 'AEH_KV';
/** KV refuses an `expirationTtl` under 60 seconds. */
const MIN_TTL_SECONDS = 60;

function isKvNamespace(value: unknown): value is KvNamespace {
  return !!value && typeof value === 'object' && ['get', 'put', 'delete', 'list'].every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
}

/** Builds a store over a KV namespace binding. */
export function createKvStore(namespace: KvNamespace): Store {
  const raw = createStorage({ driver: kvBindingDriver({ binding: namespace as never }) });
  // One chain per key: read-modify-write operations of this isolate never interleave on the same key.
  const chains = new Map<string, Promise<unknown>>();
  function serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
    const next = (chains.get(key) ?? Promise.resolve()).then(work, work);
    const settled = next.catch(() => undefined);
    chains.set(key, settled);
    void settled.then(() => { if (chains.get(key) === settled) chains.delete(key); });
    return next;
  }
  const ttl = (seconds?: number) => (seconds ? { expirationTtl: Math.max(MIN_TTL_SECONDS, Math.ceil(seconds)) } : undefined);
  const read = async (key: string) => {
    const value = await namespace.get(storageKey(key), 'arrayBuffer');
    return value === null ? null : new Uint8Array(value);
  };
  return createStore('cloudflare-kv', raw, {
    read,
    writeAtomic: (key, bytes) => namespace.put(storageKey(key), bytes),
    stream: (key) => namespace.get(storageKey(key), 'stream'),
    increment(key, by, ttlSeconds) {
      return serialised(key, async () => {
        const current = await read(key);
        const next = (current ? Number(new TextDecoder().decode(current)) || 0 : 0) + by;
        await namespace.put(storageKey(key), String(next), ttl(ttlSeconds));
        return next;
      });
    },
    setIfAbsent(key, value, ttlSeconds) {
      return serialised(key, async () => {
        if ((await namespace.get(storageKey(key), 'arrayBuffer')) !== null) return false;
        await namespace.put(storageKey(key), value, ttl(ttlSeconds));
        return true;
      });
    },
  });
}

/**
 * The KV store plugin for a worker's bindings (the `env` of a module worker): serves `AEH_STORAGE=cloudflare-kv`
 * from the KV namespace binding named by `AEH_KV_BINDING` (default `AEH_KV`).
 */
export function cloudflareKvStorage(bindings: Record<string, unknown>): Plugin {
  const driver: StorageDriver = {
    name: 'cloudflare-kv',
    accepts: (storage) => storage === 'cloudflare-kv',
    create(config) {
      const name = config.env.AEH_KV_BINDING?.trim() || DEFAULT_KV_BINDING;
      const namespace = bindings[name];
      if (!isKvNamespace(namespace)) {
        throw new Error(`AEH_STORAGE=cloudflare-kv needs a KV namespace bound as ${name}: add it to the worker's bindings (wrangler: [[kv_namespaces]] binding = "${name}"), or set AEH_KV_BINDING to the binding's name`);
      }
      return createKvStore(namespace);
    },
  };
  return {
    name: 'storage-cloudflare-kv',
    setup(host) {
      host.storageDrivers.register(driver, 'storage-cloudflare-kv');
    },
  };
}
