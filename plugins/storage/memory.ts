/**
 * In-memory store (`AEH_STORAGE=memory`), for tests and throw-away instances. Nothing survives a restart.
 */
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import type { Plugin } from '../../core/plugin.ts';
import { createStore, type StorageDriver } from '../../core/storage.ts';

const memoryStorageDriver: StorageDriver = {
  name: 'memory',
  accepts: (storage) => storage === 'memory',
  create: () => createStore('memory', createStorage({ driver: memoryDriver() })),
};

export default {
  name: 'storage-memory',
  setup(host) {
    host.storageDrivers.register(memoryStorageDriver, 'storage-memory');
  },
} satisfies Plugin;
