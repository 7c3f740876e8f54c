/**
 * The catalog's loaded files kept between starts (issue 36: a mounted catalog's first search). Loading a file is
 * reading, parsing, validating and converting it (the 5,028 AES files: ~1 s of a worker's CPU); a restart of the
 * same build over the same folders finds most files unchanged, so the prefetch worker (catalog-prefetch-worker.ts)
 * keeps each file's result as JSON text in `<project>/.aeh/cache/catalog-<key>.jsonl`, beside the file's
 * size, modification time and inode taken before it was read, and at the next start uses a kept result only
 * for a file whose three are the same.
 *
 * What decides that a kept result is still the file's, as git and make decide it:
 * - the key: the harness version, the build (dist/.build-stamp's time: any rebuild, so any change to how a file
 *   is loaded, starts afresh), the scenario formats and the folders; another key is another file;
 * - per file, size + mtime + inode as stat gave them before the read: an edit, a replacement (a new inode) or a
 *   touch changes one of them;
 * - "racy" files: a file modified less than `RACY_MS` before the load began could have been modified again within
 *   the file system's timestamp granularity, keeping all three; its result is kept but not trusted, so the next
 *   load reads it again.
 * The cache is a cache: unreadable, from another key, or not ended by its trailer line (a write cut short) it is
 * ignored whole, and a write that fails is dropped. `AEH_CATALOG_CACHE=0` turns it off.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';

/** Files modified this long before a load began are trusted at the next one (FAT's 2 s is the coarsest). */
export const RACY_MS = 2_000;
/** Caches kept per project (the newest): each build has its own, and a rebuild's would otherwise pile up. */
export const KEPT_CACHES = 3;
/** A temporary file this old was left by a write that never finished (a crash): removed at the next write. */
const STALE_TEMPORARY_MS = 10 * 60_000;
const TRAILER = '#end ';

/** A file as stat saw it before it was read. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** One kept file: its stamp and its loaded result (`CatalogFile`) as JSON text. */
export interface KeptFile {
  stamp: FileStamp;
  json: string;
}

/** A cache as read: the files by path, and when the load that wrote it began. */
export interface CatalogCache {
  loadedAt: number;
  files: Map<string, KeptFile>;
}

/** Where the cache of `key` lives, and the key itself (written in the file, checked when read). */
export interface CacheLocation {
  path: string;
  key: string;
}

/** The cache file for this project, build, formats and folders. */
export function catalogCacheLocation(projectRoot: string, parts: { harness: string; build: string; formats: string[]; dirs: ReadonlyArray<{ path: string; source: string }> }): CacheLocation {
  const key = JSON.stringify({ v: 1, ...parts });
  const name = `catalog-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.jsonl`;
  return { path: join(projectRoot, '.aeh', 'cache', name), key };
}

/**
 * What identifies the build loading the files: dist/.build-stamp's time for compiled code (any rebuild changes it),
 * `given` from the sources (tests), else `undefined`: no cache, since sources change without a stamp.
 */
export function buildOf(moduleUrl: string, given?: string): string | undefined {
  if (!moduleUrl.endsWith('.js')) return given;
  try {
    return String(statSync(new URL('../../.build-stamp', moduleUrl)).mtimeMs);
  } catch {
    return undefined;
  }
}

/** The file's size, modification time and inode, or `undefined` when it cannot be stat'ed. */
export function stampOf(path: string): FileStamp | undefined {
  try {
    const { size, mtimeMs, ino } = statSync(path);
    return { size, mtimeMs, ino };
  } catch {
    return undefined;
  }
}

/** The kept result for a file stamped `stamp` now, when the cache may be trusted for it. */
export function keptJson(cache: CatalogCache | undefined, path: string, stamp: FileStamp | undefined): string | undefined {
  const kept = stamp && cache?.files.get(path);
  if (!kept || !stamp) return undefined;
  const same = kept.stamp.size === stamp.size && kept.stamp.mtimeMs === stamp.mtimeMs && kept.stamp.ino === stamp.ino;
  return same && stamp.mtimeMs < cache!.loadedAt - RACY_MS ? kept.json : undefined;
}

/** The cache at `location`, or `undefined` when there is none, it is another key's, or it was cut short. */
export function readCatalogCache(location: CacheLocation): CatalogCache | undefined {
  let text: string;
  try {
    text = readFileSync(location.path, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  try {
    const header = JSON.parse(lines[0] ?? '') as { key?: unknown; loaded_at?: unknown };
    const trailer = lines.at(-1) ?? '';
    if (header.key !== location.key || typeof header.loaded_at !== 'number' || trailer !== `${TRAILER}${lines.length - 2}`) return undefined;
    const files = new Map<string, KeptFile>();
    for (const line of lines.slice(1, -1)) {
      // `<path as JSON>\t<size>\t<mtimeMs>\t<ino>\t<result as JSON>`: JSON text holds no raw tab or newline.
      const [path, size, mtimeMs, ino] = line.split('\t', 4);
      const json = line.slice(path!.length + size!.length + mtimeMs!.length + ino!.length + 4);
      files.set(JSON.parse(path!) as string, { stamp: { size: Number(size), mtimeMs: Number(mtimeMs), ino: Number(ino) }, json });
    }
    return { loadedAt: header.loaded_at, files };
  } catch {
    return undefined;
  }
}

/** Writes the cache (a temporary file renamed over it); a failure is dropped: the next start loads the files. */
export function writeCatalogCache(location: CacheLocation, loadedAt: number, files: Iterable<[string, KeptFile]>): boolean {
  const lines = [JSON.stringify({ key: location.key, loaded_at: loadedAt })];
  for (const [path, { stamp, json }] of files) lines.push(`${JSON.stringify(path)}\t${stamp.size}\t${stamp.mtimeMs}\t${stamp.ino}\t${json}`);
  lines.push(`${TRAILER}${lines.length - 1}`);
  const temporary = `${location.path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(location.path), { recursive: true });
    writeFileSync(temporary, lines.join('\n') + '\n');
    renameSync(temporary, location.path);
  } catch {
    return false;
  }
  prune(dirname(location.path));
  return true;
}

/** Keeps the `KEPT_CACHES` newest caches of the folder, and drops temporary files a crash left. */
function prune(folder: string): void {
  try {
    const entries = readdirSync(folder).filter((name) => name.startsWith('catalog-')).map((name) => ({ path: join(folder, name), name, mtimeMs: statSync(join(folder, name)).mtimeMs }));
    const caches = entries.filter((entry) => entry.name.endsWith('.jsonl')).sort((a, b) => b.mtimeMs - a.mtimeMs);
    const stale = entries.filter((entry) => entry.name.endsWith('.tmp') && entry.mtimeMs < Date.now() - STALE_TEMPORARY_MS);
    for (const entry of [...caches.slice(KEPT_CACHES), ...stale]) unlinkSync(entry.path);
  } catch {
    // Another start pruning at the same time, or a file gone meanwhile: the next write prunes again.
  }
}
