/**
 * Redis store (`AEH_STORAGE=redis://…`) for several instances sharing work: unstorage's redis driver for
 * keys, listing and removal, and the ioredis client's own commands wherever the service needs atomicity or
 * bytes — SET (whole-value replace), APPEND, GETRANGE streaming, INCRBY, SET NX — because unstorage has no
 * atomic operations and a get-then-set race loses updates. Every write also moves the value's write
 * generation, the change proof public verify relies on (`fingerprint`; docs/certificates.md).
 */
import { createStorage } from 'unstorage';
import type { Redis } from 'ioredis';
import type { Plugin } from '../../core/plugin.ts';
import { type Store, type StoreCapabilities, type StorageDriver } from '../../core/storage.ts';
import { createStore, storageKey } from './unstorage-store.ts';
import { redactUrl } from '../../core/guards/redact.ts';

/** Key prefix of every value the service keeps in Redis. */
export const REDIS_PREFIX = 'aeh';
const STREAM_CHUNK = 1 << 20;

/**
 * Writes a value and gives it a new write generation in one step: the value's generation key
 * (`<prefix>#gen:<key>`) takes the next number of one counter (`<prefix>#generation`) that never goes back, so
 * a generation, once read, never names other bytes, even after its key was deleted. `fingerprint` reads it.
 * KEYS: value, generation, counter. ARGV: bytes, `set` | `append`, ttl seconds or ''.
 */
const WRITE_WITH_GENERATION = `
if ARGV[2] == 'append' then redis.call('APPEND', KEYS[1], ARGV[1])
elseif ARGV[3] ~= '' then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
else redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('SET', KEYS[2], redis.call('INCR', KEYS[3]))
if ARGV[3] ~= '' then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
return 1`;

type GenerationClient = Redis & { writeWithGeneration(value: string, generation: string, counter: string, bytes: Buffer | string, mode: 'set' | 'append', ttl: string): Promise<number> };

/** Where a store keeps things in Redis: values under `<prefix>:`, their generations under `<prefix>#gen:`. */
interface RedisKeys {
  keyOf(key: string): string;
  generationOf(redisKey: string): string;
}

/** Writes a value through WRITE_WITH_GENERATION, moving its write generation. */
type GenerationWrite = (redisKey: string, bytes: Buffer | string, mode: 'set' | 'append', ttlSeconds?: number) => Promise<number>;

/** Waits for Redis to answer a PING; a clear start-up error naming the (redacted) URL when it does not. */
async function reachRedis(client: Redis, url: string): Promise<void> {
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
}

/** A value read in chunks of STREAM_CHUNK bytes (GETRANGE), or null when it does not exist. */
async function streamValue(client: Redis, redisKey: string): Promise<ReadableStream<Uint8Array> | null> {
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
}

/** The store operations done with ioredis's own commands, for atomicity and bytes. */
function redisCapabilities(client: Redis, { keyOf, generationOf }: RedisKeys, write: GenerationWrite): StoreCapabilities {
  return {
    async writeAtomic(key, bytes) {
      await write(keyOf(key), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'set');
    },
    async read(key) {
      const value = await client.getBuffer(keyOf(key));
      return value ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : null;
    },
    async append(key, bytes) {
      await write(keyOf(key), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'append');
    },
    // The write generation, when the value exists and was last written through a store that keeps one (a value
    // written by redis-cli or an older version has none, or a stale one: see docs/certificates.md).
    async fingerprint(key) {
      const redisKey = keyOf(key);
      const [[, generation], [, exists]] = (await client.multi().get(generationOf(redisKey)).exists(redisKey).exec()) as Array<[Error | null, string | null | number]>;
      return exists && typeof generation === 'string' ? `gen:${generation}` : null;
    },
    async size(key) {
      const redisKey = keyOf(key);
      const [[, exists], [, length]] = (await client.multi().exists(redisKey).strlen(redisKey).exec()) as Array<[Error | null, number]>;
      return exists ? length : null;
    },
    stream: (key) => streamValue(client, keyOf(key)),
    // Counters and locks change without a new generation: their generation key goes, so they have no proof.
    async increment(key, by, ttlSeconds) {
      const redisKey = keyOf(key);
      const step = client.multi().incrby(redisKey, by);
      if (ttlSeconds) step.expire(redisKey, ttlSeconds, 'NX');
      const [[, value]] = (await step.unlink(generationOf(redisKey)).exec()) as Array<[Error | null, number]>;
      return value;
    },
    async close() {
      // QUIT waits for the replies of commands still in flight; a bare disconnect rejects them.
      await client.quit().catch(() => undefined);
    },
    async setIfAbsent(key, value, ttlSeconds) {
      const redisKey = keyOf(key);
      const step = client.multi();
      if (ttlSeconds) step.set(redisKey, value, 'EX', ttlSeconds, 'NX');
      else step.set(redisKey, value, 'NX');
      const [[, result]] = (await step.unlink(generationOf(redisKey)).exec()) as Array<[Error | null, string | null]>;
      return result === 'OK';
    },
  };
}

/** Builds a Redis store for a `redis://` or `rediss://` URL. */
export async function createRedisStore(url: string, prefix = REDIS_PREFIX): Promise<Store> {
  // Loaded on use: ioredis costs a fifth of the start-up of a service that never talks to Redis.
  const { default: redisDriver } = await import('unstorage/drivers/redis');
  const driver = redisDriver({ url, base: prefix, lazyConnect: false, maxRetriesPerRequest: 2, retryStrategy: (attempt: number) => (attempt > 3 ? null : 200 * attempt) });
  const client = (driver as unknown as { getInstance(): Redis }).getInstance() as GenerationClient;
  client.defineCommand('writeWithGeneration', { numberOfKeys: 3, lua: WRITE_WITH_GENERATION });
  const keys: RedisKeys = {
    keyOf: (key) => `${prefix}:${storageKey(key)}`,
    generationOf: (redisKey) => `${prefix}#gen:${redisKey.slice(prefix.length + 1)}`,
  };
  const counter = `${prefix}#generation`;
  const write: GenerationWrite = (redisKey, bytes, mode, ttlSeconds) =>
    client.writeWithGeneration(redisKey, keys.generationOf(redisKey), counter, bytes, mode, ttlSeconds ? String(ttlSeconds) : '');
  // Plugins writing through unstorage (store.raw) move the generation too; unstorage keys are `<prefix>:<key>`.
  const raw = createStorage({
    driver: {
      ...driver,
      async setItem(key, value, options) {
        const ttl = (options as { ttl?: number } | undefined)?.ttl;
        await write(`${prefix}:${key}`, value, 'set', ttl);
      },
    },
  });
  await reachRedis(client, url);
  return createStore('redis', raw, redisCapabilities(client, keys, write));
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
