/**
 * In-memory store (`AEH_STORAGE=memory`), for tests and throw-away instances. Nothing survives a restart.
 */
import { createStorage } from 'unstorage';
import type { Plugin } from '../../core/plugin.ts';
import { type StorageDriver } from '../../core/storage.ts';
import { createStore, storageKey, toBytes } from './unstorage-store.ts';
import { indexedMemoryDriver } from './memory-driver.ts';

/** A value a plugin wrote through unstorage, as `getItemRaw` would read it (unstorage's `base64:` strings decoded). */
function storedBytes(value: unknown): Uint8Array | null {
  if (typeof value === 'string' && value.startsWith('base64:')) return Uint8Array.from(atob(value.slice(7)), (char) => char.charCodeAt(0));
  return toBytes(value);
}

const memoryStorageDriver: StorageDriver = {
  name: 'memory',
  accepts: (storage) => storage === 'memory',
  create() {
    const driver = indexedMemoryDriver();
    const raw = createStorage({ driver });
    return createStore('memory', raw, {
      // The memory driver keeps the caller's buffer itself; a copy makes later changes to it invisible, as on disk.
      writeAtomic: (key, bytes) => raw.setItemRaw(storageKey(key), bytes.slice()),
      // In place, synchronously (so appends to one key cannot interleave); the appended bytes are copied too.
      append: async (key, bytes) => driver.append(storageKey(key), bytes, storedBytes),
    });
  },
};

export default {
  name: 'storage-memory',
  setup(host) {
    host.storageDrivers.register(memoryStorageDriver, 'storage-memory');
  },
} satisfies Plugin;
