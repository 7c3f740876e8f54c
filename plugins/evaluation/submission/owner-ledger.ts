/**
 * What each principal holds, as the quotas read it (owners.ts): its queued or running tasks with their units,
 * and the bytes its finished runs stored (a byte counter per principal, `usage/stored-bytes/<owner>`).
 *
 * On a store shared by instances (Redis) the record of a principal's outstanding tasks is a marker per task
 * (`tasks-owned/<owner>/<task_id>.<units>`), listed at every reservation. On a store that only this process uses
 * (`memory`, `fs`: their `setIfAbsent` is atomic only here, see principal-lock.ts) the ledger keeps a mirror of
 * each principal's part in memory and writes no markers (issue 36: a marker was an inode made and freed per
 * run): the record is the task's own, its active marker (`tasks-active/<task_id>`) and its task record
 * (`submitted_by`, `progress.total`), which submission writes before its 202 and the release removes before the
 * run's bytes are counted. A mirror is read from them once, at its first use; the byte counter is read once per
 * principal and afterwards only written, and a finished run writes no "counted" claim beside its bytes.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Store } from '../../../core/storage.ts';
import { readTask } from '../../../core/domain/runs.ts';
import { storeIsProcessLocal } from '../../../core/domain/store-locality.ts';
import { activeTasks } from './active-tasks.ts';

const encoder = new TextEncoder();
/** How many finished tasks a mirror remembers as counted (a second release of one comes within moments). */
const COUNTED_REMEMBERED = 10_000;
/** How long the claim of a counted task is kept where the store expires keys (shared stores only). */
const COUNTED_TTL_S = 7 * 24 * 3600;

/** How many principals' storage-safe names are remembered (`ownerKey`). */
const OWNER_KEYS_REMEMBERED = 10_000;
const ownerKeys = new Map<string, string>();

/**
 * A storage-safe name for a principal id (ids hold `|` and `:`, which keys refuse). Remembered: a run asks for
 * its owner's several times, and each SHA-256 in JavaScript cost ~15 µs (issue 36).
 */
export function ownerKey(owner: string): string {
  let key = ownerKeys.get(owner);
  if (key === undefined) {
    key = bytesToHex(sha256(encoder.encode(owner))).slice(0, 32);
    if (ownerKeys.size >= OWNER_KEYS_REMEMBERED) ownerKeys.clear();
    ownerKeys.set(owner, key);
  }
  return key;
}

const ownedPrefix = (owner: string) => `tasks-owned/${ownerKey(owner)}`;
/** A task's marker: versions before units were counted wrote `<task_id>` alone. */
const ownedKey = (owner: string, taskId: string, units?: number) => `${ownedPrefix(owner)}/${taskId}${units === undefined ? '' : `.${units}`}`;
/** Bytes stored for a principal's runs (a counter). */
const storedKey = (owner: string) => `usage/stored-bytes/${ownerKey(owner)}`;
/** Claimed once a run's bytes were counted, so a second release of the task does not count them again. */
const countedKey = (taskId: string) => `usage/counted/${taskId}`;

/** A marker's task id and units (`undefined` for a marker written before units were counted). */
function parseMarker(key: string): { taskId: string; units: number | undefined } {
  const [taskId = '', units] = key.slice(key.lastIndexOf('/') + 1).split('.');
  return { taskId, units: units === undefined ? undefined : Number(units) || 0 };
}

/** A principal's part of the ledger. */
export interface OwnerLedger {
  /** Its queued or running tasks and their units. */
  outstanding(owner: string): Promise<{ tasks: number; units: number }>;
  /** The bytes its finished runs stored. */
  storedBytes(owner: string): Promise<number>;
  /** Records task `taskId` of `units` units as outstanding. */
  hold(owner: string, taskId: string, units: number): Promise<void>;
  /** Records task `taskId` (of `units` units when it was held) as no longer outstanding. */
  drop(owner: string, taskId: string, units?: number): Promise<void>;
  /** Takes `bytes` off a principal's stored bytes (its runs' evidence was deleted), never below zero. */
  uncount(owner: string, bytes: number): Promise<void>;
  /**
   * Takes a place: records task `taskId` of `units` units as outstanding (its marker), then adds `bytes` to the
   * principal's stored bytes (what a submission reserves until its run is counted). Resolves once this ledger's
   * answers include both; `stored` resolves once the store holds both, in that order. A ledger read from the
   * store resolves the two together; a mirrored one answers from memory at once, so that the principal's next
   * reservation need not wait for this one's writes (on `memory` the counter increments of reservations made
   * meanwhile go to the store as one write, plugins/storage/batched-increment.ts; on `fs` each is a line appended
   * to the counter's journal, plugins/storage/fs-counters.ts).
   */
  reserve(owner: string, taskId: string, units: number, bytes: number): Promise<{ stored: Promise<void> }>;
  /**
   * Removes the markers of tasks not in `activeTaskIds` (a crash between two removals); run at start-up. A
   * mirrored ledger, which writes none, removes every marker (left by versions that wrote them).
   */
  sweep(activeTaskIds: ReadonlySet<string>): Promise<void>;
  /**
   * Adds a finished task's bytes (asked for only the first time) to its owner's, once per task; negative takes
   * off (a run that stored less than its submission reserved).
   */
  countOnce(owner: string, taskId: string, bytes: () => Promise<number>): Promise<void>;
}

