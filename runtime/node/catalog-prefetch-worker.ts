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
import { buildOf, catalogCacheLocation, keptJson, readCatalogCache, stampOf, writeCatalogCache, type KeptFile } from './catalog-cache.ts';
import { HARNESS_VERSION } from '../../core/version.ts';

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
const { dirs, claims, cacheRoot, build: givenBuild } = workerData as { dirs: Array<{ path: string; source: string }>; claims: SharedArrayBuffer; cacheRoot?: string; build?: string };
const claimed = new Int32Array(claims);
const build = cacheRoot ? buildOf(import.meta.url, givenBuild) : undefined;
const formats = PREFETCH_FORMATS.map((format) => format.name);
const location = cacheRoot && build ? catalogCacheLocation(cacheRoot, { harness: HARNESS_VERSION, build, formats, dirs }) : undefined;
// The files as the last start left them (catalog-cache.ts): a file unchanged since is not loaded again.
const previous = location ? readCatalogCache(location) : undefined;
const loadedAt = Date.now();
const { problems, targets } = await listCatalogTargets(files, dirs);
post({ kind: 'targets', targets, problems, formats, caching: location !== undefined });
const context = loadContext(PREFETCH_FORMATS);
const kept: Array<[string, KeptFile] | undefined> = new Array(targets.length);
let reused = 0;
for (;;) {
  const start = Atomics.add(claimed, 0, CLAIM_FILES);
  if (start >= targets.length) break;
  const texts = targets.slice(start, start + CLAIM_FILES).map((target, offset) => {
    // Stamped before the read: a change after it shows at the next start.
    const stamp = location ? stampOf(target.path) : undefined;
    const reusable = keptJson(previous, target.path, stamp);
    if (reusable) reused += 1;
    const json = reusable ?? JSON.stringify(loadFileSync(files.readFileSync, target, context));
    if (stamp) kept[start + offset] = [target.path, { stamp, json }];
    return json;
  });
  post({ kind: 'files', start, json: `[${texts.join(',')}]` });
}
post({ kind: 'done', reused });

if (location) {
  // The files the app's thread loaded (it helps once a search waits) come back from it, stamped, to be kept too;
  // it answers once it has taken the files (runtime/node/catalog-prefetch.ts, `handBack`). An app that never takes
  // them (its folders differ from these) never answers: then what this thread loaded is kept, a minute later.
  const helped = await new Promise<Array<[number, KeptFile]>>((resolve) => {
    parentPort!.once('message', resolve);
    setTimeout(() => resolve([]), 60_000).unref();
  });
  for (const [at, file] of helped) kept[at] = [targets[at]!.path, file];
  const unchanged = previous && reused === targets.length && previous.files.size === targets.length;
  if (!unchanged) writeCatalogCache(location, loadedAt, kept.filter((entry): entry is [string, KeptFile] => entry !== undefined));
}
