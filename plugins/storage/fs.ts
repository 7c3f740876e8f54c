/**
 * The embedded default store: files under `AEH_DATA_DIR`, laid out as the contract's "Data on disk" says
 * (`runs/<run_id>/certificate.json`). Built on unstorage's `fs` driver, with the abilities unstorage lacks:
 * atomic writes (temp file in the same folder, fsync, rename), appends, streamed reads and free space.
 */
import { promises as fsp, createReadStream } from 'node:fs';
import { dirname, join, resolve, basename } from 'node:path';
import { Readable } from 'node:stream';
import { createStorage } from 'unstorage';
import fsDriver from 'unstorage/drivers/fs';
import type { Plugin } from '../../core/plugin.ts';
import { createStore, storageKey, type StorageDriver } from '../../core/storage.ts';

const TEMP_SUFFIX = '.aeh-tmp';

/** Runs `operation`; when its folder does not exist yet (ENOENT), creates it and runs it once more. */
async function inFolder<T>(path: string, operation: () => Promise<T>): Promise<T> {
  // Most writes go to folders that exist: trying first saves a mkdir per write (a quarter of its CPU).
  try {
    return await operation();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await fsp.mkdir(dirname(path), { recursive: true });
    return operation();
  }
}

/** Writes `bytes` to `path` so that readers never see a partial file. */
export async function writeFileAtomic(path: string, bytes: Uint8Array, mode?: number): Promise<void> {
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

/** Builds the `fs` store rooted at `base`. */
export function createFsStore(base: string) {
  const root = resolve(base);
  const pathOf = (key: string) => join(root, ...storageKey(key).split(':'));
  const raw = createStorage({ driver: fsDriver({ base: root, ignore: ['**/node_modules/**', '**/.git/**', `**/*${TEMP_SUFFIX}`] }) });
  return createStore('fs', raw, {
    writeAtomic: (key, bytes) => writeFileAtomic(pathOf(key), bytes),
    async append(key, bytes) {
      const path = pathOf(key);
      await inFolder(path, () => fsp.appendFile(path, bytes));
    },
    async stream(key) {
      const path = pathOf(key);
      try {
        const stat = await fsp.stat(path);
        if (!stat.isFile()) return null;
      } catch {
        return null;
      }
      return Readable.toWeb(createReadStream(path, { highWaterMark: 1 << 20 })) as unknown as ReadableStream<Uint8Array>;
    },
    async size(key) {
      try {
        return (await fsp.stat(pathOf(key))).size;
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
}

const fsStorageDriver: StorageDriver = {
  name: 'fs',
  accepts: (storage) => storage === 'fs',
  create: (config) => createFsStore(config.dataDir),
};

export default {
  name: 'storage-fs',
  setup(host) {
    host.storageDrivers.register(fsStorageDriver, 'storage-fs');
  },
} satisfies Plugin;
