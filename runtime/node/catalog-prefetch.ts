/**
 * The catalog's files loaded ahead of the app (issue 36: a mounted catalog's first search). Started by the Node
 * entry before it imports the service's ~500 modules, a worker lists, reads and normalises the catalog's files on
 * the other core while this thread compiles, and posts them a claim at a time; the catalog then indexes what the
 * worker sent instead of reading and normalising for ~0.5 s itself. Once every plugin has started, the catalog
 * takes the files; and once a search (or anything else) waits for them, this thread loads those the worker has not
 * claimed yet, beside it (the two claim files from one shared counter): on two cores the app is ready well before
 * the worker is done, and the first search waited for it idle. The worker's claims are parsed when the catalog takes the files, so not while this thread
 * is still starting. The folders come from the same configuration the app reads (core/config.ts,
 * plugins/catalog/catalog-dirs.ts) and the worker loads with the bundled scenario formats: the catalog uses the
 * files only when both match its own, and reads them itself when they do not or when the worker fails.
 */
import { resolve } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { CatalogFileLoader, CatalogFiles, CatalogPrefetch, CatalogTarget } from '../../core/domain/catalog.ts';
import { parseConfig } from '../../core/config.ts';
import { catalogDirs } from '../../plugins/catalog/catalog-dirs.ts';
import { readEnvFile } from './env-file.ts';
import { bundledCatalogDir } from './paths.ts';
import { startModuleWorker } from './module-worker.ts';
import { stampOf, type KeptFile } from './catalog-cache.ts';

/**
 * What the worker posts, in this order: the files it will load (and the folders' problems, and the formats it
 * loads with), then the files of each claim (`CatalogFile[]` as JSON, from `start` in the list), then the end.
 */
export type PrefetchMessage =
  | { kind: 'targets'; targets: CatalogTarget[]; problems: CatalogFiles['problems']; formats: string[]; caching: boolean }
  | { kind: 'files'; start: number; json: string }
  | { kind: 'done'; reused: number };

/** Files the app's thread claims at a time: about a millisecond of loading. */
const HELP_CLAIM = 4;
/**
 * Longest stretch the app's thread loads files before it lets requests run. Shorter than the catalog's own
 * loading (25 ms): the help begins as the plugins have started, before the server listens, and each step of a
 * start and of its first request that waits on I/O would wait out a slice (issue 26: spawn to /healthz).
 */
const SLICE_MS = 5;

/**
 * How long after the first index's files are taken this thread hands the files it loaded back to the worker for
 * the cache (catalog-cache.ts): their JSON costs this thread ~10 ms per 1,000 files, after the first search.
 */
const HANDBACK_DELAY_MS = 1_000;

const yieldToEventLoop = () => new Promise<void>((resolveYield) => setImmediate(resolveYield));

/**
 * Loads the files no thread has claimed yet on this one, a slice at a time, taking in what the worker sent between
 * slices; with `stamps`, each file's stamp is taken before its read (for the cache, catalog-cache.ts).
 */
