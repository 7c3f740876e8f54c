/**
 * The scenario catalog (the `catalog` service slot, core/domain/catalog.ts): the bundled `catalog/` folder plus `AEH_CATALOG_DIRS`, native and AES v1.4
 * documents alike, indexed for faceted search (`GET /api/scenarios`) and lookup by id.
 * Indexing starts on first use (or `ready()`, which the catalog plugin calls at start without waiting), so the
 * HTTP server never waits for it; a search that arrives early waits for the one index being built.
 * A file that cannot be used never stops the others: it is recorded for `integrity()` (the doctor's check).
 */
import type { Scenario } from '../../core/domain/scenario.ts';
import type { Catalog, CatalogEntry, CatalogProblem, CatalogQuery, CatalogRefresh, CatalogSearchResult } from '../../core/domain/catalog.ts';
import type { CatalogDocument, FileAccess, Logger } from '../../core/capabilities.ts';
import { normalizeScenario } from '../../core/domain/scenario-load.ts';
import { isProblem } from '../../core/problems.ts';
import { JsonSyntaxError, parseBoundedJson } from '../../core/guards/json.ts';
import type { ScenarioFormat } from '../../core/domain/scenario-format.ts';
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
  /** Clock for the indexing time in the log. */
  now?: () => number;
}

/** Folders inside a catalog that hold no scenarios: JSON Schemas (the AES catalog's `schema/`), data, VCS. */
const SKIPPED_FOLDERS = new Set(['schema', 'schemas', 'data', 'node_modules']);
/** Longest stretch the indexer keeps the event loop busy before yielding. */
const SLICE_MS = 25;
/** Catalog files larger than this are refused rather than parsed. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

interface Built {
  index: SearchIndex;
  byId: Map<string, Scenario>;
  bySource: Record<string, number>;
  problems: CatalogProblem[];
}

interface Loaded {
  path: string;
  source: string;
  scenario?: Scenario;
  format?: string;
  problem?: string;
}

/** True for files below `root` that may hold scenarios (not in hidden or skipped folders, not schemas). */
function isScenarioFile(root: string, path: string): boolean {
  const relative = path.startsWith(root) ? path.slice(root.length) : path;
  const parts = relative.split(/[\\/]+/).filter(Boolean);
  const file = parts.pop() ?? '';
  if (file.startsWith('.') || file.endsWith('.schema.json')) return false;
  return parts.every((folder) => !folder.startsWith('.') && !folder.startsWith('_') && !SKIPPED_FOLDERS.has(folder));
}

function describeError(error: unknown): string {
  if (isProblem(error)) {
    const first = error.errors?.slice(0, 3).map((field) => `${field.path} ${field.message}`).join('; ');
    return first ? `invalid scenario: ${first}` : error.detail;
  }
  // JsonSyntaxError says where; any other SyntaxError's message would quote the file.
  if (error instanceof SyntaxError) return error instanceof JsonSyntaxError ? error.message : 'invalid JSON';
  return error instanceof Error ? error.message : String(error);
}

/**
 * Lets pending I/O (an incoming request) run. `setImmediate` where the runtime has it: unlike `setTimeout(0)`
 * it does not sleep when nothing is waiting, which matters on a busy machine.
 */
function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/** What loading a file needs besides its bytes. */
interface LoadContext {
  decoder: TextDecoder;
  formats: readonly ScenarioFormat[];
}

/** Parses and normalises one file's bytes; a failure becomes the file's problem. */
function loadBytes(bytes: Uint8Array, path: string, source: string, { decoder, formats }: LoadContext): Loaded {
  try {
    if (bytes.byteLength > MAX_FILE_BYTES) return { path, source, problem: `larger than ${MAX_FILE_BYTES} bytes` };
    const document: unknown = parseBoundedJson(decoder.decode(bytes));
    const scenario = normalizeScenario(document, { path, formats });
    const format = formats.some((candidate) => candidate.name === scenario.source) ? scenario.source! : 'native';
    return { path, source, scenario, format };
  } catch (error) {
    return { path, source, problem: describeError(error) };
  }
}

