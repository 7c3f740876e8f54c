/**
 * BullMQ task queue (issue 9 item 3): with `AEH_STORAGE=redis://…`, evaluations wait in one Redis-backed queue
 * shared by every instance, each running `AEH_CONCURRENCY` of them; a killed instance's tasks are taken over by
 * the others from their handoff tokens. Node-only (registered in runtime/node/plugins.ts).
 */
import type { Plugin } from '../../core/plugin.ts';
import type { TaskQueueFactory } from '../../core/tasks.ts';

const REDIS_URL = /^rediss?:\/\//;

/** The shared queue whenever the store is Redis: instances sharing a store must share their backlog too. */
export const bullmqQueueFactory: TaskQueueFactory = {
  name: 'bullmq',
  accepts: (config) => REDIS_URL.test(config.storage),
  async create({ concurrency, onError, services }) {
    // Loaded on use: BullMQ is large, and instances on `fs` or `memory` storage never need it.
    const { createBullmqQueue } = await import('./queue.ts');
    return createBullmqQueue({ url: services.config.storage, concurrency, onError, logger: services.logger, telemetry: services.telemetry });
  },
};

export default {
  name: 'queue-bullmq',
  setup(host) {
    host.queues.register(bullmqQueueFactory, 'queue-bullmq');
  },
} satisfies Plugin;
