/**
 * The catalog's files loaded ahead of the app (issue 36: a mounted catalog's first search). Started by the Node
 * entry before it imports the service's ~500 modules, a worker lists, reads and normalises every catalog file on
 * the other core while this thread compiles, and posts them in chunks; the catalog then indexes what the worker
 * sent instead of reading and normalising for ~0.5 s itself. The chunks are deserialised when the catalog takes
 * them (once every plugin has started), so not while this thread is still starting. The folders come from the
 * same configuration the app reads (core/config.ts, plugins/catalog/catalog-dirs.ts) and the worker loads with the
 * bundled scenario formats: the catalog uses the files only when both match its own, and reads them itself when
 * they do not or when the worker fails.
 */
import { resolve } from 'node:path';
import { deserialize } from 'node:v8';
import type { CatalogFiles, CatalogPrefetch } from '../../core/domain/catalog.ts';
import { parseConfig } from '../../core/config.ts';
import { catalogDirs } from '../../plugins/catalog/catalog-dirs.ts';
import { readEnvFile } from './env-file.ts';
import { bundledCatalogDir } from './paths.ts';
import { startModuleWorker } from './module-worker.ts';

/** What the worker posts: its files in chunks (`CatalogFile[]`, serialised), in file order, then the folders' problems and the formats it loaded with. */
export type PrefetchMessage = { kind: 'files'; serialized: Uint8Array } | { kind: 'done'; problems: CatalogFiles['problems']; formats: string[] };

/** Starts loading the catalog the service built for this environment will index; `undefined` when it cannot. */
export function startCatalogPrefetch(processEnv: Record<string, string | undefined>, cwd: string): CatalogPrefetch | undefined {
  let dirs: CatalogPrefetch['dirs'];
  try {
    const root = resolve(cwd, processEnv.PROJECT_ROOT?.trim() || '.');
    const setInProcess = Object.fromEntries(Object.entries(processEnv).filter(([, value]) => value !== undefined && value !== ''));
    // The key does not matter here; a configuration the app will refuse is the app's to report.
    const config = parseConfig({ ...readEnvFile(root), ...setInProcess, PROJECT_ROOT: root, DASHBOARD_API_KEY: undefined }, cwd);
    dirs = catalogDirs(config, bundledCatalogDir);
  } catch {
    return undefined;
  }
  const worker = startModuleWorker(new URL(`./catalog-prefetch-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url), { workerData: { dirs } });
  worker.unref();
  // Chunks are taken in (deserialised) once the catalog takes the files: those there by then with the next chunk or
  // the end, the later ones as they arrive.
  const chunks: Uint8Array[] = [];
  const loaded: CatalogFiles['loaded'] = [];
  let taking = false;
  const takeIn = () => {
    for (const chunk of chunks.splice(0)) for (const file of deserialize(chunk) as CatalogFiles['loaded']) loaded.push(file);
  };
  let done: Promise<Omit<CatalogFiles, 'loaded'> & { formats: string[] }> | undefined = new Promise((resolveDone, reject) => {
    // Messages arrive in the order they were posted: the chunks in file order, then the end.
    worker.on('message', (message: PrefetchMessage) => {
      if (message.kind === 'files') {
        chunks.push(message.serialized);
        try {
          if (taking) takeIn();
        } catch (error) {
          reject(error);
        }
      } else resolveDone({ problems: message.problems, formats: message.formats });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the catalog prefetch worker exited (${code}) before it answered`)));
  });
  // Unobserved until the catalog asks for it (or never, when it does not match): not an unhandled rejection.
  done.catch(() => undefined);
  return {
    dirs,
    take() {
      const taken = done;
      done = undefined;
      if (!taken) return undefined;
      taking = true;
      return taken.then(({ problems, formats }) => {
        takeIn();
        return { problems, loaded, formats };
      });
    },
  };
}