function unreadable(path: string, source: string, error: unknown): Loaded {
  return { path, source, problem: `unreadable: ${(error as Error).message}` };
}

/**
 * Reads with the runtime's synchronous read in slices of about `SLICE_MS`, yielding to the event loop in
 * between: thousands of small files load several times faster than through one promise per file, and
 * requests are never held for longer than a slice.
 */
async function loadInSlices(files: FileAccess & { readFileSync(path: string): Uint8Array }, targets: Array<{ path: string; source: string }>, context: LoadContext): Promise<Loaded[]> {
  const loaded: Loaded[] = [];
  let sliceStart = performance.now();
  for (const { path, source } of targets) {
    let bytes: Uint8Array;
    try {
      bytes = files.readFileSync(path);
    } catch (error) {
      loaded.push(unreadable(path, source, error));
      continue;
    }
    loaded.push(loadBytes(bytes, path, source, context));
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
  return loaded;
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the order of `items`. */
async function mapPool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function buildCatalog(options: CatalogOptions): Promise<Built> {
  const { files, dirs, metricDimension } = options;
  const problems: CatalogProblem[] = [];
  const targets: Array<{ path: string; source: string }> = [];
  if (!files && dirs.length) problems.push({ path: dirs[0].path, message: 'this runtime has no file system; the catalog is empty' });
  for (const dir of dirs) {
    if (!files) break;
    try {
      const root = await files.realpath(dir.path);
      for (const path of await files.listFiles(root, '.json')) if (isScenarioFile(root, path)) targets.push({ path, source: dir.source });
    } catch (error) {
      problems.push({ path: dir.path, message: (error as { code?: string }).code === 'ENOENT' ? 'catalog folder not found' : `catalog folder unreadable: ${(error as Error).message}` });
    }
  }
  const context: LoadContext = { decoder: new TextDecoder(), formats: options.formats ?? [] };
  const encoder = new TextEncoder();
  // Embedded documents follow the folder rules too (JSON only, no schemas, no hidden or skipped folders).
  const embedded = (options.documents ?? []).filter((document) => document.path.endsWith('.json') && isScenarioFile('', document.path));
  let loaded: Loaded[] = embedded.map((document) => loadBytes(encoder.encode(document.text), document.path, 'bundled', context));
  if (files?.readFileSync) loaded = loaded.concat(await loadInSlices(files as FileAccess & { readFileSync(path: string): Uint8Array }, targets, context));
  else if (files) {
    loaded = loaded.concat(await mapPool(targets, options.concurrency ?? 32, (target) =>
      files.readFile(target.path).then((bytes) => loadBytes(bytes, target.path, target.source, context), (error) => unreadable(target.path, target.source, error)),
    ));
  }

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
  return { index: buildSearchIndex(items), byId, bySource, problems };
}

/** Indexes once, serving an empty catalog that says why when only a bug could have stopped the build. */
async function indexOnce(options: CatalogOptions, now: () => number): Promise<Built> {
  const startedAt = now();
  try {
    const result = await buildCatalog(options);
    options.logger.info('catalog indexed', { scenarios: result.index.size, problems: result.problems.length, sources: result.bySource, ms: now() - startedAt });
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
  const built = (): Promise<Built> => (current ??= indexOnce(options, now));
  return {
    async ready() {
      await built();
    },
    async search(query) {
      return (await built()).index.search(query);
    },
    async get(id) {
      const scenario = (await built()).byId.get(id);
      return scenario ? structuredClone(scenario) : null;
    },
    async integrity() {
      const { index, bySource, problems } = await built();
      return { total: index.size, bySource: { ...bySource }, problems: [...problems] };
    },
    refresh() {
      // Two refreshes asked at once share one build: the second would read the same files.
      refreshing ??= (async () => {
        const before = await built();
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
