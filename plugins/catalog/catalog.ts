/**
 * The scenario catalog (the `catalog` service slot, core/domain/catalog.ts): the bundled `catalog/` folder plus `AEH_CATALOG_DIRS`, native and AES v1.4
 * documents alike, indexed for faceted search (`GET /api/scenarios`) and lookup by id.
 * Indexing starts on first use (or `ready()`, which the catalog plugin calls at start without waiting), so the
 * HTTP server never waits for it; a search that arrives early waits for the one index being built.
 * A file that cannot be used never stops the others: it is recorded for `integrity()` (the doctor's check).
 */
import type { Scenario } from '../../core/domain/scenario.ts';
import type { Catalog, CatalogFileLoader, CatalogFiles, CatalogPrefetch, CatalogProblem, CatalogRefresh } from '../../core/domain/catalog.ts';
import type { CatalogDocument, FileAccess, Logger } from '../../core/capabilities.ts';
import type { ScenarioFormat } from '../../core/domain/scenario-format.ts';
import { collectCatalogFiles, loadContext, loadFileSync } from './catalog-files.ts';
import { buildSearchIndex, dimensionsOf, type MetricDimension, type SearchIndex } from './catalog-index.ts';

export interface CatalogOptions {
  files?: FileAccess;
  /** Folders to index: the bundled catalog first, then mounted ones. Earlier folders win duplicate ids. */
  dirs: Array<{ path: string; source: string }>;
  /** Bundled documents embedded in the build (no file system); indexed as source `bundled`, before `dirs`. */
  documents?: readonly CatalogDocument[];
  /** Formats besides the native one that catalog files may be in (AES v1.4). */
  formats?: readonly ScenarioFormat[];
  logger: Logger;
  /** The dimension of a metric id (the metric registry); the contract's fixed map answers otherwise. */
  metricDimension?: MetricDimension;
  /** Files read at once while indexing, on runtimes without a synchronous read (default 32). */
  concurrency?: number;
  /** The files loaded ahead of the app (runtime/node/catalog-prefetch.ts), for the first index when they match. */
  prefetched?: CatalogPrefetch;
  /** Clock for the indexing time in the log. */
  now?: () => number;
}

interface Built {
  /** The files came from the runtime's prefetch (logged). */
  prefetched?: true;
  /** Of the prefetched files, those the prefetch kept from an earlier start (unchanged since). */
  reused?: number;
  index: SearchIndex;
  byId: Map<string, Scenario>;
  bySource: Record<string, number>;
  problems: CatalogProblem[];
}

/** True when the prefetch read the folders this catalog indexes. */
function sameDirs(prefetch: CatalogPrefetch, options: CatalogOptions): boolean {
  return prefetch.dirs.length === options.dirs.length && prefetch.dirs.every((dir, at) => dir.path === options.dirs[at].path && dir.source === options.dirs[at].source);
}

/** How this thread loads one listed file, to help the prefetch: as `collectCatalogFiles` does with a synchronous read. */
function fileLoader(options: CatalogOptions): CatalogFileLoader | undefined {
  const readFileSync = options.files?.readFileSync?.bind(options.files);
  if (!readFileSync) return undefined;
  const context = loadContext(options.formats ?? []);
  return (target) => loadFileSync(readFileSync, target, context);
}

/**
 * The files loaded ahead of the app when they match (the first index only: `wanted` is given, and resolves when
 * someone waits for that index), else read here.
 */
async function loadFiles(options: CatalogOptions, wanted: Promise<void> | undefined): Promise<CatalogFiles & { prefetched?: true; reused?: number }> {
  const prefetch = options.prefetched;
  const files = wanted && prefetch && !options.documents?.length && sameDirs(prefetch, options) ? prefetch.take(fileLoader(options), wanted) : undefined;
  if (files) {
    try {
      const { formats, problems, loaded, reused } = await files;
      const names = (options.formats ?? []).map((format) => format.name);
      if (formats.length === names.length && formats.every((name, at) => name === names[at])) return { problems, loaded, prefetched: true, ...(reused ? { reused } : {}) };
    } catch (error) {
      options.logger.warn('catalog prefetch failed; reading the files here', { error: (error as Error).message });
    }
  }
  return collectCatalogFiles({ files: options.files, dirs: options.dirs, documents: options.documents, formats: options.formats ?? [], concurrency: options.concurrency });
}

