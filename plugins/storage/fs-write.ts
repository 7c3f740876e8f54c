/**
 * Atomic writes of the fs store (and of the runtime's file access): a temp file in the target's folder, flushed
 * to disk, renamed over the target, so readers never see a partial file and a crash leaves the old file or the new.
 */
import { promises as fsp, closeSync, fsync, open, rename, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Temp files of atomic writes in flight end with this; they are never keys. */
export const TEMP_SUFFIX = '.aeh-tmp';

/** True for an error saying the file is not there, or is no file (a folder, or a path through a file). */
export const missing = (error: unknown) => ['ENOENT', 'EISDIR', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

export const call = <T>(operation: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void) =>
  new Promise<T>((resolve, reject) => operation((error, value) => (error ? reject(error) : resolve(value))));

/** Runs `operation`; when its folder does not exist yet (ENOENT), creates it and runs it once more. */
export async function inFolder<T>(path: string, operation: () => Promise<T>): Promise<T> {
  // Most writes go to folders that exist: trying first saves a mkdir per write (a quarter of its CPU).
  try {
    return await operation();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await fsp.mkdir(dirname(path), { recursive: true });
    return operation();
  }
}

/** Files up to this size are written synchronously by `writeFileAtomic` (see there); larger ones asynchronously. */
export const SYNC_WRITE_MAX_BYTES = 256 * 1024;

/** Writes every byte of `bytes` to `fd` (a write may be short). */
function writeAllSync(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.byteLength;) offset += writeSync(fd, bytes, offset, bytes.byteLength - offset);
}

/**
 * Writes `bytes` to `path` so that readers never see a partial file: a temp file in the same folder, flushed to
 * disk, then renamed over `path`. For a small file the write and the close are synchronous (they only copy to
 * the page cache: microseconds), while each asynchronous step is a round trip through libuv's thread pool costing
 * the event loop ~10 µs (as readOrNull explains); a run writes about a dozen small files, so five round trips
 * each were a third of a run's fixed cost. The open, the flush and the rename stay asynchronous: they change
 * the folder or wait for the disk, and on ext4 a synchronous rename waits for the journal commits other writes'
 * flushes started, holding the event loop for 20 ms at a time (measured: 16 writers, p99 loop delay 3.7 ms this
 * way, 21 ms with a synchronous open and rename).
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array, mode?: number): Promise<void> {
  if (bytes.byteLength > SYNC_WRITE_MAX_BYTES) return writeLargeFileAtomic(path, bytes, mode);
  const temp = join(dirname(path), `.${basename(path)}.${crypto.randomUUID()}${TEMP_SUFFIX}`);
  const fd = await inFolder(temp, () => call<number>((done) => open(temp, 'w', mode, done)));
  try {
    writeAllSync(fd, bytes);
    await call<void>((done) => fsync(fd, (error) => done(error, undefined)));
  } catch (error) {
    closeSync(fd);
    await fsp.rm(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    await call<void>((done) => rename(temp, path, (error) => done(error, undefined)));
  } catch (error) {
    await fsp.rm(temp, { force: true });
    throw error;
  }
}

/** `writeFileAtomic` for a large file: every step asynchronous, so a slow disk never holds the event loop. */
async function writeLargeFileAtomic(path: string, bytes: Uint8Array, mode?: number): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${crypto.randomUUID()}${TEMP_SUFFIX}`);
  const handle = await inFolder(temp, () => fsp.open(temp, 'w', mode));
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fsp.rename(temp, path);
  } catch (error) {
    await fsp.rm(temp, { force: true });
    throw error;
  }
}
