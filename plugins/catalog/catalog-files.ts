/**
 * Loading a catalog's files (plugins/catalog/catalog.ts indexes them): listing its folders, reading each file and
 * normalising it, a file that cannot be used becoming its problem. Runs on the app's thread, or ahead of the app in
 * a worker that the app's thread helps once it has started (runtime/node/catalog-prefetch.ts), with the same result.
 */
import type { CatalogDocument, FileAccess } from '../../core/capabilities.ts';
import type { CatalogFile, CatalogFiles, CatalogProblem, CatalogTarget } from '../../core/domain/catalog.ts';
import type { ScenarioFormat } from '../../core/domain/scenario-format.ts';
import { normalizeScenario } from '../../core/domain/scenario-load.ts';
import { isProblem } from '../../core/problems.ts';
import { JsonSyntaxError, parseBoundedJson } from '../../core/guards/json.ts';

/** Folders inside a catalog that hold no scenarios: JSON Schemas (the AES catalog's `schema/`), data, VCS. */
const SKIPPED_FOLDERS = new Set(['schema', 'schemas', 'data', 'node_modules']);
/** Longest stretch the indexer keeps the event loop busy before yielding. */
const SLICE_MS = 25;
/** Catalog files larger than this are refused rather than parsed. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;



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
export interface LoadContext {
  decoder: TextDecoder;
  formats: readonly ScenarioFormat[];
}

/** The context to load files in the given formats with. */
export function loadContext(formats: readonly ScenarioFormat[]): LoadContext {
  return { decoder: new TextDecoder(), formats };
}

/** Parses and normalises one file's bytes; a failure becomes the file's problem. */
function loadBytes(bytes: Uint8Array, path: string, source: string, { decoder, formats }: LoadContext): CatalogFile {
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

function unreadable(path: string, source: string, error: unknown): CatalogFile {
  return { path, source, problem: `unreadable: ${(error as Error).message}` };
}

/** Reads and loads one listed file with the runtime's synchronous read; a failure becomes the file's problem. */
export function loadFileSync(readFileSync: (path: string) => Uint8Array, { path, source }: CatalogTarget, context: LoadContext): CatalogFile {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return unreadable(path, source, error);
  }
  return loadBytes(bytes, path, source, context);
}

/**
 * Reads with the runtime's synchronous read in slices of about `SLICE_MS`, yielding to the event loop in
 * between: thousands of small files load several times faster than through one promise per file, and
 * requests are never held for longer than a slice.
 */
async function loadInSlices(readFileSync: (path: string) => Uint8Array, targets: CatalogTarget[], context: LoadContext): Promise<CatalogFile[]> {
  const loaded: CatalogFile[] = [];
  let sliceStart = performance.now();
  for (const target of targets) {
    loaded.push(loadFileSync(readFileSync, target, context));
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

/** What `collectCatalogFiles` reads with: a runtime's file access, or part of it in a worker. */
export type CatalogFileAccess = Pick<FileAccess, 'realpath' | 'listFiles' | 'readFile' | 'readFileSync'>;

export interface CollectOptions {
  files?: CatalogFileAccess;
  /** Folders to read, the bundled catalog first. */
  dirs: ReadonlyArray<{ path: string; source: string }>;
  /** Bundled documents embedded in the build (no file system), loaded as source `bundled` before `dirs`. */
  documents?: readonly CatalogDocument[];
  formats: readonly ScenarioFormat[];
  /** Files read at once on runtimes without a synchronous read. */
  concurrency?: number;
}

/** The scenario files of the folders, in order; folders that cannot be listed are problems. */
export async function listCatalogTargets(files: CatalogFileAccess | undefined, dirs: CollectOptions['dirs']): Promise<{ problems: CatalogProblem[]; targets: CatalogTarget[] }> {
  const problems: CatalogProblem[] = [];
  const targets: CatalogTarget[] = [];
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
  return { problems, targets };
}

/** Every scenario file of the folders (and embedded documents), loaded in order; folders that cannot be listed are problems. */
export async function collectCatalogFiles(options: CollectOptions): Promise<CatalogFiles> {
  const { files } = options;
  const { problems, targets } = await listCatalogTargets(files, options.dirs);
  const context = loadContext(options.formats);
  const encoder = new TextEncoder();
  // Embedded documents follow the folder rules too (JSON only, no schemas, no hidden or skipped folders).
  const embedded = (options.documents ?? []).filter((document) => document.path.endsWith('.json') && isScenarioFile('', document.path));
  let loaded: CatalogFile[] = embedded.map((document) => loadBytes(encoder.encode(document.text), document.path, 'bundled', context));
  if (files?.readFileSync) loaded = loaded.concat(await loadInSlices(files.readFileSync.bind(files), targets, context));
  else if (files) {
    loaded = loaded.concat(await mapPool(targets, options.concurrency ?? 32, (target) =>
      files.readFile(target.path).then((bytes) => loadBytes(bytes, target.path, target.source, context), (error) => unreadable(target.path, target.source, error)),
    ));
  }
  return { problems, loaded };
}