async function buildCatalog(options: CatalogOptions, wanted: Promise<void> | undefined): Promise<Built> {
  const { metricDimension } = options;
  const { problems, loaded, prefetched, reused } = await loadFiles(options, wanted);
  const byId = new Map<string, Scenario>();
  const firstPath = new Map<string, string>();
  const bySource: Record<string, number> = {};
  const items: Parameters<typeof buildSearchIndex>[0] = [];
  for (const file of loaded) {
    if (!file.scenario) {
      problems.push({ path: file.path, message: file.problem ?? 'unreadable' });
      continue;
    }
    const { scenario } = file;
    const first = firstPath.get(scenario.id);
    if (first) {
      problems.push({ path: file.path, message: `duplicate id "${scenario.id}" (first defined in ${first}); this file is ignored` });
      continue;
    }
    firstPath.set(scenario.id, file.path);
    byId.set(scenario.id, scenario);
    bySource[file.source] = (bySource[file.source] ?? 0) + 1;
    items.push({
      scenario,
      entry: {
        id: scenario.id,
        title: scenario.title,
        ...(scenario.description ? { description: scenario.description } : {}),
        industry: scenario.industry,
        use_case: scenario.use_case,
        tags: scenario.tags,
        dimensions: dimensionsOf(scenario, metricDimension),
        source: file.source,
        format: file.format ?? 'native',
        task_count: scenario.tasks.length,
      },
    });
  }
  return { index: buildSearchIndex(items), byId, bySource, problems, ...(prefetched ? { prefetched } : {}), ...(reused ? { reused } : {}) };
}

/** Lets the requests that arrived run between two slices of the word index (a timer: every runtime has one). */
const pauseForRequests = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Indexes once, serving an empty catalog that says why when only a bug could have stopped the build. The words
 * for `q` are indexed afterwards in slices, so the first searches (and the rest of the start) do not wait for them.
 */
async function indexOnce(options: CatalogOptions, now: () => number, wanted?: Promise<void>): Promise<Built> {
  const startedAt = now();
  try {
    const result = await buildCatalog(options, wanted);
    result.index.indexWords(pauseForRequests).catch((error: Error) => options.logger.error('catalog word indexing failed', { error: error.message }));
    options.logger.info('catalog indexed', { scenarios: result.index.size, problems: result.problems.length, sources: result.bySource, ms: now() - startedAt, ...(result.prefetched ? { prefetched: true } : {}), ...(result.reused ? { reused: result.reused } : {}) });
    return result;
  } catch (error) {
    // Only a bug gets here (every file and folder error is caught in buildCatalog).
    options.logger.error('catalog indexing failed', { error: (error as Error).message });
    return { index: buildSearchIndex([]), byId: new Map(), bySource: {}, problems: [{ path: '(catalog)', message: `indexing failed: ${(error as Error).message}` }] };
  }
}

/** What changed between two indexes, by scenario id (a changed scenario normalises to different JSON). */
function difference(before: Built, after: Built): CatalogRefresh {
  const added: string[] = [];
  const changed: string[] = [];
  for (const [id, scenario] of after.byId) {
    const old = before.byId.get(id);
    if (!old) added.push(id);
    else if (JSON.stringify(old) !== JSON.stringify(scenario)) changed.push(id);
  }
  const removed = [...before.byId.keys()].filter((id) => !after.byId.has(id));
  return { total: after.index.size, added, changed, removed, refused: [...after.problems], unchanged: after.index.size - added.length - changed.length };
}

/**
 * Builds the catalog over `options.dirs`; nothing is read until first use. `refresh()` builds a new index
 * beside the one in use and swaps it in only when complete, so searches meanwhile see the old one.
 */
export function createCatalog(options: CatalogOptions): Catalog {
  const now = options.now ?? Date.now;
  let current: Promise<Built> | undefined;
  let refreshing: Promise<CatalogRefresh> | undefined;
  // Someone waits for the first index (a search, a lookup, the doctor, a refresh; not the start's `ready()`): only
  // then does this thread help the prefetch load the files, so the help never slows the rest of the start (issue 26).
  let hurry!: () => void;
  const wanted = new Promise<void>((resolve) => (hurry = resolve));
  const built = (): Promise<Built> => (current ??= indexOnce(options, now, wanted));
  const waitFor = (): Promise<Built> => {
    hurry();
    return built();
  };
  return {
    async ready() {
      await built();
    },
    async search(query) {
      return (await waitFor()).index.search(query);
    },
    async get(id) {
      const scenario = (await waitFor()).byId.get(id);
      return scenario ? structuredClone(scenario) : null;
    },
    async integrity() {
      const { index, bySource, problems } = await waitFor();
      return { total: index.size, bySource: { ...bySource }, problems: [...problems] };
    },
    refresh() {
      // Two refreshes asked at once share one build: the second would read the same files.
      refreshing ??= (async () => {
        const before = await waitFor();
        const after = await indexOnce(options, now);
        current = Promise.resolve(after);
        return difference(before, after);
      })().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
  };
}
