import { describe, it, expect } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCatalogPrefetch } from './catalog-prefetch.ts';
import { collectCatalogFiles } from '../../plugins/catalog/catalog-files.ts';
import { nodeFiles } from './capabilities.ts';
import { aesFormat } from '../../plugins/aes/format.ts';
import { KEPT_CACHES, keptJson, readCatalogCache, RACY_MS, writeCatalogCache } from './catalog-cache.ts';

const native = (id: string, title: string) => ({
  id, title, industry: 'finance', use_case: 'lending', tags: [], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { '*': 'ok' } }, topology: [],
  tasks: [{ id: 't1', input: 'Decide the loan.', metrics: [{ id: 'task_success' }] }],
});
/** A minute ago: older than the racy window, so a cache may trust the file. */
const settled = () => (Date.now() - 60_000) / 1000;

function folder(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-catalog-cache-'));
  for (let at = 0; at < count; at += 1) {
    const path = join(dir, `c${String(at).padStart(2, '0')}.json`);
    writeFileSync(path, at === 3 ? '{"id": ' : JSON.stringify(native(`cached_${at}`, `Cached ${at}`)));
    utimesSync(path, settled(), settled());
  }
  return dir;
}

const cacheFiles = (root: string) => (existsSync(join(root, '.aeh', 'cache')) ? readdirSync(join(root, '.aeh', 'cache')) : []);

