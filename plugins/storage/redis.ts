/**
 * Redis store (`AEH_STORAGE=redis://…`) for several instances sharing work: unstorage's redis driver for
 * keys, listing and removal, and the ioredis client's own commands wherever the service needs atomicity or
 * bytes — SET (whole-value replace), APPEND, GETRANGE streaming, INCRBY, SET NX — because unstorage has no
 * atomic operations and a get-then-set race loses updates.
 */
import { createStorage } from 'unstorage';
import type { Redis } from 'ioredis';
import type { Plugin } from '../../core/plugin.ts';
import { createStore, storageKey, type Store, type StorageDriver } from '../../core/storage.ts';
import { redactUrl } from '../../core/redact.ts';

/** Key prefix of every value the service keeps in Redis. */
export const REDIS_PREFIX = 'aeh';
const STREAM_CHUNK = 1 << 20;

/** Builds a Redis store for a `redis://` or `rediss://` URL. */
export async function createRedisStore(url: string, prefix = REDIS_PREFIX): Promise<Store> {
  // Loaded on use: ioredis costs a fifth of the start-up of a service that never talks to Redis.
  const { default: redisDriver } = await import('unstorage/drivers/redis');
  const driver = redisDriver({ url, base: prefix, lazyConnect: false, maxRetriesPerRequest: 2, retryStrategy: (attempt: number) => (attempt > 3 ? null : 200 * attempt) });
  const client = (driver as unknown as { getInstance(): Redis }).getInstance();
  const raw = createStorage({ driver });
  const keyOf = (key: string) => `${prefix}:${storageKey(key)}`;
  let lastError: Error | undefined;
  // ioredis reports connection trouble as events; keep the latest for the start-up message instead of
  // letting it print "Unhandled error event" lines.
  client.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new Error(`AEH_STORAGE: cannot reach Redis at ${redactUrl(url)}: ${(lastError ?? (error as Error)).message}`);
  }
  return createStore('redis', raw, {
    async writeAtomic(key, bytes) {
      await client.set(keyOf(key), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
    async read(key) {
      const value = await client.getBuffer(keyOf(key));
      return value ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : null;
    },
    async append(key, bytes) {
      await client.append(keyOf(key), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
    async size(key) {
      const redisKey = keyOf(key);
      const [[, exists], [, length]] = (await client.multi().exists(redisKey).strlen(redisKey).exec()) as Array<[Error | null, number]>;
      return exists ? length : null;
    },
    async stream(key) {
      const redisKey = keyOf(key);
      if (!(await client.exists(redisKey))) return null;
      let offset = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = await client.getrangeBuffer(redisKey, offset, offset + STREAM_CHUNK - 1);
          if (chunk.length === 0) return controller.close();
          offset += chunk.length;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (chunk.length < STREAM_CHUNK) controller.close();
        },
      });
    },
    async increment(key, by, ttlSeconds) {
      const redisKey = keyOf(key);
      if (!ttlSeconds) return client.incrby(redisKey, by);
      const [[, value]] = (await client.multi().incrby(redisKey, by).expire(redisKey, ttlSeconds, 'NX').exec()) as Array<[Error | null, number]>;
      return value;
    },
    async close() {
      // QUIT waits for the replies of commands still in flight; a bare disconnect rejects them.
      await client.quit().catch(() => undefined);
    },
    async setIfAbsent(key, value, ttlSeconds) {
      const result = ttlSeconds ? await client.set(keyOf(key), value, 'EX', ttlSeconds, 'NX') : await client.set(keyOf(key), value, 'NX');
      return result === 'OK';
    },
  });
}

const redisStorageDriver: StorageDriver = {
  name: 'redis',
  accepts: (storage) => /^rediss?:\/\//.test(storage),
  create: (config) => createRedisStore(config.storage),
};

export default {
  name: 'storage-redis',
  setup(host) {
    host.storageDrivers.register(redisStorageDriver, 'storage-redis');
  },
} satisfies Plugin;
