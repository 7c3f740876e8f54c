/**
 * What each principal holds, so that one principal can neither fill the queue nor the disk, nor starve the
 * others (issue 13 item 7, issue 25 items 11 and 12): its queued or running tasks, their units, and the bytes its
 * runs stored. Each queued or running task has a marker under its owner's prefix
 * (`tasks-owned/<owner>/<task_id>.<units>`), next to the global `tasks-active` marker and removed with it: one
 * key listing counts a principal's tasks and units, on every instance that shares the store. A reservation
 * checks and writes as one step per principal (principal-lock.ts), so parallel submissions cannot overshoot.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { keys, OPTIONAL_SIDECARS, SIDECARS, type TaskRecord } from '../../core/domain/runs.ts';
import type { Config } from '../../core/config.ts';
import type { Store } from '../../core/storage.ts';
import { Problem } from '../../core/problems.ts';
import { withPrincipalLock } from './principal-lock.ts';

const encoder = new TextEncoder();
/** How long a client refused for its queue quota is told to wait: about how long a short run takes. */
export const QUOTA_RETRY_AFTER_SECONDS = 10;

/** A storage-safe name for a principal id (ids hold `|` and `:`, which keys refuse). */
export function ownerKey(owner: string): string {
  return bytesToHex(sha256(encoder.encode(owner))).slice(0, 32);
}

const ownedPrefix = (owner: string) => `tasks-owned/${ownerKey(owner)}`;
/** A task's marker: versions before units were counted wrote `<task_id>` alone. */
const ownedKey = (owner: string, taskId: string, units?: number) => `${ownedPrefix(owner)}/${taskId}${units === undefined ? '' : `.${units}`}`;
/** Bytes stored for a principal's runs (a counter). */
const storedKey = (owner: string) => `usage/stored-bytes/${ownerKey(owner)}`;
/** How long the claim below is kept where the store expires keys: a task is released again within moments. */
const COUNTED_TTL_S = 7 * 24 * 3600;
/** Claimed once a run's bytes were counted, so a second release of the task does not count them again. */
const countedKey = (taskId: string) => `usage/counted/${taskId}`;

/** A principal's queued or running tasks and their units, on any instance. */
async function outstanding(store: Store, owner: string): Promise<{ tasks: number; units: number }> {
  const markers = await store.keys(ownedPrefix(owner));
  let units = 0;
  for (const key of markers) units += Number(key.slice(key.lastIndexOf('/') + 1).split('.')[1] ?? 0) || 0;
  return { tasks: markers.length, units };
}

function quotaExceeded(detail: string, extra: Record<string, number>): Problem {
  return new Problem('quota_exceeded', { detail, headers: { 'Retry-After': String(QUOTA_RETRY_AFTER_SECONDS) }, extra });
}

function tasksExceeded(count: number, limit: number): Problem {
  return quotaExceeded(`${count} of your evaluations are already queued or running; the limit per principal is ${limit} (AEH_MAX_QUEUED_PER_PRINCIPAL). Wait for some to finish or cancel them.`, { limit, outstanding: count });
}

/**
 * Refuses early, before any work, a submission of an owner already at `limit` outstanding tasks: 429
 * `quota_exceeded` with a `Retry-After`. Only a hint: `reserveTask` decides.
 */
export async function checkQueueQuota(store: Store, owner: string, limit: number): Promise<void> {
  const { tasks } = await outstanding(store, owner);
  if (tasks >= limit) throw tasksExceeded(tasks, limit);
}

/** A task's place in its owner's quota, held from submission until the task ends. */
export interface Reservation {
  /** The owner's outstanding tasks before this one (its rank in the queue is that plus one). */
  ahead: number;
  /** Gives the place up (the submission was not stored after all). */
  release(): Promise<void>;
  /** Moves the place to another task id (an idempotent submission taking over an earlier attempt's ids). */
  moveTo(taskId: string): Promise<void>;
  /** Counts the bytes the submission stored (its plan) against the owner. */
  stored(bytes: number): Promise<void>;
}