/** Waits for the cache file of `root` to be written after `since` (its time), as the worker does a second after the take. */
async function cacheWritten(root: string, since = 0): Promise<string> {
  for (let waited = 0; waited < 120_000; waited += 50) {
    const [name] = cacheFiles(root).filter((file) => file.endsWith('.jsonl'));
    if (name && statSync(join(root, '.aeh', 'cache', name)).mtimeMs > since) return join(root, '.aeh', 'cache', name);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the catalog cache was not written');
}

/** One start's prefetch of `dir` for the project `root`, as the build `build`: its files and how many were kept. */
async function start(root: string, dir: string, build = 'build-1', env: Record<string, string> = {}) {
  const prefetch = startCatalogPrefetch({ PROJECT_ROOT: root, AEH_CATALOG_DIRS: dir, ...env }, root, { build })!;
  const { formats, reused, ...files } = (await prefetch.take())!;
  const inline = await collectCatalogFiles({ files: nodeFiles(), dirs: prefetch.dirs, formats: [aesFormat] });
  // Whatever came from the cache is what the catalog would load itself now.
  expect(files).toEqual(JSON.parse(JSON.stringify(inline)));
  return { files, reused: reused ?? 0, total: files.loaded.length };
}

describe('catalog cache (issue 36: a restart does not load unchanged catalog files again)', () => {
  it('keeps the files a start loaded for the next start of the same build, and loads again only what changed', async () => {
    const dir = folder(8);
    const root = mkdtempSync(join(tmpdir(), 'aeh-catalog-cache-root-'));
    const first = await start(root, dir);
    expect(first.reused).toBe(0);
    let cache = await cacheWritten(root);

    const second = await start(root, dir);
    expect(second.reused).toBe(second.total);
    const unchangedAt = statSync(cache).mtimeMs;

    // An edit (a new size), and a replacement with the same size and time but another file (a new inode).
    writeFileSync(join(dir, 'c01.json'), JSON.stringify(native('cached_1', 'Edited title')));
    utimesSync(join(dir, 'c01.json'), settled(), settled());
    const before = statSync(join(dir, 'c02.json'));
    writeFileSync(join(dir, 'replacement'), JSON.stringify(native('cached_2', 'Cached Z')));
    renameSync(join(dir, 'replacement'), join(dir, 'c02.json'));
    utimesSync(join(dir, 'c02.json'), before.atime, before.mtime);
    expect(statSync(join(dir, 'c02.json')).size).toBe(before.size);
    const third = await start(root, dir);
    expect(third.reused).toBe(third.total - 2);
    const titles = third.files.loaded.filter((file) => file.source === dir).map((file) => file.scenario?.title);
    expect(titles).toContain('Edited title');
    expect(titles).toContain('Cached Z');
    cache = await cacheWritten(root, unchangedAt);

    // Another build (a rebuild changes how files load) starts afresh, in a cache of its own.
    expect((await start(root, dir, 'build-2')).reused).toBe(0);
    expect((await start(root, dir)).reused).toBe(third.total);
  }, 240_000);

  it('does not trust a file modified within the racy window, and loads it again at the next start', async () => {
    const dir = folder(5);
    writeFileSync(join(dir, 'c00.json'), JSON.stringify(native('cached_0', 'Just written')));
    // Modified at the load's time or later (a machine's load cannot move it out of the window): here, ahead of the clock.
    const ahead = (Date.now() + 30_000) / 1000;
    utimesSync(join(dir, 'c00.json'), ahead, ahead);
    const root = mkdtempSync(join(tmpdir(), 'aeh-catalog-cache-root-'));
    await start(root, dir);
    await cacheWritten(root);
    const next = await start(root, dir);
    // Not older than RACY_MS when the first load began: its stamp could hide an edit in the same tick.
    expect(next.reused).toBe(next.total - 1);
    expect(next.files.loaded.find((file) => file.path.endsWith('c00.json'))?.scenario?.title).toBe('Just written');
  }, 240_000);

  it('is off with AEH_CATALOG_CACHE=0, and ignores a cache cut short or of another key', async () => {
    const dir = folder(4);
    const off = mkdtempSync(join(tmpdir(), 'aeh-catalog-cache-root-'));
    await start(off, dir, 'build-1', { AEH_CATALOG_CACHE: '0' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(cacheFiles(off)).toEqual([]);

    const root = mkdtempSync(join(tmpdir(), 'aeh-catalog-cache-root-'));
    await start(root, dir);
    const cache = await cacheWritten(root);
    const text = readFileSync(cache, 'utf8');
    writeFileSync(cache, text.slice(0, Math.floor(text.length * 0.6)));
    expect((await start(root, dir)).reused).toBe(0);
    expect(readCatalogCache({ path: cache, key: 'another key' })).toBeUndefined();
  }, 240_000);

  it('reads back what it wrote, and hands out a kept result only for the same size, time and inode, outside the racy window', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'aeh-catalog-cache-unit-')), 'c.jsonl');
    const stamp = { size: 10, mtimeMs: 1_000.5, ino: 42 };
    const strange = '/a\tpath\nwith "quotes"';
    expect(writeCatalogCache({ path, key: 'k' }, 1_000 + RACY_MS + 1, [[strange, { stamp, json: '{"path":"x","source":"s"}' }]])).toBe(true);
    const cache = readCatalogCache({ path, key: 'k' })!;
    expect(cache.files.get(strange)).toEqual({ stamp, json: '{"path":"x","source":"s"}' });
    expect(keptJson(cache, strange, stamp)).toBe('{"path":"x","source":"s"}');
    expect(keptJson(cache, strange, { ...stamp, size: 11 })).toBeUndefined();
    expect(keptJson(cache, strange, { ...stamp, mtimeMs: 1_000.6 })).toBeUndefined();
    expect(keptJson(cache, strange, { ...stamp, ino: 43 })).toBeUndefined();
    expect(keptJson(cache, strange, undefined)).toBeUndefined();
    expect(keptJson({ ...cache, loadedAt: 1_000 + RACY_MS }, strange, stamp)).toBeUndefined();
    expect(keptJson(cache, '/other', stamp)).toBeUndefined();
  });

  it('keeps the newest caches of a project only, and removes what a write cut short by a crash left', () => {
    const folder = mkdtempSync(join(tmpdir(), 'aeh-catalog-cache-prune-'));
    const old = (Date.now() - 3_600_000) / 1000;
    writeFileSync(join(folder, 'catalog-crashed.jsonl.1.tmp'), 'half');
    utimesSync(join(folder, 'catalog-crashed.jsonl.1.tmp'), old, old);
    writeFileSync(join(folder, 'catalog-writing.jsonl.2.tmp'), 'another start writing now');
    for (let build = 0; build < KEPT_CACHES + 2; build += 1) {
      writeCatalogCache({ path: join(folder, `catalog-b${build}.jsonl`), key: `b${build}` }, 0, []);
      // Older builds older on disk, as rebuilds follow one another.
      const at = (Date.now() - (KEPT_CACHES + 2 - build) * 60_000) / 1000;
      utimesSync(join(folder, `catalog-b${build}.jsonl`), at, at);
    }
    writeCatalogCache({ path: join(folder, 'catalog-now.jsonl'), key: 'now' }, 0, []);
    expect(readdirSync(folder).sort()).toEqual(['catalog-b3.jsonl', 'catalog-b4.jsonl', 'catalog-now.jsonl', 'catalog-writing.jsonl.2.tmp']);
  });
});
