import { describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage } from 'unstorage';
import { createFsStore } from '../../storage/fs.ts';
import { createStore } from '../../storage/unstorage-store.ts';
import type { Store } from '../../../core/storage.ts';
import { ACTIVE_JOURNAL_KEY, activeTasks, COMPACT_AFTER_LINES, readJournal } from './active-tasks.ts';

const freshDir = () => mkdtempSync(join(tmpdir(), 'aeh-active-tasks-'));
const journalText = (dir: string) => readFileSync(join(dir, ACTIVE_JOURNAL_KEY), 'utf8');
const sorted = async (store: Store) => (await activeTasks(store).list()).sort();

describe('evaluation: active tasks', () => {
  it('keeps them as lines of one journal on fs: no file per task', async () => {
    const dir = freshDir();
    const store = createFsStore(dir);
    const active = activeTasks(store);
    await Promise.all(['task_a', 'task_b', 'task_c'].map((id) => active.add(id, '2026-12-07T23:00:00.000Z')));
    await active.remove('task_b');
    expect(await sorted(store)).toEqual(['task_a', 'task_c']);
    expect(existsSync(join(dir, 'tasks-active'))).toBe(false);
    expect(journalText(dir)).toBe('+task_a\n+task_b\n+task_c\n-task_b\n');
    // A second release (after a crash) and a second add write nothing.
    await active.remove('task_b');
    await active.add('task_a', '2026-12-07T23:00:00.000Z');
    expect(journalText(dir)).toBe('+task_a\n+task_b\n+task_c\n-task_b\n');
  });

  it('a restart finds exactly the tasks that were active, and rewrites the journal with only them', async () => {
    const dir = freshDir();
    const first = createFsStore(dir);
    for (const id of ['task_1', 'task_2', 'task_3']) await activeTasks(first).add(id, '');
    await activeTasks(first).remove('task_1');
    // The process dies: a new store on the same folder (a new process) reads the journal.
    const second = createFsStore(dir);
    expect(await sorted(second)).toEqual(['task_2', 'task_3']);
    expect(journalText(dir)).toBe('+task_2\n+task_3\n');
  });

  it('ignores a last line torn by a crash, and drops it before the next append', async () => {
    const dir = freshDir();
    const first = createFsStore(dir);
    await activeTasks(first).add('task_kept', '');
    await activeTasks(first).add('task_done', '');
    // Died in the middle of writing `-task_done\n`, then of `+task_new\n` on another attempt.
    appendFileSync(join(dir, ACTIVE_JOURNAL_KEY), '-task_do');
    expect([...readJournal(readFileSync(join(dir, ACTIVE_JOURNAL_KEY)))].sort()).toEqual(['task_done', 'task_kept']);
    const second = createFsStore(dir);
    expect(await sorted(second)).toEqual(['task_done', 'task_kept']);
    await activeTasks(second).add('task_new', '');
    expect(journalText(dir)).toBe('+task_kept\n+task_done\n+task_new\n');
    expect(await sorted(createFsStore(dir))).toEqual(['task_done', 'task_kept', 'task_new']);
  });

  it('reads the marker files of earlier versions into the journal, then removes them', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'tasks-active'), { recursive: true });
    // What main's code left: one file per active task, holding its creation time.
    writeFileSync(join(dir, 'tasks-active', 'task_old'), '2026-12-01T00:00:00.000Z');
    writeFileSync(join(dir, 'tasks-active', 'task_older'), '2026-11-01T00:00:00.000Z');
    const store = createFsStore(dir);
    expect(await sorted(store)).toEqual(['task_old', 'task_older']);
    expect(journalText(dir)).toBe('+task_old\n+task_older\n');
    expect(await store.keys('tasks-active')).toEqual([]);
    await activeTasks(store).remove('task_old');
    expect(await sorted(createFsStore(dir))).toEqual(['task_older']);
  });

  it('reads markers and journal alike when a crash left both (between the rewrite and the removals)', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'tasks-active'), { recursive: true });
    writeFileSync(join(dir, 'tasks-active', 'task_both'), '');
    mkdirSync(join(dir, 'journals'), { recursive: true });
    writeFileSync(join(dir, ACTIVE_JOURNAL_KEY), '+task_both\n+task_journal\n');
    expect(await sorted(createFsStore(dir))).toEqual(['task_both', 'task_journal']);
  });

  it('rewrites the journal once it is long, losing no task added meanwhile', async () => {
    const dir = freshDir();
    const store = createFsStore(dir);
    const active = activeTasks(store);
    await active.add('task_long', '');
    const ids = Array.from({ length: COMPACT_AFTER_LINES }, (_, index) => `task_${index}`);
    // Adds and removals in flight together, across the rewrite.
    await Promise.all(ids.map(async (id) => {
      await active.add(id, '');
      if (id !== 'task_7') await active.remove(id);
    }));
    expect(journalText(dir).split('\n').length).toBeLessThan(2 * COMPACT_AFTER_LINES);
    expect(await sorted(store)).toEqual(['task_7', 'task_long']);
    expect(await sorted(createFsStore(dir))).toEqual(['task_7', 'task_long']);
  });

  it('rewrites the journal after a failed append (part of a line may be written)', async () => {
    const dir = freshDir();
    const store = createFsStore(dir);
    await activeTasks(store).add('task_a', '');
    const append = store.append;
    store.append = async (key, bytes) => {
      appendFileSync(join(dir, key), Buffer.from(bytes).subarray(0, 3));
      throw new Error('ENOSPC');
    };
    await expect(activeTasks(store).add('task_b', '')).rejects.toThrow('ENOSPC');
    store.append = append;
    await activeTasks(store).add('task_c', '');
    expect(journalText(dir)).toBe('+task_a\n+task_c\n');
    expect(await sorted(createFsStore(dir))).toEqual(['task_a', 'task_c']);
  });

  it('keeps one marker per task where the store is shared by instances', async () => {
    const store = createStore('redis', createStorage());
    await activeTasks(store).add('task_x', '2026-12-07T23:00:00.000Z');
    await activeTasks(store).add('task_y', '2026-12-07T23:00:00.000Z');
    await activeTasks(store).remove('task_x');
    expect(await store.keys('tasks-active')).toEqual(['tasks-active/task_y']);
    expect(await store.has(ACTIVE_JOURNAL_KEY)).toBe(false);
    expect(await activeTasks(store).list()).toEqual(['task_y']);
  });
});
