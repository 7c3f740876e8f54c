/**
 * The catalog's files loaded ahead of the app (issue 36: a mounted catalog's first search). Started by the Node
 * entry before it imports the service's ~500 modules, a worker lists, reads and normalises every catalog file on
 * the other core while this thread compiles; the catalog then indexes what the worker sent (a structured clone,
 * ~50 ms for 5,000 scenarios) instead of reading and normalising for ~0.5 s itself. The folders come from the same
 * configuration the app reads (core/config.ts, plugins/catalog/catalog-dirs.ts) and the worker loads with the
 * bundled scenario formats: the catalog uses the files only when both match its own, and reads them itself when
 * they do not or when the worker fails.
 */
import { resolve } from 'node:path';
import type { CatalogFiles, CatalogPrefetch } from '../../core/domain/catalog.ts';
import { parseConfig } from '../../core/config.ts';
import { catalogDirs } from '../../plugins/catalog/catalog-dirs.ts';
import { readEnvFile } from './env-file.ts';
import { bundledCatalogDir } from './paths.ts';
import { startModuleWorker } from './module-worker.ts';

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
  let files: Promise<CatalogFiles & { formats: string[] }> | undefined = new Promise((resolveFiles, reject) => {
    worker.once('message', (message: CatalogFiles & { formats: string[] }) => resolveFiles(message));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the catalog prefetch worker exited (${code}) before it answered`)));
  });
  // Unobserved until the catalog asks for it (or never, when it does not match): not an unhandled rejection.
  files.catch(() => undefined);
  return {
    dirs,
    take() {
      const taken = files;
      files = undefined;
      return taken;
    },
  };
}
