/**
 * The catalog prefetch worker (runtime/node/catalog-prefetch.ts): lists the folders it is given, loads every
 * file with the catalog's own loader and the bundled formats, and posts the files in chunks as they are loaded,
 * then the folders' problems, and ends. Chunks rather than one message at the end: what is posted is garbage
 * here at once, so this thread's heap no longer grows with the whole catalog, whose survival through the
 * collections cost more than its loading; and the app's thread can take in the chunks already there while the
 * rest loads. Each chunk is posted serialised, so that the app's thread deserialises it only when the catalog
 * takes the files, not while it is still starting (runtime/node/catalog-prefetch.ts).
 */
import { promises as fsp, readFileSync } from 'node:fs';
import { serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { CatalogFile } from '../../core/domain/catalog.ts';
import { installPrecompiledValidators } from './precompiled.ts';
import { listFiles } from './list-files.ts';
import type { PrefetchMessage } from './catalog-prefetch.ts';

/** Files per message: ~400 KB of scenarios, a few milliseconds to take in on the app's thread. */
const CHUNK_FILES = 256;

// Before the formats load, so their schemas resolve to the build's precompiled validators (as in runtime/node.ts).
await installPrecompiledValidators();
const { listCatalogTargets, loadContext, loadFileSync } = await import('../../plugins/catalog/catalog-files.ts');
const { PREFETCH_FORMATS } = await import('./catalog-prefetch-formats.ts');
const files = {
  realpath: (path: string) => fsp.realpath(path),
  listFiles,
  readFile: async (path: string) => new Uint8Array(await fsp.readFile(path)),
  readFileSync: (path: string) => readFileSync(path),
};
const post = (message: PrefetchMessage) => parentPort!.postMessage(message);
const { dirs } = workerData as { dirs: Array<{ path: string; source: string }> };
const { problems, targets } = await listCatalogTargets(files, dirs);
const context = loadContext(PREFETCH_FORMATS);
let chunk: CatalogFile[] = [];
for (const target of targets) {
  chunk.push(loadFileSync(files.readFileSync, target, context));
  if (chunk.length === CHUNK_FILES) {
    post({ kind: 'files', serialized: serialize(chunk) });
    chunk = [];
  }
}
if (chunk.length) post({ kind: 'files', serialized: serialize(chunk) });
post({ kind: 'done', problems, formats: PREFETCH_FORMATS.map((format) => format.name) });
