/**
 * The run index: newest-first listing of runs with cursor paging (`GET /api/v1/runs`) without scanning every
 * run. Each run takes the next value of the run counter (`stats/runs`, which `GET /api/info` also reports) and
 * appends `<seq> <run_id>` to page `floor(seq / PAGE_SIZE)`; a listing reads only the pages it returns from.
 */
import { keys } from '../../../core/domain/runs.ts';
import type { Store } from '../../../core/storage.ts';
import { Problem } from '../../../core/problems.ts';

/** Runs per index page. */
export const PAGE_SIZE = 1000;

const encoder = new TextEncoder();

/** Adds runs to the index; `add` resolves with the run's sequence number (1-based) once it is stored. */
export interface RunIndexer {
  add(runId: string): Promise<number>;
}

/**
 * Creates the indexer of one instance. Runs submitted while a counter update is in flight are indexed together:
 * one `increment(by: n)` and one append per page for the whole batch, so a burst does not queue up behind
 * one storage round trip per run.
 */
export function createRunIndexer(store: Store): RunIndexer {
  type Waiter = { runId: string; resolve(seq: number): void; reject(error: unknown): void };
  let waiting: Waiter[] = [];
  let draining = false;
  async function drain(): Promise<void> {
    draining = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const last = await store.increment(keys.runCounter, batch.length);
        const pages = new Map<number, string>();
        batch.forEach((waiter, index) => {
          const seq = last - batch.length + 1 + index;
          const page = Math.floor(seq / PAGE_SIZE);
          pages.set(page, `${pages.get(page) ?? ''}${seq} ${waiter.runId}\n`);
        });
        await Promise.all([...pages].map(([page, lines]) => store.append(keys.runIndexPage(page), encoder.encode(lines))));
        batch.forEach((waiter, index) => waiter.resolve(last - batch.length + 1 + index));
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
      }
    }
    draining = false;
  }
  return {
    add(runId) {
      return new Promise<number>((resolve, reject) => {
        waiting.push({ runId, resolve, reject });
        if (!draining) void drain();
      });
    },
  };
}

/** Encodes the position after which the next page starts. */
function encodeCursor(seq: number): string {
  return btoa(`runs:${seq}`).replace(/=+$/, '');
}

/** Decodes a cursor from `next_cursor`; a malformed one is a `validation_failed`. */
export function decodeCursor(cursor: string): number {
  let seq = Number.NaN;
  try {
    const text = atob(cursor);
    if (text.startsWith('runs:')) seq = Number(text.slice(5));
  } catch {
    // handled below
  }
  if (!Number.isSafeInteger(seq) || seq < 1) throw new Problem('validation_failed', { detail: 'cursor is not a value this service returned', errors: [{ path: '/cursor', message: 'is not a valid cursor' }] });
  return seq;
}

async function readPage(store: Store, page: number): Promise<Array<[number, string]>> {
  const bytes = await store.getBytes(keys.runIndexPage(page));
  if (!bytes) return [];
  const entries: Array<[number, string]> = [];
  for (const line of new TextDecoder().decode(bytes).split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const seq = Number(line.slice(0, space));
    if (Number.isSafeInteger(seq)) entries.push([seq, line.slice(space + 1)]);
  }
  return entries;
}

/**
 * Run ids newest first, strictly older than `before` (a sequence number from a cursor), at most `limit`;
 * `next_cursor` is `null` on the last page.
 */
export async function listRunIds(store: Store, options: { before?: number; limit: number }): Promise<{ ids: string[]; next_cursor: string | null }> {
  const head = Number((await store.getJson<number>(keys.runCounter)) ?? 0);
  const below = Math.min(options.before ?? head + 1, head + 1);
  const picked: Array<[number, string]> = [];
  for (let page = Math.floor((below - 1) / PAGE_SIZE); page >= 0 && picked.length <= options.limit; page--) {
    // Appends from concurrent submissions may land out of order within a page: sort, newest first.
    const entries = (await readPage(store, page)).filter(([seq]) => seq < below).sort((a, b) => b[0] - a[0]);
    picked.push(...entries.slice(0, options.limit + 1 - picked.length));
  }
  const more = picked.length > options.limit;
  const items = picked.slice(0, options.limit);
  return { ids: items.map(([, id]) => id), next_cursor: more ? encodeCursor(items[items.length - 1]![0]) : null };
}
