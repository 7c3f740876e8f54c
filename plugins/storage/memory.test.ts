import { testStorage } from '../../testing/index.ts';
import { parseConfig } from '../../core/config.ts';
import { createHost } from '../../core/plugin-host.ts';
import { loadPlugins } from '../../core/plugin.ts';
import storageMemory from './memory.ts';

testStorage('memory', async () => {
  const host = createHost(parseConfig({ AEH_STORAGE: 'memory' }), { runtime: { name: 'test', version: '0' } });
  loadPlugins(host, [storageMemory]);
  const driver = host.storageDrivers.list().find((candidate) => candidate.accepts('memory'))!;
  return driver.create(host.config);
});
