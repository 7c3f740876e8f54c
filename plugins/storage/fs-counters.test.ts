/**
 * Counters of the fs store as journals of increments (fs-counters.ts): old counter files read as the base, the
 * value exact across restarts, and each crash the module's header names (a torn line, a crash between a
 * compaction's base write and the journal's emptying, a failed append) neither losing nor doubling a delta.
 */
import { describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsStore } from './fs.ts';
import { COMPACT_AFTER_LINES, JOURNAL_SUFFIX, readCounterFile } from './fs-counters.ts';

const freshDir = () => mkdtempSync(join(tmpdir(), 'aeh-fs-counters-'));
const open = (dir: string) => createFsStore(dir, { hashWorkers: { size: 0 } });
const text = (path: string) => readFileSync(path, 'utf8');
const generationOf = (path: string) => (JSON.parse(text(path)) as { journal: string }).journal;

describe('fs counters', () => {
  it('reads a counter file of earlier versions (a bare number) as the base, and journals increments after it', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'stats'));
    writeFileSync(join(dir, 'stats/runs'), '41');
    const store = open(dir);
    expect(await store.getJson('stats/runs')).toBe(41);
    expect(await store.increment('stats/runs', 1)).toBe(42);
    expect(await store.increment('stats/runs', 3)).toBe(45);
    expect(await store.getJson('stats/runs')).toBe(45);
    // The first increment rewrote the base with a generation; each increment since is one line.
    const generation = generationOf(join(dir, 'stats/runs'));
    expect(text(join(dir, 'stats/runs'))).toBe(`{"counter":41,"journal":"${generation}"}`);
    expect(text(join(dir, `stats/runs${JOURNAL_SUFFIX}`))).toBe(`${generation} 1\n${generation} 3\n`);
    // The journal is no key.
    expect(await store.keys('stats')).toEqual(['stats/runs']);
    expect(readCounterFile(join(dir, 'stats/runs'))).toBe(45);
    await store.close();
    const again = open(dir);
    expect(await again.getJson('stats/runs')).toBe(45);
    expect(await again.increment('stats/runs', -5)).toBe(40);
    await again.close();
  });

  it('starts a missing counter at zero and keeps parallel increments exact across a restart', async () => {
    const dir = freshDir();
    const store = open(dir);
    const values = await Promise.all(Array.from({ length: 50 }, (_, index) => store.increment('usage/stored-bytes/o1', index)));
    expect(new Set(values).size).toBe(50);
    expect(await store.getJson('usage/stored-bytes/o1')).toBe(1225);
    await store.close();
    const again = open(dir);
    expect(await again.getJson('usage/stored-bytes/o1')).toBe(1225);
    await again.close();
  });

  it('ignores a torn last line, and the next process compacts it away before appending', async () => {
    const dir = freshDir();
    const store = open(dir);
    await store.increment('c', 10);
    await store.close();
    const journal = join(dir, `c${JOURNAL_SUFFIX}`);
    appendFileSync(journal, `${generationOf(join(dir, 'c'))} 99`);
    const again = open(dir);
    expect(await again.getJson('c')).toBe(10);
    expect(await again.increment('c', 1)).toBe(11);
    expect(text(journal)).not.toContain(' 99');
    await again.close();
    expect(await open(dir).getJson('c')).toBe(11);
  });

  it('counts no delta twice after a crash between a compaction\'s base write and the journal\'s emptying', async () => {
    const dir = freshDir();
    const store = open(dir);
    await store.increment('c', 5);
    await store.increment('c', 7);
    await store.close();
    // The crash: a new base absorbed the two lines (12) under a new generation; the journal still holds them.
    writeFileSync(join(dir, 'c'), '{"counter":12,"journal":"0123456789ab"}');
    const again = open(dir);
    expect(await again.getJson('c')).toBe(12);
    expect(await again.increment('c', 1)).toBe(13);
    await again.close();
    expect(await open(dir).getJson('c')).toBe(13);
  });

  it('loses no delta after a crash before a compaction\'s base write', async () => {
    const dir = freshDir();
    const store = open(dir);
    await store.increment('c', 5);
    await store.increment('c', 7);
    await store.close();
    // The old base and its journal, as a crash before the rewrite leaves them: both lines count.
    expect(readCounterFile(join(dir, 'c'))).toBe(12);
    const again = open(dir);
    expect(await again.getJson('c')).toBe(12);
    await again.close();
  });

  it('fails an increment whose append fails, counts none of it, and compacts before the next', async () => {
    const dir = freshDir();
    const store = open(dir);
    await store.increment('c', 5);
    const journal = join(dir, `c${JOURNAL_SUFFIX}`);
    const generation = generationOf(join(dir, 'c'));
    // An append that cannot be made (the journal is a folder for a moment)...
    rmSync(journal);
    mkdirSync(journal);
    await expect(store.increment('c', 100)).rejects.toThrow();
    expect(await store.getJson('c')).toBe(5);
    // ...and part of its line written, as a failed write may leave.
    rmSync(journal, { recursive: true });
    writeFileSync(journal, `${generation} 100`);
    expect(await store.increment('c', 1)).toBe(6);
    expect(generationOf(join(dir, 'c'))).not.toBe(generation);
    await store.close();
    expect(await open(dir).getJson('c')).toBe(6);
  });

  it('sets a counter with setJson (a bare number: the journal no longer counts) and removes it with its journal', async () => {
    const dir = freshDir();
    const store = open(dir);
    await store.increment('c', 5);
    await store.setJson('c', 0);
    expect(await store.getJson('c')).toBe(0);
    expect(text(join(dir, 'c'))).toBe('0');
    await store.close();
    const again = open(dir);
    expect(await again.getJson('c')).toBe(0);
    expect(await again.increment('c', 2)).toBe(2);
    await again.remove('c');
    expect(await again.getJson('c')).toBeNull();
    expect(readdirSync(dir)).toEqual([]);
    expect(await again.increment('c', 1)).toBe(1);
    await again.close();
  });

  it('resets a counter whose file was deleted by hand (its journal names a generation no base names)', async () => {
    const dir = freshDir();
    const store = open(dir);
    await store.increment('c', 5);
    await store.close();
    rmSync(join(dir, 'c'));
    const again = open(dir);
    expect(await again.getJson('c')).toBeNull();
    expect(await again.increment('c', 1)).toBe(1);
    await again.close();
    expect(await open(dir).getJson('c')).toBe(1);
  });

  it('reads a file shaped like a base but without a journal as its own bytes', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'doc.json'), '{"counter":5,"journal":"0123456789ab"}');
    const store = open(dir);
    expect(await store.getJson('doc.json')).toEqual({ counter: 5, journal: '0123456789ab' });
    await store.close();
  });

  it('compacts a journal grown past its limit into the base', async () => {
    const dir = freshDir();
    const store = open(dir);
    for (let index = 0; index <= COMPACT_AFTER_LINES; index++) await store.increment('c', 1);
    expect(text(join(dir, `c${JOURNAL_SUFFIX}`)).split('\n')).toHaveLength(2);
    expect(JSON.parse(text(join(dir, 'c'))).counter).toBe(COMPACT_AFTER_LINES);
    expect(existsSync(join(dir, 'c'))).toBe(true);
    await store.close();
    expect(await open(dir).getJson('c')).toBe(COMPACT_AFTER_LINES + 1);
  });
});
