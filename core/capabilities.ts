/**
 * Runtime capabilities: what differs between Node, Deno, Bun and workerd is passed in by the runtime entry,
 * never sniffed inside the core.
 */
import type { CatalogPrefetch } from './domain/catalog.ts';

/** An incremental hash (native or @noble/hashes), as used by `core/domain/hash.ts`. */
export interface IncrementalHash {
  update(chunk: Uint8Array): IncrementalHash;
  digest(): Uint8Array;
  /** An independent copy of the state so far, to take a digest mid-stream (handoff tokens) and keep going. */
  copy?(): IncrementalHash;
}

/** Metadata of a file, after symlinks are followed. */
export interface FileStat {
  isFile: boolean;
  size: number;
}

/**
 * File system access for the jail (`core/guards/jail.ts`). Absent on runtimes without a file system (workerd),
 * where path-based requests answer 501.
 */
export interface FileAccess {
  /** Resolves symlinks; rejects with `code: 'ENOENT'` when the path does not exist. */
  realpath(path: string): Promise<string>;
  stat(path: string): Promise<FileStat>;
  readFile(path: string): Promise<Uint8Array>;
  /** Synchronous read, where the runtime has one: the catalog reads thousands of small files at start in time slices. */
  readFileSync?(path: string): Uint8Array;
  readStream(path: string): ReadableStream<Uint8Array>;
  /** Writes atomically (temp file, then rename); `mode` sets the permission bits of a new file (0o600 for keys). */
  writeFile(path: string, bytes: Uint8Array, options?: { mode?: number }): Promise<void>;
  /** Lists files below a folder, recursively, as absolute paths. */
  listFiles(dir: string, extension: string): Promise<string[]>;
  /** The system temporary directories the default jail also allows (already realpath'd). */
  tempDirs: string[];
}

/** A scenario document embedded in the build (workerd has no file system to read the bundled catalog from). */
export interface CatalogDocument {
  /** Where the document came from (`catalog/finance/loan-advice.json`), for the doctor's messages. */
  path: string;
  text: string;
}

/** An address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Network primitives the SSRF guard builds on: name resolution, and a fetch whose connection is pinned to
 * an address the guard has already checked (so DNS cannot change its answer in between).
 */
export interface NetAccess {
  resolve(hostname: string): Promise<ResolvedAddress[]>;
  fetchPinned(url: URL, init: RequestInit, address: ResolvedAddress): Promise<Response>;
}

/** Outbound fetch through the SSRF guard (`core/guards/ssrf.ts`). */
export type GuardedFetch = (url: string | URL, init?: RequestInit & { timeoutMs?: number; maxBytes?: number }) => Promise<Response>;

/**
 * A function to run off the request thread: the named export of a module, called with one argument. The
 * module is loaded by URL in the worker, so it must need nothing the caller's closures hold.
 */
export interface OffloadJob {
  /** URL of the module (`import.meta.url` of the module that exports `name`). */
  module: string;
  /** Name of the exported function; it may return a promise. */
  name: string;
  /** Its one argument: structured-clonable (no functions), as is what it returns. */
  input: unknown;
  /**
   * Wall-clock milliseconds the job may run once a worker has started it, not counting a cold worker's loading
   * of `module` and `preload`; past them the worker is stopped.
   */
  budgetMs: number;
  /**
   * When set, the job may first take up to this long to prepare (load its modules, build caches) and calls the
   * `started()` its function gets as a second argument when done; `budgetMs` counts from then. So a cold worker
   * on a busy machine never spends a job's budget on loading (issue 24 item 6: load must not decide a verdict).
   */
  setupMs?: number;
  /** Modules the job imports (a shim's), loaded before its budget starts, with their exported `warmUp()` if any. */
  preload?: string[];
  /** Stops waiting (and the worker) when aborted: a cancelled run. */
  signal?: AbortSignal;
  /**
   * Whose work this is (a principal): waiting jobs of different groups take turns for the workers, so one
   * caller's flood of jobs does not queue everyone else's behind it. Jobs without a group share one.
   */
  group?: string;
}

/** The `OffloadJob.group` of a principal's work: one name however many runs and requests it has. */
export function principalGroup(principalId: string | undefined, fallback = 'anonymous'): string {
  return principalId ? `principal:${principalId}` : fallback;
}

/** Thrown by `Offload.run` when a job ran past its budget: the worker running it was stopped and replaced. */
export class OffloadBudgetError extends Error {
  readonly budgetMs: number;

  constructor(budgetMs: number) {
    super(`ran past its budget of ${budgetMs} ms and was stopped`);
    this.name = 'OffloadBudgetError';
    this.budgetMs = budgetMs;
  }
}

/**
 * CPU-bound work off the request thread, so one job cannot stall the service: a small pool of workers
 * (`node:worker_threads` on Node, Deno and Bun). Absent where the runtime has no workers (workerd): callers
 * then run the job inline.
 */
export interface Offload {
  /** Number of workers. */
  readonly size: number;
  /**
   * Runs a job; rejects with `OffloadBudgetError` past its budget, with the job's own error if it throws, and
   * with an error named `OffloadUnavailable` when no worker can start (callers then run the job inline).
   */
  run(job: OffloadJob): Promise<unknown>;
  /** Stops the workers. */
  close(): Promise<void>;
}

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface RuntimeCapabilities {
  runtime: { name: string; version: string };
  /**
   * A faster SHA3-256 than @noble/hashes' JavaScript, when the runtime has one: node:crypto (OpenSSL) on Node,
   * Deno and Bun; a WebAssembly Keccak brought by the bundle on workerd, which has no SHA3 of its own.
   */
  nativeSha3?: () => IncrementalHash;
  files?: FileAccess;
  net?: NetAccess;
  /** Plain fetch for operator-trusted URLs (JWKS, LLM provider, key services); defaults to global fetch. */
  fetch?: typeof fetch;
  logger?: Logger;
  /** Loads a user plugin module by path or package name (`AEH_PLUGINS`, `aeh.config.*`). */
  importModule?(specifier: string): Promise<unknown>;
  /** Folder of the bundled scenario catalog. */
  catalogDir?: string;
  /** The bundled catalog's documents themselves, where there is no `catalogDir` to read (workerd). */
  catalogDocuments?: readonly CatalogDocument[];
  /** The catalog's files, loading since before the app was built (Node: in a worker, runtime/node/catalog-prefetch.ts). */
  catalogPrefetch?: CatalogPrefetch;
  /**
   * The calling client's IP address, for per-address rate limits and the audit log. `bindings` is what the
   * server passed to `app.fetch` as its second argument (`{ incoming }` on @hono/node-server).
   */
  clientAddress?(request: Request, bindings: unknown): string | undefined;
  /**
   * True where I/O belongs to the request that started it (workerd): a request must not wait on work another
   * request started (a shared single-flight promise), because that request's end or cancellation strands it.
   */
  requestScopedIo?: boolean;
  /** Clock, injectable for tests. */
  now?: () => number;
  /** Workers for CPU-bound work (metrics, spec-to-eval), where the runtime has them. */
  offload?: Offload;
}

/** A logger that writes JSON lines to the console. */
export function consoleLogger(): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...fields });
    if (level === 'error') console.error(line);
    else console.log(line);
  };
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/** A logger that discards everything (tests). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
