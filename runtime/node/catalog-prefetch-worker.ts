/**
 * The catalog prefetch worker (runtime/node/catalog-prefetch.ts): loads every file of the folders it is given
 * with the catalog's own loader and the bundled formats, posts the result once and ends.
 */
import { promises as fsp, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { installPrecompiledValidators } from './precompiled.ts';
import { listFiles } from './list-files.ts';

// Before the formats load, so their schemas resolve to the build's precompiled validators (as in runtime/node.ts).
await installPrecompiledValidators();
const { collectCatalogFiles } = await import('../../plugins/catalog/catalog-files.ts');
const { PREFETCH_FORMATS } = await import('./catalog-prefetch-formats.ts');
const files = {
  realpath: (path: string) => fsp.realpath(path),
  listFiles,
  readFile: async (path: string) => new Uint8Array(await fsp.readFile(path)),
  readFileSync: (path: string) => readFileSync(path),
};
const { dirs } = workerData as { dirs: Array<{ path: string; source: string }> };
const loaded = await collectCatalogFiles({ files, dirs, formats: PREFETCH_FORMATS });
parentPort!.postMessage({ ...loaded, formats: PREFETCH_FORMATS.map((format) => format.name) });