async function help(claims: Int32Array, loaded: CatalogFiles['loaded'], load: CatalogFileLoader, list: CatalogTarget[], takeIn: () => void, stamps?: Map<number, ReturnType<typeof stampOf>>): Promise<void> {
  await yieldToEventLoop();
  let sliceStart = performance.now();
  for (;;) {
    const start = Atomics.add(claims, 0, HELP_CLAIM);
    if (start >= list.length) return;
    for (let at = start; at < Math.min(list.length, start + HELP_CLAIM); at += 1) {
      stamps?.set(at, stampOf(list[at]!.path));
      loaded[at] = load(list[at]!);
    }
    if (performance.now() - sliceStart > SLICE_MS) {
      takeIn();
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
}

/** Later, gives the worker the files this thread loaded, stamped, for the cache it writes (it waits for them). */
function handBack(worker: Worker, stamps: Map<number, ReturnType<typeof stampOf>>, loaded: CatalogFiles['loaded']): void {
  setTimeout(() => {
    const files: Array<[number, KeptFile]> = [];
    for (const [at, stamp] of stamps) if (stamp) files.push([at, { stamp, json: JSON.stringify(loaded[at]) }]);
    worker.postMessage(files);
  }, HANDBACK_DELAY_MS).unref();
}

/** Starts loading the catalog the service built for this environment will index; `undefined` when it cannot. */
export function startCatalogPrefetch(processEnv: Record<string, string | undefined>, cwd: string, options: { build?: string } = {}): CatalogPrefetch | undefined {
  let dirs: CatalogPrefetch['dirs'];
  let root: string;
  try {
    root = resolve(cwd, processEnv.PROJECT_ROOT?.trim() || '.');
    const setInProcess = Object.fromEntries(Object.entries(processEnv).filter(([, value]) => value !== undefined && value !== ''));
    // The key does not matter here; a configuration the app will refuse is the app's to report.
    const config = parseConfig({ ...readEnvFile(root), ...setInProcess, PROJECT_ROOT: root, DASHBOARD_API_KEY: undefined }, cwd);
    dirs = catalogDirs(config, bundledCatalogDir);
  } catch {
    return undefined;
  }
  // The next file to load, shared with the worker: each thread claims files by adding to it.
  const claims = new Int32Array(new SharedArrayBuffer(4));
  const worker = startModuleWorker(new URL(`./catalog-prefetch-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url), {
    // The cache lives in the project's .aeh folder (catalog-cache.ts); `build` stands for dist's stamp from the sources.
    workerData: { dirs, claims: claims.buffer, ...(processEnv.AEH_CATALOG_CACHE?.trim() === '0' ? {} : { cacheRoot: root }), ...(options.build ? { build: options.build } : {}) },
  });
  worker.unref();
  // The worker's claims are taken in (parsed) once the catalog takes the files: those there by then at
  // once, the later ones as they arrive.
  const chunks: Array<{ start: number; json: string }> = [];
  const loaded: CatalogFiles['loaded'] = [];
  let taking = false;
  const takeIn = () => {
    for (const { start, json } of chunks.splice(0)) (JSON.parse(json) as CatalogFiles['loaded']).forEach((file, at) => (loaded[start + at] = file));
  };
  let listed: ((value: Extract<PrefetchMessage, { kind: 'targets' }>) => void) | undefined;
  const targets = new Promise<Extract<PrefetchMessage, { kind: 'targets' }>>((resolveTargets) => (listed = resolveTargets));
  let done: Promise<number> | undefined = new Promise((resolveDone, reject) => {
    // Messages arrive in the order they were posted: the list, the claims, then the end.
    worker.on('message', (message: PrefetchMessage) => {
      if (message.kind === 'targets') listed!(message);
      else if (message.kind === 'files') {
        chunks.push(message);
        try {
          if (taking) takeIn();
        } catch (error) {
          reject(error);
        }
      } else resolveDone(message.reused);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the catalog prefetch worker exited (${code}) before it answered`)));
  });
  // Unobserved until the catalog asks for it (or never, when it does not match): not an unhandled rejection.
  done.catch(() => undefined);

  return {
    dirs,
    take(load, wanted) {
      const taken = done;
      done = undefined;
      if (!taken) return undefined;
      return Promise.race([targets, taken.then(() => Promise.reject(new Error('the catalog prefetch worker ended without its list')))]).then(async ({ targets: list, problems, formats, caching }) => {
        // What the worker sent is taken in between slices of loading, while the worker can still claim more: left
        // to the end, it was a tail of ~0.2 s after both were done.
        taking = true;
        const stamps = caching ? new Map<number, ReturnType<typeof stampOf>>() : undefined;
        if (load) {
          // Not before someone waits for the files (the rest of the start goes first), nor after the worker is done.
          if (wanted) await Promise.race([wanted, taken]);
          await help(claims, loaded, load, list, takeIn, stamps);
        }
        // The worker's end follows its last claim's files.
        const reused = await taken;
        takeIn();
        if (stamps) handBack(worker, stamps, loaded);
        return { problems, loaded, formats, ...(reused ? { reused } : {}) };
      });
    },
  };
}
