/**
 * The embedded default store: files under `AEH_DATA_DIR`, laid out as the contract's "Data on disk" says
 * (`runs/<run_id>/certificate.json`). Built on unstorage's `fs` driver, with the abilities unstorage lacks:
 * atomic writes (temp file in the same folder, fsync, rename), appends, streamed reads, free space, and a
 * change proof (`fingerprint`) from one `stat`.
 */
import { promises as fsp, appendFileSync, close, closeSync, fstat, fstatSync, open, openSync, read, readFile, readSync, statSync, type Dirent } from 'node:fs';
import { concatBytes } from '@noble/hashes/utils.js';
import { join, resolve, relative, sep } from 'node:path';
import { createStorage } from 'unstorage';
import fsDriver from 'unstorage/drivers/fs';
import type { Plugin } from '../../core/plugin.ts';
import { type StorageDriver } from '../../core/storage.ts';
import { asText, textSettings } from '../../core/plugin-settings.ts';
import { createStore, storageKey } from './unstorage-store.ts';
import { call, missing, inFolder, SYNC_WRITE_MAX_BYTES, TEMP_SUFFIX, writeFileAtomic } from './fs-write.ts';
import { createHashBuffers, hashFileInto } from './fs-hash.ts';
import { createHashPool, type HashPoolOptions } from './fs-hash-pool.ts';
import { createFsCounters, JOURNAL_SUFFIX } from './fs-counters.ts';

export { writeFileAtomic } from './fs-write.ts';

const MAX_READ = 8 << 20;
/**
 * A file whose status changed less than this long ago gets no fingerprint. Timestamps are kept at the clock
 * tick (Linux: 1–10 ms; FAT: 2 s), so two writes within one tick can leave the same ctime ("racy git"): only a
 * file that has been still for longer than any tick proves, by an unchanged ctime, that nothing wrote it since.
 */
export const FINGERPRINT_SETTLE_MS = 2000;

/**
 * Reads a regular file; `null` when it is missing or not a file. Files up to `syncMaxBytes` are read
 * synchronously: on a local disk an open, fstat, read and close from the page cache take ~4 µs, while each
 * asynchronous step is a round trip through libuv's thread pool costing the event loop ~10 µs, so four of
 * them cost ten times the read itself (and capped public verification, which reads seven files a request).
 * Larger files are read asynchronously, without a FileHandle.
 */
function readOrNull(path: string, syncMaxBytes: number): Promise<Uint8Array | null> {
  if (syncMaxBytes > 0) {
    let fd: number;
    try {
      // A missing file is common (a tombstone, an optional sidecar): a stat that answers `undefined` costs ~2 µs
      // where an open that throws ENOENT costs ~15 (the error and its stack).
      if (!statSync(path, { throwIfNoEntry: false })) return Promise.resolve(null);
      fd = openSync(path, 'r');
    } catch (error) {
      return missing(error) ? Promise.resolve(null) : Promise.reject(error);
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) return Promise.resolve(null);
      if (stat.size <= syncMaxBytes) {
        // One byte more than the size: a short read proves the end, and a file that grew is read on.
        const chunks: Uint8Array[] = [];
        let total = 0;
        for (;;) {
          // Zeroed and unpooled: a caller reaching for `.buffer` sees this file's bytes and zeros, nothing else.
          const buffer = new Uint8Array(Math.max(stat.size - total, 0) + 1);
          const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
          if (bytesRead > 0) chunks.push(buffer.subarray(0, bytesRead));
          total += bytesRead;
          if (bytesRead < buffer.length) break;
        }
        return Promise.resolve(chunks.length === 1 ? chunks[0]! : concatBytes(...chunks));
      }
    } catch (error) {
      return Promise.reject(error);
    } finally {
      closeSync(fd);
    }
  }
  return new Promise((resolve, reject) => {
    readFile(path, (error, bytes) => {
      if (!error) resolve(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      else if (missing(error)) resolve(null);
      else reject(error);
    });
  });
}

