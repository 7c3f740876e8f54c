import { describe, it, expect } from 'vitest';
import { createStorage } from 'unstorage';
import { createStore } from '../../storage/unstorage-store.ts';
import { createRunIndexer, decodeCursor, listRunIds, PAGE_SIZE } from './run-index.ts';

describe('evaluation: run index', () => {
  it('numbers a burst of runs without gaps, in one counter update per batch', async () => {
    const store = createStore('memory', createStorage());
    let increments = 0;
    const counted = { ...store, increment: (key: string, by?: number) => (increments++, store.increment(key, by)) };
    const indexer = createRunIndexer(counted);
    const seqs = await Promise.all(Array.from({ length: 50 }, (_, index) => indexer.add(`run_${index}`)));
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
    expect(increments).toBeLessThan(50);
    expect(await store.getJson('stats/runs')).toBe(50);
  });

  it('lists newest first across pages and pages on with the cursor', async () => {
    const store = createStore('memory', createStorage());
    const indexer = createRunIndexer(store);
    const total = PAGE_SIZE + 5;
    for (let index = 1; index <= total; index++) await indexer.add(`run_${index}`);
    const first = await listRunIds(store, { limit: 3 });
    expect(first.ids).toEqual([`run_${total}`, `run_${total - 1}`, `run_${total - 2}`]);
    let cursor = first.next_cursor;
    const seen = [...first.ids];
    while (cursor) {
      const page = await listRunIds(store, { limit: 100, before: decodeCursor(cursor) });
      seen.push(...page.ids);
      cursor = page.next_cursor;
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen.at(-1)).toBe('run_1');
  });

  it('refuses cursors it did not issue', () => {
    for (const bad of ['', 'abc', btoa('runs:-1'), btoa('runs:1.5'), btoa('other:3')]) expect(() => decodeCursor(bad)).toThrow(/cursor/);
  });
});
