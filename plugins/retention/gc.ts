/**
 * `aeh gc` / `POST /api/v1/gc`: deletes the evidence of the runs retention selects (policy.ts), then the
 * content-addressed blobs no run refers to any more (core/domain/blobs.ts).
 *
 * Crash safety: a run's tombstone is written (atomically) before anything of it is removed, so a collection cut
 * short leaves runs either untouched or marked deleted; the next collection finishes marked runs. A run drops
 * its blob references only after its packed records are gone, and a blob is deleted only when no reference is
 * live (`collectBlob` puts it back if a run referred to it meanwhile). Nothing else is rewritten: remaining runs
 * are never touched.
 */
import type { Store } from '../../core/storage.ts';
import { blobsOf, packedKey, type PackedEvidence } from '../../core/domain/packed-evidence.ts';
import { blobCharge, blobKeys, collectBlob, listBlobs, releaseBlobs } from '../../core/domain/blobs.ts';
import { isValidRunId, keys, type RunRecord, type TaskRecord } from '../../core/domain/runs.ts';
import { pendingRunRecord } from '../../core/domain/run-record.ts';
import { KEPT_AFTER_DELETE, tombstoneKey, type Tombstone } from '../../core/domain/tombstone.ts';
import { selectRuns, type RetentionRules, type RunFacts, type Selected } from './policy.ts';
import { heldRuns } from '../../core/domain/run-holds.ts';

/** A reference younger than this whose run has no record yet belongs to a submission in progress. */
export const REFERENCE_GRACE_MS = 3_600_000;

/** What a collection did (or, dry, would do). */
export interface GcReport {
  dry_run: boolean;
  rules: RetentionRules;
  runs: { examined: number; deleted: number; deleted_ids: string[]; more_deleted?: number };
  blobs: { examined: number; deleted: number };
  bytes_freed: number;
}

/** The most run ids a report lists. */
const LISTED = 1000;

/** Who submitted each run (its task record's `submitted_by`) and whether something holds it: what keep_runs counts by. */
async function factsOfRuns(store: Store, runs: readonly RunRecord[]): Promise<Map<string, RunFacts>> {
  const held = await heldRuns(store);
  const facts = new Map<string, RunFacts>();
  for (let start = 0; start < runs.length; start += 64) {
    await Promise.all(runs.slice(start, start + 64).map(async (run) => {
      const task = isValidRunId(run.task_id) ? await store.getJson<TaskRecord>(keys.task(run.task_id)).catch(() => null) : null;
      facts.set(run.run_id, { ...(task?.submitted_by ? { owner: task.submitted_by } : {}), held: held.has(run.run_id) });
    }));
  }
  return facts;
}

/** Every run id with a directory in the store, and whether it has a record and a tombstone. */
async function runDirectories(store: Store): Promise<Map<string, Set<string>>> {
  const dirs = new Map<string, Set<string>>();
  for (const key of await store.keys('runs')) {
    const [, runId, file] = key.split('/');
    if (!runId || !file || !isValidRunId(runId)) continue;
    if (!dirs.has(runId)) dirs.set(runId, new Set());
    dirs.get(runId)!.add(file);
  }
  return dirs;
}

async function sizeOf(store: Store, keysToSize: string[]): Promise<number> {
  const sizes = await Promise.all(keysToSize.map((key) => store.size(key).catch(() => null)));
  return sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
}

/** The storage keys of a run's files that deletion removes (all but the certificate, its anchor, the tombstone). */
const removableKeys = (runId: string, files: Set<string>) => [...files].filter((file) => !KEPT_AFTER_DELETE.has(file)).map((file) => keys.sidecar(runId, file));

/** Deletes a run's evidence (tombstone first), keeping its certificate; returns the bytes freed. */
async function deleteRun(store: Store, runId: string, files: Set<string>, tombstone: Tombstone | null, taskId: string | undefined, onDeleted?: (deleted: DeletedRun) => Promise<void>): Promise<number> {
  if (tombstone) await store.setJson(tombstoneKey(runId), tombstone);
  // Read before the task record goes: whose stored bytes this frees.
  const submittedBy = taskId && isValidRunId(taskId) ? (await store.getJson<TaskRecord>(keys.task(taskId)).catch(() => null))?.submitted_by : undefined;
  const removable = removableKeys(runId, files);
  const packed = await Promise.all([...files].filter((file) => file.endsWith('.packed')).map((file) => store.getJson<PackedEvidence>(packedKey(runId, file.slice(0, -'.packed'.length))).catch(() => null)));
  const taskKeys = taskId && isValidRunId(taskId) ? [keys.task(taskId)] : [];
  const freed = await sizeOf(store, [...removable, ...taskKeys]);
  // The run record goes last: until then the run is listed, and its tombstone says it is being deleted.
  const record = keys.run(runId);
  await Promise.all([...removable.filter((key) => key !== record), ...taskKeys].map((key) => store.remove(key)));
  await store.remove(record);
  await releaseBlobs(store, runId, packed.flatMap((entry) => (entry ? blobsOf(entry) : [])));
  await onDeleted?.({ run_id: runId, ...(submittedBy ? { submitted_by: submittedBy } : {}), bytes_freed: freed });
  return freed;
}

