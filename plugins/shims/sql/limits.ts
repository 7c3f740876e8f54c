/**
 * What a SQL world may hold and what one statement may use, in bytes as well as rows. Counting rows alone let one
 * call `INSERT INTO t VALUES (zeroblob(200000000))`: two minutes of CPU and 6 GB of memory before the state could
 * not be written back (and a `hex(zeroblob(…))` read took a gigabyte). sql.js exposes no `sqlite3_limit`, so
 * the bounds are SQLite's own pragmas, set by the harness on every connection (an agent's PRAGMA is refused,
 * program.ts):
 *  - `max_page_count`: a world's database is at most MAX_WORLD_BYTES; a write past it fails with SQLite's "database
 *    or disk is full" and is rolled back like any failed statement.
 *  - `hard_heap_limit`: all of SQLite's memory in this process (its WebAssembly heap) stays under MAX_HEAP_BYTES.
 *    The cached databases hold at most (MAX_CACHED_DATABASES + 2) × MAX_WORLD_BYTES of it, so a statement always
 *    has at least the rest (~330 MiB) to work in, whatever other worlds are cached; past it, "out of memory".
 * A result keeps rows up to MAX_RESULT_BYTES of JSON (and MAX_RESULT_ROWS), then says it is truncated.
 */
import type { Database } from 'sql.js';

/** The rows a world may hold, seeded or written, so that no world makes every call rebuild a huge database. */
export const MAX_ROWS = 20_000;
/** The largest database a world may be (pages of SQLite's default 4 KiB). */
export const MAX_WORLD_BYTES = 16 * 1024 * 1024;
/** SQLite's memory in one process, every cached world and the running statement together. */
export const MAX_HEAP_BYTES = 512 * 1024 * 1024;
/** Rows one result returns at most; the rest is counted and reported as truncated. */
export const MAX_RESULT_ROWS = 500;
/** JSON bytes one result returns at most (a cell's text counted by its length). */
export const MAX_RESULT_BYTES = 1024 * 1024;

let maxPages: number | undefined;
let heapLimited = false;

/**
 * Bounds a new connection: its database's size, and (once: it is process-wide) SQLite's heap. One pragma per
 * connection: a world's database is opened for every call on a state not cached.
 */
export function limitConnection(db: Database): void {
  // Every new database of this engine has its default page size.
  maxPages ??= Math.floor(MAX_WORLD_BYTES / Number(db.exec('PRAGMA page_size')[0]!.values[0]![0]));
  db.run(`PRAGMA max_page_count = ${maxPages}`);
  if (heapLimited) return;
  db.run(`PRAGMA hard_heap_limit = ${MAX_HEAP_BYTES}`);
  heapLimited = true;
}

/** SQLite's message for a limit above, said in the world's terms; other messages as they are. */
export function explainLimit(message: string): string {
  if (/database or disk is full/.test(message)) return `the world's database is limited to ${MAX_WORLD_BYTES / 1024 / 1024} MiB (SQLite: ${message})`;
  if (/out of memory/.test(message)) return `the statement needs more memory than a world's call may use (SQLite: ${message})`;
  return message;
}

/** Whether the error is SQLite refusing memory: the connection is then not used again. */
export const isOutOfMemory = (error: unknown) => /out of memory/.test((error as Error)?.message ?? '');

/** A JSON row's size, near enough to bound a result: strings by length, other cells by their text. */
export function rowBytes(row: unknown[]): number {
  let bytes = 2;
  for (const cell of row) bytes += (typeof cell === 'string' ? cell.length + 2 : String(cell).length) + 1;
  return bytes;
}