/** Reads and writes the store every time (a store shared by instances). */
function storeLedger(store: Store): OwnerLedger {
  return {
    async outstanding(owner) {
      const markers = await store.keys(ownedPrefix(owner));
      return { tasks: markers.length, units: markers.reduce((sum, key) => sum + (parseMarker(key).units ?? 0), 0) };
    },
    async storedBytes(owner) {
      return Number(await store.getJson<number>(storedKey(owner))) || 0;
    },
    // An append creates the marker without the fsync of an atomic write; its content does not matter.
    hold: (owner, taskId, units) => store.append(ownedKey(owner, taskId, units), encoder.encode('1')),
    async drop(owner, taskId, units) {
      await Promise.all([store.remove(ownedKey(owner, taskId)), ...(units === undefined ? [] : [store.remove(ownedKey(owner, taskId, units))])]);
    },
    sweep: async (active) => void (await sweepMarkers(store, active)),
    uncount: (owner, bytes) => takeOff(store, owner, bytes),
    async reserve(owner, taskId, units, bytes) {
      await store.append(ownedKey(owner, taskId, units), encoder.encode('1'));
      if (bytes > 0) await store.increment(storedKey(owner), bytes);
      return { stored: Promise.resolve() };
    },
    async countOnce(owner, taskId, bytes) {
      if (!(await store.setIfAbsent(countedKey(taskId), '1', COUNTED_TTL_S))) return;
      const counted = await bytes();
      if (counted > 0) await store.increment(storedKey(owner), counted);
      else await takeOff(store, owner, -counted);
    },
  };
}

/** Takes `bytes` off an owner's counter, setting it to zero where that would pass below. */
async function takeOff(store: Store, owner: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  // Batched with others (plugins/storage/batched-increment.ts), this increment's own value may be below zero
  // while the counter, with the rest of its batch, is not: only the counter as stored is set back to zero.
  if ((await store.increment(storedKey(owner), -bytes)) < 0 && Number(await store.getJson<number>(storedKey(owner))) < 0) await store.setJson(storedKey(owner), 0);
}

/** Removes the markers of tasks not in `active`; answers the removed ones' owner keys and task ids. */
async function sweepMarkers(store: Store, active: ReadonlySet<string>): Promise<Array<{ owner: string; taskId: string }>> {
  const stale = (await store.keys('tasks-owned')).filter((key) => !active.has(parseMarker(key).taskId));
  await Promise.all(stale.map((key) => store.remove(key)));
  return stale.map((key) => ({ owner: key.split('/')[1]!, taskId: parseMarker(key).taskId }));
}

/** One principal's part, mirrored: task id to units (`undefined`: an old marker without units), and bytes. */
interface Mirrored {
  tasks: Map<string, number | undefined>;
  bytes: number;
}

/**
 * A reservation of a mirrored ledger: counted in the mirror at once, before any write, so that the principal's
 * next reservation is checked against it; the promise of the counter's write. The task is recorded as
 * outstanding by its own active marker and record, which submission writes next: a crash before them leaves
 * nothing outstanding, and the bytes reserved counted, as markers did (the safe side of a quota).
 */
function reserveMirrored(store: Store, mirror: Mirrored, owner: string, taskId: string, units: number, bytes: number): Promise<void> {
  mirror.tasks.set(taskId, units);
  if (bytes <= 0) return Promise.resolve();
  mirror.bytes += bytes;
  return store.increment(storedKey(owner), bytes).then(() => undefined, (error: unknown) => {
    mirror.tasks.delete(taskId);
    mirror.bytes -= bytes;
    throw error;
  });
}

