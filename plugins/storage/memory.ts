/**
 * In-memory store (`AEH_STORAGE=memory`), for tests and throw-away instances. Nothing survives a restart.
 */
import { createStorage } from 'unstorage';
import type { Plugin } from '../../core/plugin.ts';
import { type StorageDriver } from '../../core/storage.ts';
import { createStore, storageKey } from './unstorage-store.ts';
import { indexedMemoryDriver } from './memory-driver.ts';
import { createMemoryAppend } from './memory-append.ts';

const memoryStorageDriver: StorageDriver = {
  name: 'memory',
  accepts: (storage) => storage === 'memory',
  create() {
    const raw = createStorage({ driver: indexedMemoryDriver() });
    // The memory driver keeps the caller's buffer itself; a copy makes later changes to it invisible, as on disk.
    return createStore('memory', raw, { writeAtomic: (key, bytes) => raw.setItemRaw(storageKey(key), bytes.slice()), append: createMemoryAppend(raw) });
  },
};

export default {
  name: 'storage-memory',
  setup(host) {
    host.storageDrivers.register(memoryStorageDriver, 'storage-memory');
  },
} satisfies Plugin;
