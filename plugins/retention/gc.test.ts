/**
 * retention: the race between deleting a blob and a new run of the same scenario taking it (core/domain/blobs.ts
 * `collectBlob`), each interleaving forced through a store that runs the new run's `putBlob` at a chosen step
 * of the collector.
 */
import { describe, it, expect, vi } from 'vitest';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { createStore, storageKey } from '../storage/unstorage-store.ts';
import type { Store } from '../../core/storage.ts';
import { blobKeys, collectBlob, putBlob, releaseBlobs } from '../../core/domain/blobs.ts';
import { nobleSha3 } from '../../core/domain/hash.ts';
import { keys, SIDECARS } from '../../core/domain/runs.ts';
import { collectGarbage, REFERENCE_GRACE_MS } from './gc.ts';

const bytes = new TextEncoder().encode(JSON.stringify({ scenario: 'x'.repeat(2000) }));

function memoryStore(): Store {
  const raw = createStorage({ driver: memoryDriver() });
  return createStore('memory', raw, { writeAtomic: (key, value) => raw.setItemRaw(storageKey(key), value.slice()) });
}

/** A store that runs `step` once, just before the first call of `method` on `key`. */
function interleaved(store: Store, method: 'remove' | 'getBytes' | 'keys', key: string, step: () => Promise<void>): Store {
  let done = false;
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name !== method) return typeof value === 'function' ? value.bind(target) : value;
      return async (argument: string, ...rest: unknown[]) => {
        if (!done && argument === key) {
          done = true;
          await step();
        }
        return (value as (...args: unknown[]) => unknown).call(target, argument, ...rest);
      };
    },
  });
}

/** Nothing refers to the blob but the old run, which is gone. */
const onlyNewRuns = async ({ runId }: { runId: string }) => runId === 'run_new';

describe('retention: a blob and a new run of the same scenario', () => {
  it('a reference taken after the collector looked, while the blob still existed, gets the blob put back', async () => {
    const store = memoryStore();
    const digest = await putBlob(store, bytes, 'run_old', nobleSha3);
    await releaseBlobs(store, 'run_old', [digest]);
    // The new run references the blob and finds it present, between the collector's look and its delete.
    const racing = interleaved(store, 'remove', blobKeys.blob(digest), async () => {
      expect(await putBlob(store, bytes, 'run_new', nobleSha3)).toBe(digest);
    });
    expect(await collectBlob(racing, digest, onlyNewRuns)).toBe('kept');
    expect(await store.getBytes(blobKeys.blob(digest))).toEqual(bytes);
  });

  it('a reference taken after the delete finds the blob gone and writes it itself', async () => {
    const store = memoryStore();
    const digest = await putBlob(store, bytes, 'run_old', nobleSha3);
    await releaseBlobs(store, 'run_old', [digest]);
    expect(await collectBlob(store, digest, onlyNewRuns)).toBe('deleted');
    expect(await store.has(blobKeys.blob(digest))).toBe(false);
    await putBlob(store, bytes, 'run_new', nobleSha3);
    expect(await store.getBytes(blobKeys.blob(digest))).toEqual(bytes);
  });

  it('keeps a blob any live run refers to, and drops stale references of runs that are gone', async () => {
    const store = memoryStore();
    const digest = await putBlob(store, bytes, 'run_live', nobleSha3);
    await putBlob(store, bytes, 'run_gone', nobleSha3);
    expect(await collectBlob(store, digest, async ({ runId }) => runId === 'run_live')).toBe('kept');
    expect(await collectBlob(store, digest, async () => false, true)).toBe('deleted');
    expect(await store.has(blobKeys.blob(digest))).toBe(true);
    expect(await collectBlob(store, digest, async () => false)).toBe('deleted');
    expect(await store.keys(blobKeys.refs(digest))).toEqual([]);
  });
});

describe('retention: the blobs of a run not ended', () => {
  it('keeps a blob a queued run refers to past the grace: its plan and task record are its record until run.json', async () => {
    const store = memoryStore();
    const digest = await putBlob(store, bytes, 'run_queued', nobleSha3);
    // What a submission stores (issue 36: no run.json until the run ends).
    await store.setJson(keys.sidecar('run_queued', SIDECARS.scenario), { run_id: 'run_queued', task_id: 'task_queued', seed: null, scenario: { id: 'sc', title: 'sc' }, variants: [] });
    await store.setJson(keys.task('task_queued'), { task_id: 'task_queued', run_id: 'run_queued', status: 'queued', progress: { done: 0, total: 1 }, created_at: new Date().toISOString(), started_at: null, finished_at: null });
    vi.useFakeTimers({ now: Date.now() + 2 * REFERENCE_GRACE_MS, toFake: ['Date'] });
    try {
      await collectGarbage(store, {}, { now: Date.now(), dryRun: false });
      expect(await store.has(blobKeys.blob(digest))).toBe(true);
      // Without its task record the plan is a submission cut short: the blob goes once the grace has passed.
      await store.remove(keys.task('task_queued'));
      await collectGarbage(store, {}, { now: Date.now(), dryRun: false });
      expect(await store.has(blobKeys.blob(digest))).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
