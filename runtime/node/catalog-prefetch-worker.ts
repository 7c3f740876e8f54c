/**
 * The catalog prefetch worker (runtime/node/catalog-prefetch.ts): lists the folders it is given and posts the
 * list, then loads the files with the catalog's own loader and the bundled formats, a claim of `CLAIM_FILES` at a
 * time, posting each claim's files as they are loaded, then ends. Claims come from a counter shared with the app's
 * thread, which takes the files still unclaimed once it has started (issue 36: on two cores the app is ready
 * before the worker is done), so each file is loaded once, by whichever thread claimed it. Claims rather than one
 * message at the end: what is posted is garbage here at once, so this thread's heap no longer grows with the whole
 * catalog; and the app's thread can take in the files already there while the rest loads. Each claim's files are
 * posted as JSON text, so that the app's thread parses them only when the catalog takes the files, not while it
 * is still starting; and JSON because, for these plain values, `JSON.stringify` and `JSON.parse` cost about half
 * what `v8.serialize` and `v8.deserialize` did (5,028 AES files: 58 ms against 92 ms here, 33-57 ms against
 * 64-154 ms on the app's thread, which is on the first search's path).
 */
import { promises as fsp, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { installPrecompiledValidators } from './precompiled.ts';
import { listFiles } from './list-files.ts';
import type { PrefetchMessage } from './catalog-prefetch.ts';

/** Files per claim: ~100 KB of scenarios, ~10 ms of loading; small enough that the two threads end together. */
const CLAIM_FILES = 64;

// Before the formats load, so their schemas resolve to the build's precompiled validators (as in runtime/node.ts):
// only the catalog loader's (scripts/precompile-validators.mjs), not the whole module the app's thread loads.
await installPrecompiledValidators('validators.catalog.generated.js');
const { listCatalogTargets, loadContext, loadFileSync } = await import('../../plugins/catalog/catalog-files.ts');
const { PREFETCH_FORMATS } = await import('./catalog-prefetch-formats.ts');
const files = {
  realpath: (path: string) => fsp.realpath(path),
  listFiles,
  readFile: async (path: string) => new Uint8Array(await fsp.readFile(path)),
  readFileSync: (path: string) => readFileSync(path),
};
const post = (message: PrefetchMessage) => parentPort!.postMessage(message);
const { dirs, claims } = workerData as { dirs: Array<{ path: string; source: string }>; claims: SharedArrayBuffer };
const claimed = new Int32Array(claims);
const { problems, targets } = await listCatalogTargets(files, dirs);
post({ kind: 'targets', targets, problems, formats: PREFETCH_FORMATS.map((format) => format.name) });
const context = loadContext(PREFETCH_FORMATS);
for (;;) {
  const start = Atomics.add(claimed, 0, CLAIM_FILES);
  if (start >= targets.length) break;
  const chunk = targets.slice(start, start + CLAIM_FILES).map((target) => loadFileSync(files.readFileSync, target, context));
  post({ kind: 'files', start, json: JSON.stringify(chunk) });
}
post({ kind: 'done' });
