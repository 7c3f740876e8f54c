/**
 * Who submitted which unfinished task, so that one principal can neither fill the queue nor starve the others
 * (issue 13 item 7). Each queued or running task has a marker under its owner's prefix, next to the global
 * `tasks-active` marker and removed with it: counting a principal's outstanding tasks is one key listing, on
 * every instance that shares the store.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { keys, type TaskRecord } from '../../core/domain/runs.ts';
import type { Store } from '../../core/storage.ts';
import { Problem } from '../../core/problems.ts';

const encoder = new TextEncoder();
/** How long a client refused for its queue quota is told to wait: about how long a short run takes. */
export const QUOTA_RETRY_AFTER_SECONDS = 10;

/** A storage-safe name for a principal id (ids hold `|` and `:`, which keys refuse). */
export function ownerKey(owner: string): string {
  return bytesToHex(sha256(encoder.encode(owner))).slice(0, 32);
}

const ownedPrefix = (owner: string) => `tasks-owned/${ownerKey(owner)}`;
const ownedKey = (owner: string, taskId: string) => `${ownedPrefix(owner)}/${taskId}`;

/** How many tasks of `owner` are queued or running, on any instance. */
export async function outstandingTasks(store: Store, owner: string): Promise<number> {
  return (await store.keys(ownedPrefix(owner))).length;
}

/**
 * Refuses a submission that would take `owner` past `limit` outstanding tasks: 429 `quota_exceeded` with a
 * `Retry-After`. Returns the owner's count before this task (its rank in the queue is that plus one).
 * Submissions racing on several instances may overshoot the limit by the number in flight at once.
 */
export async function checkQueueQuota(store: Store, owner: string, limit: number): Promise<number> {
  const outstanding = await outstandingTasks(store, owner);
  if (outstanding >= limit) {
    throw new Problem('quota_exceeded', {
      detail: `${outstanding} of your evaluations are already queued or running; the limit per principal is ${limit} (AEH_MAX_QUEUED_PER_PRINCIPAL). Wait for some to finish or cancel them.`,
      headers: { 'Retry-After': String(QUOTA_RETRY_AFTER_SECONDS) },
      extra: { limit, outstanding },
    });
  }
  return outstanding;
}

/** The marker that counts a task against its owner. */
export function markOwned(store: Store, owner: string, taskId: string): Promise<void> {
  return store.append(ownedKey(owner, taskId), encoder.encode('1'));
}

/** Removes a task's active and owner markers: it no longer waits or runs anywhere. */
export async function releaseTask(store: Store, taskId: string, task?: TaskRecord | null): Promise<void> {
  await Promise.all([
    store.remove(keys.activeTask(taskId)),
    ...(task?.submitted_by ? [store.remove(ownedKey(task.submitted_by, taskId))] : []),
  ]);
}

/** Owner markers whose task is no longer active (a crash between the two removals); run at start-up. */
export async function sweepOwnerMarkers(store: Store, activeTaskIds: ReadonlySet<string>): Promise<void> {
  const stale = (await store.keys('tasks-owned')).filter((key) => !activeTaskIds.has(key.slice(key.lastIndexOf('/') + 1)));
  await Promise.all(stale.map((key) => store.remove(key)));
}
