/**
 * The SQL shim's databases: sql.js (SQLite compiled to WebAssembly) loaded once, a database built from a state
 * when a call needs one and kept for the next call on the same state, and a state read back from a database.
 * Every database gets the world's chance and clock (world-functions.ts) before it runs anything.
 */
import initSqlJs, { type Database, type SqlJsStatic, type SqlValue } from 'sql.js';
import type { Json } from '../../../core/shim.ts';
import { installWorldFunctions, worldSession, type WorldSession } from './world-functions.ts';
import { limitConnection } from './limits.ts';

export interface Table {
  [key: string]: Json;
  columns: string[];
  rows: Json[][];
}

export interface SqlState {
  [key: string]: Json;
  /** The schema, as `CREATE` statements in order. */
  schema: string[];
  tables: { [name: string]: Table };
  read_only: boolean;
  /** The world's seed: `random()` and `randomblob()` draw from it (0 unless the scenario gives one). */
  seed: number;
  /**
   * Successful statements: their text, result columns, row count and the table columns they read
   * (`table.column`, as SQLite's compiled program reads them; failed ones are in the trace only).
   */
  queries: Array<{ sql: string; columns: string[]; rows: number; read: string[] }>;
}

/** SQLite's default limit of bound parameters per statement (SQLITE_MAX_VARIABLE_NUMBER since 3.32). */
export const MAX_BOUND_PARAMETERS = 32_766;

let engine: Promise<SqlJsStatic> | undefined;
/** sql.js, loaded on first use (its WebAssembly module is about 650 KB). */
export function sqlEngine(options?: Parameters<typeof initSqlJs>[0]): Promise<SqlJsStatic> {
  engine ??= initSqlJs(options);
  return engine;
}

/** A database and the session its world functions read, set before each statement. */
export interface WorldDatabase {
  db: Database;
  /** Starts the `statement`-th statement of the world: its sequence of chance and its clock. */
  beginStatement(now: string, seed: number, statement: number): void;
}

/** A new, empty database with the world's functions installed. */
export async function openWorldDatabase(): Promise<WorldDatabase> {
  const SQL = await sqlEngine();
  const db = new SQL.Database();
  limitConnection(db);
  let session: WorldSession = worldSession('1970-01-01T00:00:00.000Z', 0, 0);
  installWorldFunctions(SQL, db, () => session);
  return { db, beginStatement: (now, seed, statement) => { session = worldSession(now, seed, statement); } };
}

/** Every table's row count, summed (SQLite counts a table without reading its rows out). */
export function worldRows(db: Database): number {
  const tables = db.exec("SELECT name FROM sqlite_schema WHERE type = 'table'")[0]?.values ?? [];
  return tables.reduce((sum, [name]) => sum + Number(db.exec(`SELECT count(*) FROM ${quoted(String(name))}`)[0]!.values[0]![0]), 0);
}

/** A quoted SQL identifier. */
export function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Databases of recent states, so consecutive calls on a world skip the rebuild. A SQLite database in
 * WebAssembly is not garbage collected with its state object, so the cache is bounded and closes what it
 * drops: without that, every call in a worker (which gets a fresh copy of the state) leaked a database until
 * SQLite could open no more.
 */
const MAX_CACHED_DATABASES = 8;
const databases = new Map<SqlState, WorldDatabase>();

/** Keeps `world` as the database of `state`. */
export function remember(state: SqlState, world: WorldDatabase): void {
  databases.set(state, world);
  while (databases.size > MAX_CACHED_DATABASES) {
    const [oldest, dropped] = databases.entries().next().value as [SqlState, WorldDatabase];
    databases.delete(oldest);
    // The same database may have moved on to a newer state; close it only when no entry holds it.
    if (![...databases.values()].includes(dropped)) dropped.db.close();
  }
}

/** Drops the cache entry of `state` (its database moved on, or must not be used again). */
export function forget(state: SqlState, close = false): void {
  const world = databases.get(state);
  databases.delete(state);
  if (close && world && ![...databases.values()].includes(world)) world.db.close();
}

const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');
const ascii = new TextDecoder();

/**
 * A cell as JSON: blobs as hexadecimal text, written as ASCII bytes and decoded once. A string per byte took ~6 s
 * for a blob of 8 MiB, and every write reads every table back (`dump`).
 */
export function toJson(value: SqlValue): Json {
  if (!(value instanceof Uint8Array)) return value;
  const text = new Uint8Array(value.length * 2);
  for (let index = 0; index < value.length; index++) {
    text[2 * index] = HEX_DIGITS[value[index]! >> 4]!;
    text[2 * index + 1] = HEX_DIGITS[value[index]! & 15]!;
  }
  return ascii.decode(text);
}

/** The database of `state`: cached, or built from its schema and rows. */
export async function databaseOf(state: SqlState): Promise<WorldDatabase> {
  const cached = databases.get(state);
  if (cached) return cached;
  const world = await openWorldDatabase();
  const { db } = world;
  for (const statement of state.schema) db.run(statement);
  for (const [name, table] of Object.entries(state.tables)) {
    if (table.rows.length === 0 || table.columns.length === 0) continue;
    // Many rows per INSERT: each statement crosses into WebAssembly once, where a row at a time cost ~20 µs a row.
    const perStatement = Math.max(1, Math.floor(MAX_BOUND_PARAMETERS / table.columns.length));
    const head = `INSERT INTO ${quoted(name)} (${table.columns.map(quoted).join(', ')}) VALUES `;
    const tuple = `(${table.columns.map(() => '?').join(', ')})`;
    for (let start = 0; start < table.rows.length; start += perStatement) {
      const rows = table.rows.slice(start, start + perStatement);
      db.run(head + rows.map(() => tuple).join(', '), rows.flat() as SqlValue[]);
    }
  }
  remember(state, world);
  return world;
}

/** Every table's rows as they now are, and the schema that creates them. */
export function dump(db: Database): { schema: string[]; tables: SqlState['tables'] } {
  const schema: string[] = [];
  const tables: SqlState['tables'] = {};
  // SQLite's catalog says what each object is, and which tables have no rowid (their key orders them).
  const master = db.exec("SELECT s.type, s.name, s.sql, l.wr FROM sqlite_schema s LEFT JOIN pragma_table_list l ON l.schema = 'main' AND l.name = s.name AND s.type = 'table' WHERE s.type IN ('table', 'index', 'view', 'trigger') AND s.sql IS NOT NULL ORDER BY s.rowid");
  for (const [type, name, sql, withoutRowid] of master[0]?.values ?? []) {
    schema.push(String(sql));
    if (type !== 'table') continue;
    const statement = db.prepare(`SELECT * FROM ${quoted(String(name))}${withoutRowid ? '' : ' ORDER BY rowid'}`);
    const rows: Json[][] = [];
    while (statement.step()) rows.push(statement.get().map(toJson));
    tables[String(name)] = { columns: statement.getColumnNames(), rows };
    statement.free();
  }
  return { schema, tables };
}
