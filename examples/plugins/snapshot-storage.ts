/**
 * Example storage driver plugin: `AEH_STORAGE=snapshot:<file>` is the in-memory store that remembers. It keeps
 * everything in memory (the bundled `memory` driver does the work), writes it all to one JSON file when the
 * service stops and reads it back at the next start. For a demo or a CI instance that should keep its runs across
 * restarts without a data directory or a Redis; what changed since the last stop is lost if the process is
 * killed, and instances do not share it.
 *
 * A driver claims the `AEH_STORAGE` values it `accepts` and builds the `Store` (core/storage.ts) at start. This
 * one decorates the memory driver's store: the same store with another name, filled from the file before the
 * first request, and a `close` that saves it. Node, Deno and Bun (node:fs).
 *
 *   AEH_STORAGE=snapshot:./.aeh/store.json AEH_PLUGINS=./examples/plugins/snapshot-storage.ts npm start
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Plugin, Store, StorageDriver } from '../../core/plugin-api.ts';

const SCHEME = 'snapshot:';

/** The snapshot file: every value's bytes, base64, by its slash key. */
interface Snapshot {
  version: 1;
  values: Record<string, string>;
}

async function load(store: Store, path: string): Promise<void> {
  let snapshot: Snapshot;
  try {
    snapshot = JSON.parse(await readFile(path, 'utf8')) as Snapshot;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return; // the first start
    throw new Error(`snapshot storage: ${path} cannot be read: ${(error as Error).message}`);
  }
  for (const [key, base64] of Object.entries(snapshot.values ?? {})) await store.setBytes(key, Buffer.from(base64, 'base64'));
}

async function save(store: Store, path: string): Promise<void> {
  const values: Record<string, string> = {};
  for (const key of await store.keys('')) {
    const bytes = await store.getBytes(key);
    if (bytes) values[key] = Buffer.from(bytes).toString('base64');
  }
  await mkdir(dirname(path), { recursive: true });
  // A crash halfway through writing leaves the previous snapshot, never half of this one.
  await writeFile(`${path}.tmp`, JSON.stringify({ version: 1, values } satisfies Snapshot), { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}

/** A store on `memory`, loaded from the snapshot at `path` and saved to it on close. */
export async function createSnapshotStore(memory: StorageDriver, config: Parameters<StorageDriver['create']>[0], path: string): Promise<Store> {
  const store = await memory.create(config);
  await load(store, path);
  return {
    ...store,
    driver: 'snapshot',
    async close() {
      await save(store, path);
      await store.close();
    },
  };
}

export default {
  name: 'example-snapshot-storage',
  version: '1.0.0',
  dependencies: ['storage-memory'],
  setup(host) {
    host.storageDrivers.register({
      name: 'snapshot',
      accepts: (storage) => storage.startsWith(SCHEME) && storage.length > SCHEME.length,
      create(config) {
        const path = resolve(config.projectRoot, config.storage.slice(SCHEME.length));
        return createSnapshotStore(host.storageDrivers.get('memory')!, config, path);
      },
    }, 'example-snapshot-storage');
  },
} satisfies Plugin;
