/**
 * Evaluations in the background on workerd. A worker's event ends with its response: work it started after
 * that (an accepted evaluation runs after the 202) is cancelled unless the event hands it to
 * `ctx.waitUntil`. So the worker uses the in-process queue through a factory that lets the entry wait, after
 * every event, until the queue is empty: whichever event started a task keeps its I/O context alive until the
 * task ends. Cloudflare cuts `waitUntil` work 30 s after the response; a longer evaluation stops there and
 * resumes (from its handoff token) when the next isolate starts. See docs/runtimes.md, "workerd".
 */
import type { Plugin } from '../../core/plugin.ts';
import { type TaskQueue, type TaskQueueFactory } from '../../core/tasks.ts';
import { createMemoryQueue } from '../../plugins/evaluation/running/memory-queue.ts';

/** How often a waiting event looks at the queue: in its own context, so no promise crosses events. */
const POLL_MS = 20;

/** The queue plugin of one isolate, and the promise an event waits on. */
export interface BackgroundWork {
  plugin: Plugin;
  /** Resolves when no task is waiting or running (at once when the queue is idle or not created yet). */
  settled(): Promise<void>;
}

/** Creates the in-isolate queue plugin for one app. */
export function backgroundWork(): BackgroundWork {
  let queue: TaskQueue | undefined;
  const busy = () => {
    if (!queue) return false;
    const { waiting, active } = queue.stats();
    return waiting + active > 0;
  };
  const factory: TaskQueueFactory = {
    name: 'workerd',
    accepts: () => true,
    create(options) {
      queue = createMemoryQueue(options);
      return queue;
    },
  };
  return {
    plugin: {
      name: 'queue-workerd',
      setup(host) {
        host.queues.register(factory, 'queue-workerd');
      },
    },
    async settled() {
      while (busy()) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    },
  };
}
