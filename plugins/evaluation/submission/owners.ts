/**
 * What each principal holds, so that one principal can neither fill the queue nor the disk, nor starve the
 * others (issue 13 item 7, issue 25 items 11 and 12): its queued or running tasks, their units, and the bytes its
 * runs stored, as the ledger (owner-ledger.ts) keeps them. A reservation checks and writes as one step per
 * principal (principal-lock.ts), so parallel submissions cannot overshoot.
 */
import { keys, type TaskRecord } from '../../../core/domain/runs.ts';
import type { Config } from '../../../core/config.ts';
import type { Store } from '../../../core/storage.ts';
import { Problem } from '../../../core/problems.ts';
import { ledgerOf, ownerKey } from './owner-ledger.ts';
import { withPrincipalLock } from './principal-lock.ts';
import { activeTasks } from './active-tasks.ts';
import { blobCharge, blobKeys } from '../../../core/domain/blobs.ts';
import { blobsOf, type PackedEvidence } from '../../../core/domain/packed-evidence.ts';

/** How long a client refused for its queue quota is told to wait: about how long a short run takes. */
export const QUOTA_RETRY_AFTER_SECONDS = 10;

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
  const { tasks } = await ledgerOf(store).outstanding(owner);
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
}

/**
 * Takes a place for task `taskId` of `units` units, atomically: 429 `quota_exceeded` when the owner would pass
 * `AEH_MAX_QUEUED_PER_PRINCIPAL` tasks or `AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL` units, or its runs already stored
 * `AEH_MAX_STORED_BYTES_PER_PRINCIPAL` bytes or would with the `bytes` this submission may store (its scenario and
 * initial world: issue 33 item 2, a cap on inline `initial_state` per principal, not only per body). Those bytes
 * count at once, until the run is counted for what it really stored (`releaseTask`).
 */
export async function reserveTask(store: Store, owner: string, taskId: string, units: number, quotas: Config['quotas'], now: () => number, bytes = 0): Promise<Reservation> {
  const ledger = ledgerOf(store);
  const { ahead, stored } = await withPrincipalLock(store, ownerKey(owner), now, async () => {
    const held = await ledger.outstanding(owner);
    if (held.tasks >= quotas.queuedRunsPerPrincipal) throw tasksExceeded(held.tasks, quotas.queuedRunsPerPrincipal);
    if (held.units + units > quotas.queuedUnitsPerPrincipal) {
      throw quotaExceeded(`your queued or running evaluations hold ${held.units} units and this one has ${units}; the limit per principal is ${quotas.queuedUnitsPerPrincipal} (AEH_MAX_QUEUED_UNITS_PER_PRINCIPAL). Wait for some to finish or cancel them.`, { limit: quotas.queuedUnitsPerPrincipal, outstanding_units: held.units, units });
    }
    const storedBytes = await ledger.storedBytes(owner);
    if (storedBytes >= quotas.storedBytesPerPrincipal) {
      throw quotaExceeded(`your runs stored ${storedBytes} bytes; the limit per principal is ${quotas.storedBytesPerPrincipal} (AEH_MAX_STORED_BYTES_PER_PRINCIPAL). Ask the operator to raise it or to archive your runs.`, { limit: quotas.storedBytesPerPrincipal, stored_bytes: storedBytes });
    }
    if (storedBytes + bytes > quotas.storedBytesPerPrincipal) {
      throw quotaExceeded(`your runs stored ${storedBytes} bytes and this one may store ${bytes} more (its scenario and initial world); the limit per principal is ${quotas.storedBytesPerPrincipal} (AEH_MAX_STORED_BYTES_PER_PRINCIPAL). Make its initial_state smaller, or ask the operator to raise the limit or to archive your runs.`, { limit: quotas.storedBytesPerPrincipal, stored_bytes: storedBytes, bytes });
    }
    return { ahead: held.tasks, ...(await ledger.reserve(owner, taskId, units, bytes)) };
  });
  // Outside the lock: the principal's next reservation is checked against this one already (see `reserve`).
  await stored;
  let current = taskId;
  return {
    ahead,
    async release() {
      await ledger.drop(owner, current, units);
      await ledger.uncount(owner, bytes);
    },
    async moveTo(next) {
      await ledger.hold(owner, next, units);
      await ledger.drop(owner, current, units);
      current = next;
    },
  };
}

/**
 * What a run stored: every file of its folder (plan, trace, sidecars, record, certificate; a plan or world stored
 * packed counts its packed record), its task record, and the blobs charged to it, those it was the first to write
 * (core/domain/blobs.ts). Read from the folder, as retention measures what it frees (plugins/retention/gc.ts), so
 * a new sidecar counts too.
 */
async function storedBytesOf(store: Store, task: TaskRecord): Promise<number> {
  const files = [...(await store.keys(keys.runDir(task.run_id))), keys.task(task.task_id)];
  const sizes = await Promise.all(files.map((key) => store.size(key)));
  const packed = await Promise.all(files.filter((key) => key.endsWith('.packed')).map((key) => store.getJson<PackedEvidence>(key).catch(() => null)));
  const blobs = [...new Set(packed.flatMap((entry) => (entry ? blobsOf(entry) : [])))];
  const charged = await Promise.all(blobs.map(async (digest) => ((await blobCharge(store, digest))?.run_id === task.run_id ? store.size(blobKeys.blob(digest)) : 0)));
  return [...sizes, ...charged].reduce<number>((sum, size) => sum + (size ?? 0), 0);
}

/**
 * Removes a task's active and owner markers (it no longer waits or runs anywhere), then counts what it stored
 * against its owner, once. In this order a task released again after a crash had not been counted yet.
 */
export async function releaseTask(store: Store, taskId: string, task?: TaskRecord | null): Promise<void> {
  const ledger = ledgerOf(store);
  await Promise.all([
    activeTasks(store).remove(taskId),
    ...(task?.submitted_by ? [ledger.drop(task.submitted_by, taskId, task.progress.total)] : []),
  ]);
  // What the submission reserved is given back here, in the same step as what the run really stored.
  if (task?.submitted_by) await ledger.countOnce(task.submitted_by, taskId, async () => (await storedBytesOf(store, task)) - (task.reserved_bytes ?? 0));
}

/** Takes a deleted run's evidence off its owner's stored bytes (the `run.deleted` hook). */
export function creditDeleted(store: Store, owner: string, bytes: number): Promise<void> {
  return ledgerOf(store).uncount(owner, bytes);
}

/** Owner markers whose task is no longer active (a crash between the two removals); run at start-up. */
export function sweepOwnerMarkers(store: Store, activeTaskIds: ReadonlySet<string>): Promise<void> {
  return ledgerOf(store).sweep(activeTaskIds);
}
