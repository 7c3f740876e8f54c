/**
 * The tasks still queued or running: what a starting instance resumes (engine.ts `resumeLeftTasks`) and what
 * the quota ledger counts as outstanding (owner-ledger.ts). Submission adds a task before its 202; the release
 * (owners.ts `releaseTask`) removes it when the task is final, before its bytes are counted.
 *
 * On a store shared by instances (Redis) each active task is a marker key, `tasks-active/<task_id>`, which any
 * instance lists. On a store that only this process uses (`memory`, `fs`) the set is one append-only journal,
 * `journals/tasks-active`, of `+<task_id>` and `-<task_id>` lines (issue 36: a marker was an inode made and
 * freed per run, 140–420 µs of CPU on ext4; an append to an existing file costs a few). The set is kept in memory
 * too; the journal is read once, at the first use, and rewritten then (an atomic write of one `+` line per active
 * task), and again whenever it has grown past `COMPACT_AFTER_LINES` lines, so it stays small.
 *
 * Crashes: a line is one `write` of a file opened for appending, so a process that dies leaves every line it
 * wrote whole but perhaps the last, torn. A torn line has no newline: reading ignores it (a torn `+` belongs to a
 * submission that never answered 202, as a marker that was never created; a torn `-` leaves a final task active,
 * which the start resumes and finds final, as a crash before a marker's removal did), and the rewrite at the first
 * use drops it before anything is appended. A failed append may have written part of a line: the next operation
 * rewrites the journal first. Markers written by earlier versions (`tasks-active/<task_id>` on every store) are
 * read at the first use, written into the journal, then removed; a crash in between leaves both, which read alike.
 */
import type { Store } from '../../../core/storage.ts';
import { isValidRunId, keys } from '../../../core/domain/runs.ts';
import { storeIsProcessLocal } from '../../../core/domain/store-locality.ts';

/** The journal of a process-local store. */
export const ACTIVE_JOURNAL_KEY = 'journals/tasks-active';
/** Where every store kept (and a shared store keeps) one marker per active task. */
const MARKER_PREFIX = 'tasks-active';
/** Lines past which the journal is rewritten with only the active tasks (~2 lines a run, ~30 bytes each). */
export const COMPACT_AFTER_LINES = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The set of active tasks of one store. */
export interface ActiveTasks {
  /** Records a task as queued (before its submission answers 202). */
  add(taskId: string, createdAt: string): Promise<void>;
  /** Records a task as final. */
  remove(taskId: string): Promise<void>;
  /** The ids of the tasks queued or running, in no particular order. */
  list(): Promise<string[]>;
}

const taskIdOf = (key: string) => key.slice(key.lastIndexOf('/') + 1);

/** One marker key per task (a store shared by instances). */
function markerTasks(store: Store): ActiveTasks {
  return {
    // An append creates the marker without the fsync of an atomic write; its content does not matter.
    add: (taskId, createdAt) => store.append(keys.activeTask(taskId), encoder.encode(createdAt)),
    remove: (taskId) => store.remove(keys.activeTask(taskId)),
    list: async () => (await store.keys(MARKER_PREFIX)).map(taskIdOf),
  };
}

/** The active set a journal's bytes describe; a last line without its newline (torn by a crash) is ignored. */
export function readJournal(bytes: Uint8Array | null): Set<string> {
  const active = new Set<string>();
  if (!bytes) return active;
  const lines = decoder.decode(bytes).split('\n');
  lines.pop();
  for (const line of lines) {
    const taskId = line.slice(1);
    if (!isValidRunId(taskId)) continue;
    if (line[0] === '+') active.add(taskId);
    else if (line[0] === '-') active.delete(taskId);
  }
  return active;
}

/** The journal of a process-local store, its operations one at a time (a rewrite must not lose an append). */
function journalTasks(store: Store): ActiveTasks {
  let active: Set<string> | undefined;
  let lines = 0;
  let rewrite = true;
  let tail: Promise<unknown> = Promise.resolve();
  const serialised = <T>(work: () => Promise<T>): Promise<T> => {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  };

  async function load(): Promise<Set<string>> {
    if (active) return active;
    const [journal, markers] = await Promise.all([store.getBytes(ACTIVE_JOURNAL_KEY), store.keys(MARKER_PREFIX)]);
    const loaded = readJournal(journal);
    for (const key of markers) if (isValidRunId(taskIdOf(key))) loaded.add(taskIdOf(key));
    await compact(loaded);
    // Only once the journal holds them: a crash before leaves the markers, which the next start reads again.
    await Promise.all(markers.map((key) => store.remove(key)));
    return (active = loaded);
  }

  async function compact(tasks: Set<string>): Promise<void> {
    await store.setBytes(ACTIVE_JOURNAL_KEY, encoder.encode([...tasks].map((taskId) => `+${taskId}\n`).join('')));
    lines = tasks.size;
    rewrite = false;
  }

  async function record(op: '+' | '-', taskId: string): Promise<void> {
    const tasks = await load();
    // The journal says what memory does: a second release of a task (after a crash) has nothing to write.
    if (tasks.has(taskId) === (op === '+')) return;
    if (rewrite || lines >= Math.max(COMPACT_AFTER_LINES, 2 * tasks.size)) await compact(tasks);
    try {
      await store.append(ACTIVE_JOURNAL_KEY, encoder.encode(`${op}${taskId}\n`));
    } catch (error) {
      // Part of the line may be written: the next operation starts from a rewritten journal.
      rewrite = true;
      throw error;
    }
    lines++;
    if (op === '+') tasks.add(taskId);
    else tasks.delete(taskId);
  }

  return {
    add: (taskId) => serialised(() => record('+', taskId)),
    remove: (taskId) => serialised(() => record('-', taskId)),
    list: () => serialised(async () => [...(await load())]),
  };
}

const byStore = new WeakMap<Store, ActiveTasks>();

/** The active tasks of `store`: a journal where this process is its only user, markers where it is shared. */
export function activeTasks(store: Store): ActiveTasks {
  let tasks = byStore.get(store);
  if (!tasks) byStore.set(store, (tasks = storeIsProcessLocal(store) ? journalTasks(store) : markerTasks(store)));
  return tasks;
}