/** What `collectGarbage` reports of each run it deleted (the `run.deleted` hook's payload). */
export interface DeletedRun {
  run_id: string;
  submitted_by?: string;
  bytes_freed: number;
}

/** What `collectGarbage` reports of each blob it deleted (the `blob.deleted` hook's payload). */
export interface DeletedBlob {
  digest: string;
  charged_to?: string;
  bytes: number;
}

/** Options of `collectGarbage`. */
export interface GcOptions {
  now: number;
  dryRun: boolean;
  /** Called for each run deleted: its owner's stored bytes are credited back. */
  onDeleted?: (deleted: DeletedRun) => Promise<void>;
  /** Called for each blob deleted: the principal it was charged to is credited back. */
  onBlobDeleted?: (deleted: DeletedBlob) => Promise<void>;
}

/** Collects runs and blobs under `rules` at `now`; `dryRun` reports without deleting. */
export async function collectGarbage(store: Store, rules: RetentionRules, options: GcOptions): Promise<GcReport> {
  const { now, dryRun, onDeleted } = options;
  const dirs = await runDirectories(store);
  const records = (await Promise.all([...dirs].filter(([, files]) => files.has('run.json')).map(([runId]) => store.getJson<RunRecord>(keys.run(runId)).catch(() => null)))).filter((run): run is RunRecord => run !== null);
  // Runs marked deleted by a collection that was cut short are finished first.
  const unfinished = [...dirs].filter(([, files]) => files.has('deleted.json') && [...files].some((file) => !KEPT_AFTER_DELETE.has(file)));
  const unfinishedIds = new Set(unfinished.map(([runId]) => runId));
  const candidates = records.filter((run) => !unfinishedIds.has(run.run_id));
  const facts = rules.keep_runs === undefined ? new Map<string, RunFacts>() : await factsOfRuns(store, candidates);
  const selected: Selected[] = selectRuns(candidates, rules, now, (run) => facts.get(run.run_id) ?? {});
  const deletedIds = [...unfinishedIds, ...selected.map((entry) => entry.run.run_id)];
  let bytesFreed = 0;
  const deletedAt = new Date(now).toISOString();
  for (const [runId, files] of unfinished) {
    const task = records.find((run) => run.run_id === runId)?.task_id;
    bytesFreed += dryRun ? await sizeOf(store, removableKeys(runId, files)) : await deleteRun(store, runId, files, null, task, onDeleted);
  }
  for (const { run, agent, rule } of selected) {
    const files = dirs.get(run.run_id)!;
    if (dryRun) {
      bytesFreed += await sizeOf(store, removableKeys(run.run_id, files));
      continue;
    }
    const tombstone: Tombstone = { run_id: run.run_id, deleted_at: deletedAt, reason: 'retention', rule, scenario_id: run.scenario_id, agent, finished_at: run.finished_at, certificate_url: run.certificate_url };
    bytesFreed += await deleteRun(store, run.run_id, files, tombstone, run.task_id, onDeleted);
  }
  const blobs = await collectBlobs(store, new Set(dryRun ? deletedIds : []), dryRun, options.onBlobDeleted);
  return {
    dry_run: dryRun,
    rules,
    runs: { examined: records.length, deleted: deletedIds.length, deleted_ids: deletedIds.slice(0, LISTED), ...(deletedIds.length > LISTED ? { more_deleted: deletedIds.length - LISTED } : {}) },
    blobs: { examined: blobs.examined, deleted: blobs.deleted },
    bytes_freed: bytesFreed + blobs.bytes,
  };
}

/**
 * Deletes unreferenced blobs. A reference is live while its run has a record (`run.json`, or, for a run not
 * ended, its plan and task record) and no tombstone (and, dry, is not among the runs this collection would
 * delete), or, without a record, while it is younger than the grace of a submission in progress. A deleted
 * blob's charge goes, credited back to the principal it was charged to.
 */
async function collectBlobs(store: Store, deleting: ReadonlySet<string>, dryRun: boolean, onDeleted?: (deleted: DeletedBlob) => Promise<void>): Promise<{ examined: number; deleted: number; bytes: number }> {
  const digests = await listBlobs(store);
  let deleted = 0;
  let bytes = 0;
  for (const digest of digests) {
    const size = (await store.size(blobKeys.blob(digest)).catch(() => null)) ?? 0;
    const outcome = await collectBlob(store, digest, async ({ runId, madeAt }) => {
      if (deleting.has(runId) || (await store.has(tombstoneKey(runId)))) return false;
      // A run not ended has no run.json yet (core/domain/run-record.ts): its plan and task record keep it.
      if ((await store.has(keys.run(runId))) || (await pendingRunRecord(store, runId))) return true;
      // References carry the wall-clock time they were made (putBlob), so the grace is measured on it too.
      return Number.isNaN(madeAt) || Date.now() - madeAt < REFERENCE_GRACE_MS;
    }, dryRun);
    if (outcome === 'deleted') {
      deleted++;
      bytes += size;
      if (!dryRun) {
        const charge = await blobCharge(store, digest);
        await store.remove(blobKeys.charge(digest));
        await onDeleted?.({ digest, ...(charge ? { charged_to: charge.owner } : {}), bytes: size });
      }
    }
  }
  return { examined: digests.length, deleted, bytes };
}