/**
 * Streams a regular file on one descriptor; `null` when it is missing or not a file. Each read asks for one
 * byte more than the file's remaining size (at most 8 MiB), so a short read proves the end of the file and a
 * file up to 8 MiB costs open, fstat, one read and close; a file that grows meanwhile is read to its new end.
 */
async function streamFile(path: string): Promise<ReadableStream<Uint8Array> | null> {
  let fd: number;
  try {
    fd = await call<number>((done) => open(path, 'r', done));
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
  let released = false;
  const release = () => new Promise<void>((resolve) => (released ? resolve() : ((released = true), close(fd, () => resolve()))));
  let remaining: number;
  try {
    const stat = await call<{ isFile(): boolean; size: number }>((done) => fstat(fd, done));
    if (!stat.isFile()) {
      await release();
      return null;
    }
    remaining = stat.size;
  } catch (error) {
    await release();
    throw error;
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const wanted = Math.min(Math.max(remaining, 0) + 1, MAX_READ);
        // Zeroed and unpooled, as in readOrNull (large ones come zeroed from the OS at no extra cost).
        const buffer = new Uint8Array(wanted);
        const bytesRead = await call<number>((done) => read(fd, buffer, 0, wanted, null, done));
        remaining -= bytesRead;
        if (bytesRead > 0) controller.enqueue(buffer.subarray(0, bytesRead));
        if (bytesRead < wanted) {
          await release();
          controller.close();
        }
      } catch (error) {
        await release();
        controller.error(error);
      }
    },
    cancel: release,
  });
}

/**
 * `dev:ino:size:mtime:ctime` (ns) of a regular file that has been still for FINGERPRINT_SETTLE_MS, else `null`.
 * One synchronous `stat` (microseconds; see readOrNull).
 */
function fingerprintFile(path: string, now: () => number): Promise<string | null> {
  let stat;
  try {
    stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    return missing(error) ? Promise.resolve(null) : Promise.reject(error);
  }
  if (!stat?.isFile()) return Promise.resolve(null);
  // ctime cannot be set from user space: every write, truncate, rename onto, chmod or utimes (setting mtime
  // back) moves it.
  const latestMs = Number((stat.ctimeNs > stat.mtimeNs ? stat.ctimeNs : stat.mtimeNs) / 1_000_000n);
  if (Math.abs(now() - latestMs) < FINGERPRINT_SETTLE_MS) return Promise.resolve(null);
  return Promise.resolve(`${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`);
}

/**
 * Keys below `prefix` (slash form), reading only that folder and what is under it; a prefix naming a file is
 * that one key. Temp files of atomic writes in flight and counters' journals are not keys.
 */
async function listKeys(root: string, prefix: string): Promise<string[]> {
  const start = prefix ? join(root, ...prefix.split('/')) : root;
  const found: string[] = [];
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(start, { withFileTypes: true, recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return [prefix];
    if (code === 'ENOENT') return [];
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isFile() || entry.name.endsWith(TEMP_SUFFIX) || entry.name.endsWith(JOURNAL_SUFFIX)) continue;
    const path = join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    const key = relative(root, path).split(sep).join('/');
    if (key.split('/').some((segment) => segment === 'node_modules' || segment === '.git')) continue;
    found.push(key);
  }
  return found;
}

/** Options of `createFsStore`. */
export interface FsStoreOptions {
  /** Wall clock compared with file timestamps by `fingerprint` (tests move it). */
  now?: () => number;
  /** Files up to this size are read synchronously (see readOrNull); 0 reads every file asynchronously. Default 64 KiB. */
  syncReadMaxBytes?: number;
  /** The pool hashing large files off the request thread (`sha3OffThread`, fs-hash-pool.ts); `{ size: 0 }` turns it off. */
  hashWorkers?: HashPoolOptions;
}