/**
 * The outstanding tasks of every principal, by ownerKey: the active tasks (`tasks-active/<task_id>`) whose
 * record names a submitter, with their units. A marker without a record (a crash between the two writes) holds
 * nothing: the start removes it (engine.ts `resumeLeftTasks`).
 */
async function activeTasksByOwner(store: Store): Promise<Map<string, Map<string, number>>> {
  const active = await activeTasks(store).list();
  const records = await Promise.all(active.map((taskId) => readTask(store, taskId).catch(() => null)));
  const byOwner = new Map<string, Map<string, number>>();
  for (const task of records) {
    if (!task?.submitted_by) continue;
    const owner = ownerKey(task.submitted_by);
    let tasks = byOwner.get(owner);
    if (!tasks) byOwner.set(owner, (tasks = new Map()));
    tasks.set(task.task_id, task.progress.total);
  }
  return byOwner;
}

/** Mirrors each principal's part in memory, read from the store at its first use (a store only this process uses). */
function mirroredLedger(store: Store): OwnerLedger {
  const owners = new Map<string, Promise<Mirrored>>();
  const counted = new Set<string>();
  // Every principal's outstanding tasks, read once (one listing of the active tasks serves them all).
  let outstandingTasks: Promise<Map<string, Map<string, number>>> | undefined;
  function readOutstanding() {
    if (!outstandingTasks) {
      outstandingTasks = activeTasksByOwner(store);
      // A failed read is not remembered: the next use reads again.
      outstandingTasks.catch(() => (outstandingTasks = undefined));
    }
    return outstandingTasks;
  }
  function mirrorOf(owner: string): Promise<Mirrored> {
    const key = ownerKey(owner);
    let mirror = owners.get(key);
    if (!mirror) {
      mirror = Promise.all([readOutstanding(), store.getJson<number>(storedKey(owner))]).then(([outstanding, bytes]) => ({
        tasks: new Map<string, number | undefined>(outstanding.get(key) ?? []),
        bytes: Number(bytes) || 0,
      }));
      mirror.catch(() => owners.delete(key));
      owners.set(key, mirror);
    }
    return mirror;
  }
  return {
    async outstanding(owner) {
      const { tasks } = await mirrorOf(owner);
      let units = 0;
      for (const held of tasks.values()) units += held ?? 0;
      return { tasks: tasks.size, units };
    },
    async storedBytes(owner) {
      return (await mirrorOf(owner)).bytes;
    },
    // The task's active marker and record, written by its submission, are its record here.
    async hold(owner, taskId, units) {
      (await mirrorOf(owner)).tasks.set(taskId, units);
    },
    async drop(owner, taskId) {
      (await mirrorOf(owner)).tasks.delete(taskId);
    },
    async sweep() {
      // Markers are no record here (versions before issue 36 wrote them): every one goes.
      const markers = await store.keys('tasks-owned');
      await Promise.all(markers.map((key) => store.remove(key)));
    },
    async uncount(owner, bytes) {
      const mirror = await mirrorOf(owner);
      mirror.bytes = Math.max(0, mirror.bytes - bytes);
      await takeOff(store, owner, bytes);
    },
    reserve: async (owner, taskId, units, bytes) => ({ stored: reserveMirrored(store, await mirrorOf(owner), owner, taskId, units, bytes) }),
    async countOnce(owner, taskId, bytes) {
      // A task's active marker is removed before its bytes are counted (owners.ts), so a task released again
      // after a restart was not counted before it: remembering the counted ones in this process is enough.
      if (counted.has(taskId)) return;
      counted.add(taskId);
      if (counted.size > COUNTED_REMEMBERED) counted.delete(counted.values().next().value!);
      const mirror = await mirrorOf(owner);
      const added = await bytes();
      if (added < 0) {
        mirror.bytes = Math.max(0, mirror.bytes + added);
        await takeOff(store, owner, -added);
      } else if (added > 0) {
        mirror.bytes += added;
        await store.increment(storedKey(owner), added);
      }
    },
  };
}

const ledgers = new WeakMap<Store, OwnerLedger>();

/** The ledger of `store`, one per store in this process. */
export function ledgerOf(store: Store): OwnerLedger {
  let ledger = ledgers.get(store);
  if (!ledger) ledgers.set(store, (ledger = storeIsProcessLocal(store) ? mirroredLedger(store) : storeLedger(store)));
  return ledger;
}