/**
 * Takes a place for task `taskId` of `units` units, atomically: 429 `quota_exceeded` when the owner would pass
 * `AEH_MAX_QUEUED_PER_PRINCIPAL` tasks or `AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL` units, or its runs already stored
 * `AEH_MAX_STORED_BYTES_PER_PRINCIPAL` bytes.
 */
export async function reserveTask(store: Store, owner: string, taskId: string, units: number, quotas: Config['quotas'], now: () => number): Promise<Reservation> {
  const ahead = await withPrincipalLock(store, ownerKey(owner), now, async () => {
    const held = await outstanding(store, owner);
    if (held.tasks >= quotas.queuedRunsPerPrincipal) throw tasksExceeded(held.tasks, quotas.queuedRunsPerPrincipal);
    if (held.units + units > quotas.queuedUnitsPerPrincipal) {
      throw quotaExceeded(`your queued or running evaluations hold ${held.units} units and this one has ${units}; the limit per principal is ${quotas.queuedUnitsPerPrincipal} (AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL). Wait for some to finish or cancel them.`, { limit: quotas.queuedUnitsPerPrincipal, outstanding_units: held.units, units });
    }
    const storedBytes = Number(await store.getJson<number>(storedKey(owner))) || 0;
    if (storedBytes >= quotas.storedBytesPerPrincipal) {
      throw quotaExceeded(`your runs stored ${storedBytes} bytes; the limit per principal is ${quotas.storedBytesPerPrincipal} (AEH_MAX_STORED_BYTES_PER_PRINCIPAL). Ask the operator to raise it or to archive your runs.`, { limit: quotas.storedBytesPerPrincipal, stored_bytes: storedBytes });
    }
    await store.append(ownedKey(owner, taskId, units), encoder.encode('1'));
    return held.tasks;
  });
  let current = taskId;
  return {
    ahead,
    release: () => store.remove(ownedKey(owner, current, units)),
    async moveTo(next) {
      await store.append(ownedKey(owner, next, units), encoder.encode('1'));
      await store.remove(ownedKey(owner, current, units));
      current = next;
    },
    async stored(bytes) {
      await store.increment(storedKey(owner), bytes);
    },
  };
}

/** Adds what a run stored (trace, sidecars, records, certificate) to its owner's bytes, once per task. */
async function countStoredBytes(store: Store, task: TaskRecord): Promise<void> {
  if (!task.submitted_by || !(await store.setIfAbsent(countedKey(task.task_id), '1', COUNTED_TTL_S))) return;
  const files = [keys.trace(task.run_id), keys.run(task.run_id), keys.certificate(task.run_id), keys.task(task.task_id),
    ...[SIDECARS.scores, SIDECARS.failures, SIDECARS.summary, OPTIONAL_SIDECARS.world].map((file) => keys.sidecar(task.run_id, file))];
  const sizes = await Promise.all(files.map((key) => store.size(key)));
  const bytes = sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
  if (bytes > 0) await store.increment(storedKey(task.submitted_by), bytes);
}

/** Removes a task's active and owner markers (it no longer waits or runs anywhere) and counts what it stored. */
export async function releaseTask(store: Store, taskId: string, task?: TaskRecord | null): Promise<void> {
  await Promise.all([
    store.remove(keys.activeTask(taskId)),
    ...(task?.submitted_by ? [store.remove(ownedKey(task.submitted_by, taskId)), store.remove(ownedKey(task.submitted_by, taskId, task.progress.total))] : []),
  ]);
  if (task) await countStoredBytes(store, task);
}

/** Owner markers whose task is no longer active (a crash between the two removals); run at start-up. */
export async function sweepOwnerMarkers(store: Store, activeTaskIds: ReadonlySet<string>): Promise<void> {
  const stale = (await store.keys('tasks-owned')).filter((key) => !activeTaskIds.has(key.slice(key.lastIndexOf('/') + 1).split('.')[0]!));
  await Promise.all(stale.map((key) => store.remove(key)));
}