/** Builds the `fs` store rooted at `base`. */
export function createFsStore(base: string, { now = () => Date.now(), syncReadMaxBytes = 64 * 1024, hashWorkers }: FsStoreOptions = {}) {
  const root = resolve(base);
  const hashBuffers = createHashBuffers();
  const hashPool = createHashPool(hashWorkers);
  // The key's segments are checked (storageKey: none empty, `.`, `..` or with a separator), so joining them
  // needs no normalising: a concatenation, where path.join cost several µs a key.
  const rootSlash = root.endsWith(sep) ? root : root + sep;
  const pathOf = (key: string) => {
    const checked = storageKey(key);
    return checked ? rootSlash + checked.replaceAll(':', sep) : root;
  };
  const raw = createStorage({ driver: fsDriver({ base: root, ignore: ['**/node_modules/**', '**/.git/**', `**/*${TEMP_SUFFIX}`, `**/*${JOURNAL_SUFFIX}`] }) });
  // Counters are journals of increments (fs-counters.ts): every read, write and removal of a key goes by them.
  const counters = createFsCounters({ pathOf, readFile: (path) => readOrNull(path, syncReadMaxBytes), writeAtomic: writeFileAtomic });
  const store = createStore('fs', raw, {
    writeAtomic: counters.write,
    increment: (key, by) => counters.increment(key, by),
    async append(key, bytes) {
      const path = pathOf(key);
      // A trace line or a few: the write is synchronous, as small writes' are (fs-write.ts); appends are not
      // flushed to disk.
      if (bytes.byteLength <= SYNC_WRITE_MAX_BYTES) await inFolder(path, async () => appendFileSync(path, bytes));
      else await inFolder(path, () => fsp.appendFile(path, bytes));
    },
    read: counters.read,
    keys: (prefix) => listKeys(root, prefix),
    stream: (key) => streamFile(pathOf(key)),
    fingerprint: (key) => fingerprintFile(pathOf(key), now),
    hashInto: (key, hash) => hashFileInto(pathOf(key), hash, hashBuffers),
    // The path comes from pathOf, as every other read's: the key's segments checked, under the root.
    sha3OffThread: (key) => hashPool.sha3(pathOf(key)),
    close: () => hashPool.close(),
    async size(key) {
      // One stat from the inode cache takes ~2 µs; a round trip through the thread pool costs ~10 µs (readOrNull).
      try {
        return statSync(pathOf(key), { throwIfNoEntry: false })?.size ?? null;
      } catch {
        return null;
      }
    },
    async freeBytes() {
      await fsp.mkdir(root, { recursive: true });
      const stats = await fsp.statfs(root);
      return stats.bavail * stats.bsize;
    },
  });
  // A counter's journal goes with it: unstorage's removal knows only the item. The store itself is changed, not
  // copied: its methods call one another through it (and tests replace some of them on it).
  const removeItem = store.remove;
  store.remove = (key) => counters.remove(key, () => removeItem(key));
  return store;
}

/** The plugin's settings. */
const FS_SETTINGS = textSettings({
  AEH_HASH_WORKERS: 'Worker threads hashing large stored files off the request thread (default: the cores, at most 4; 0 hashes in-thread)',
});

/** `AEH_HASH_WORKERS` as the pool's size; unset leaves the pool's default. */
function hashWorkersOf(settings: Readonly<Record<string, string | undefined>>): HashPoolOptions {
  const raw = settings.AEH_HASH_WORKERS?.trim();
  if (!raw) return {};
  if (!/^\d{1,2}$/.test(raw)) throw new Error(`storage-fs: AEH_HASH_WORKERS must be a whole number of worker threads (0 hashes in-thread), got "${raw.slice(0, 40)}"`);
  return { size: Number(raw) };
}

export default {
  name: 'storage-fs',
  settings: FS_SETTINGS,
  setup(host) {
    const hashWorkers = hashWorkersOf(asText(host.settings));
    const driver: StorageDriver = {
      name: 'fs',
      accepts: (storage) => storage === 'fs',
      create: (config) => createFsStore(config.dataDir, { hashWorkers }),
    };
    host.storageDrivers.register(driver, 'storage-fs');
  },
} satisfies Plugin;
