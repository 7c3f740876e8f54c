/** The bundled plugins on Node: the portable set plus Node's own (the `fs` and `redis` stores, the BullMQ queue). */
import type { Plugin } from '../../core/plugin.ts';
import { portablePlugins } from '../../plugins/bundled.ts';
import storageFs from '../../plugins/storage/fs.ts';
import storageRedis from '../../plugins/storage/redis.ts';
import queueBullmq from '../../plugins/queue-bullmq/index.ts';

export function nodePlugins(): Plugin[] {
  return [storageFs, storageRedis, queueBullmq, ...portablePlugins()];
}
