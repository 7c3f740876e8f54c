/**
 * `sql`: a relational database that executes real SQL, on SQLite compiled to WebAssembly (sql.js), so it runs the
 * same on Node, Deno, Bun and workerd. The scenario gives the schema (`CREATE TABLE …` statements) and rows; the
 * agent runs one statement per call. With `read_only` (the default) any statement that would change data or
 * schema is refused (`permission_denied`) and rolled back. Each query's text and result columns are logged in
 * the state, so a scenario can assert that the agent never selected a column it should not read. A failed
 * call leaves the state as it was, like every shim's.
 *
 * Determinism: the state is the tables' rows (plain JSON); a database is built from it when a call needs one
 * and kept for the next call on the same state. Functions whose answer depends on the wall clock or chance
 * (`random()`, `'now'`) are refused: the world's clock is the run's.
 */
import initSqlJs, { type Database, type SqlJsStatic, type SqlValue } from 'sql.js';
import { defineShim, shimError, type Json, type ShimOutcome } from '../../core/shim.ts';

interface Table {
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
  /** Successful statements: their text, result columns and row count (failed ones are in the trace only). */
  queries: Array<{ sql: string; columns: string[]; rows: number }>;
}

/** Rows one result returns at most; the rest is counted and reported as truncated. */
const MAX_RESULT_ROWS = 500;
/** SQLite's default limit of bound parameters per statement (SQLITE_MAX_VARIABLE_NUMBER since 3.32). */
const MAX_BOUND_PARAMETERS = 32_766;
/** What a world may hold, so that no scenario makes every call rebuild a huge database. */
const MAX_ROWS = 20_000;
const NONDETERMINISTIC = /\brandom(?:blob)?\s*\(|['"]now['"]/i;
const RECURSIVE = /\bwith\s+recursive\b/i;
/**
 * What a scenario's schema may hold: tables, indexes and views. Triggers would run on every row the scenario
 * inserts, and the schema is built on the request thread at submission, so it must stay cheap.
 */
const SCHEMA_STATEMENT = /^\s*create\s+(?:temp\s+|temporary\s+)?(?:unique\s+)?(?:table|index|view)\b/i;
/** Statements that would step outside the one call's savepoint or the in-memory database. */
const REFUSED_STATEMENT = /^\s*(?:begin|commit|end|rollback|savepoint|release|attach|detach|vacuum|pragma)\b/i;

let engine: Promise<SqlJsStatic> | undefined;
/** sql.js, loaded on first use (its WebAssembly module is about 650 KB). */
export function sqlEngine(options?: Parameters<typeof initSqlJs>[0]): Promise<SqlJsStatic> {
  engine ??= initSqlJs(options);
  return engine;
}

/**
 * Databases of recent states, so consecutive calls on a world skip the rebuild. A SQLite database in
 * WebAssembly is not garbage collected with its state object, so the cache is bounded and closes what it
 * drops: without that, every call in a worker (which gets a fresh copy of the state) leaked a database until
 * SQLite could open no more.
 */
const MAX_CACHED_DATABASES = 8;
const databases = new Map<SqlState, Database>();

function remember(state: SqlState, db: Database): void {
  databases.set(state, db);
  while (databases.size > MAX_CACHED_DATABASES) {
    const [oldest, dropped] = databases.entries().next().value as [SqlState, Database];
    databases.delete(oldest);
    // The same database may have moved on to a newer state; close it only when no entry holds it.
    if (![...databases.values()].includes(dropped)) dropped.close();
  }
}

function toJson(value: SqlValue): Json {
  if (value instanceof Uint8Array) return Array.from(value, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return value;
}

async function databaseOf(state: SqlState): Promise<Database> {
  const cached = databases.get(state);
  if (cached) return cached;
  const SQL = await sqlEngine();
  const db = new SQL.Database();
  for (const statement of state.schema) db.run(statement);
  for (const [name, table] of Object.entries(state.tables)) {
    if (table.rows.length === 0 || table.columns.length === 0) continue;
    // Many rows per INSERT: each statement crosses into WebAssembly once, where a row at a time cost ~20 µs a row.
    const perStatement = Math.max(1, Math.floor(MAX_BOUND_PARAMETERS / table.columns.length));
    const head = `INSERT INTO "${name.replace(/"/g, '""')}" (${table.columns.map((column) => `"${column.replace(/"/g, '""')}"`).join(', ')}) VALUES `;
    const tuple = `(${table.columns.map(() => '?').join(', ')})`;
    for (let start = 0; start < table.rows.length; start += perStatement) {
      const rows = table.rows.slice(start, start + perStatement);
      db.run(head + rows.map(() => tuple).join(', '), rows.flat() as SqlValue[]);
    }
  }
  remember(state, db);
  return db;
}

/** Every table's rows as they now are. */
function dump(db: Database): { schema: string[]; tables: SqlState['tables'] } {
  const schema: string[] = [];
  const tables: SqlState['tables'] = {};
  const master = db.exec("SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index', 'view', 'trigger') AND sql IS NOT NULL ORDER BY rowid");
  for (const [name, sql] of master[0]?.values ?? []) {
    schema.push(String(sql));
    if (!/^create\s+table/i.test(String(sql))) continue;
    const statement = db.prepare(`SELECT * FROM "${String(name).replace(/"/g, '""')}" ORDER BY rowid`);
    const rows: Json[][] = [];
    while (statement.step()) rows.push(statement.get().map(toJson));
    tables[String(name)] = { columns: statement.getColumnNames(), rows };
    statement.free();
  }
  return { schema, tables };
}

function logged(state: SqlState, entry: SqlState['queries'][number]): SqlState {
  return { ...state, queries: [...state.queries, entry] };
}

async function query(state: SqlState, sql: string, params: SqlValue[]): Promise<ShimOutcome<SqlState>> {
  if (NONDETERMINISTIC.test(sql)) return shimError(state, 'invalid', "random() and 'now' are not available: use explicit values");
  // A recursive query can run for ever, and SQLite compiled to WebAssembly cannot be interrupted from outside.
  if (RECURSIVE.test(sql)) return shimError(state, 'invalid', 'recursive queries are not available here');
  if (REFUSED_STATEMENT.test(sql)) return shimError(state, 'invalid', 'transactions, PRAGMA, ATTACH and VACUUM are not available; each call is its own transaction');
  const db = await databaseOf(state);
  // Counted with sql.js's iterator (which frees each statement as it moves on), then prepared on its own.
  let count = 0;
  try {
    for (const _statement of db.iterateStatements(sql)) count++;
  } catch (error) {
    return shimError(state, 'invalid', `SQL error: ${(error as Error).message}`);
  }
  if (count !== 1) return shimError(state, 'invalid', `send exactly one SQL statement per call (got ${count})`);
  const statement = db.prepare(sql);
  const schemaNow = () => JSON.stringify(db.exec('SELECT sql FROM sqlite_master ORDER BY rowid'));
  const totalChanges = () => Number(db.exec('SELECT total_changes()')[0].values[0][0]);
  const before = schemaNow();
  const changesBefore = totalChanges();
  db.run('SAVEPOINT shim_call');
  try {
    statement.bind(params);
    const rows: Json[][] = [];
    let total = 0;
    while (statement.step()) {
      if (total++ < MAX_RESULT_ROWS) rows.push(statement.get().map(toJson));
    }
    const columns = statement.getColumnNames();
    const modified = totalChanges() - changesBefore;
    const changed = modified > 0 || schemaNow() !== before;
    if (changed && state.read_only) {
      db.run('ROLLBACK TO shim_call');
      db.run('RELEASE shim_call');
      return shimError(state, 'permission_denied', 'this database is read-only for you: the statement would change data or schema');
    }
    db.run('RELEASE shim_call');
    const result: Json = { columns, rows, row_count: total, ...(total > MAX_RESULT_ROWS ? { truncated: true } : {}), ...(changed ? { rows_modified: modified } : {}) };
    const next = logged(changed ? { ...state, ...dump(db) } : state, { sql, columns, rows: total });
    databases.delete(state);
    remember(next, db);
    return { result, state: next };
  } catch (error) {
    db.run('ROLLBACK TO shim_call');
    db.run('RELEASE shim_call');
    return shimError(state, 'invalid', `SQL error: ${(error as Error).message}`);
  } finally {
    statement.free();
  }
}

export default defineShim<SqlState>({
  name: 'sql',
  // An agent's SQL can run for a long time (a cross join): each call runs in a worker under the shim budget.
  module: import.meta.url,
  description: 'A relational database (SQLite): run SQL queries, list tables, describe a table. Read-only unless the scenario allows writes.',
  initialStateSchema: {
    type: 'object',
    required: ['schema'],
    properties: {
      schema: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', maxLength: 10000 } },
      rows: { type: 'object', additionalProperties: { type: 'array', items: { type: 'object' } } },
      read_only: { type: 'boolean' },
    },
    additionalProperties: false,
  },
  actions: [
    { name: 'query', description: 'Run one SQL statement (SQLite dialect) with optional positional parameters (?); returns columns and rows.', parameters: { type: 'object', required: ['sql'], properties: { sql: { type: 'string', minLength: 1, maxLength: 20000 }, params: { type: 'array', maxItems: 100, items: { type: ['string', 'number', 'boolean', 'null'] } } }, additionalProperties: false } },
    { name: 'list_tables', description: 'The tables and their row counts.', readOnly: true, parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'describe_table', description: 'The columns of a table with their declared types.', readOnly: true, parameters: { type: 'object', required: ['table'], properties: { table: { type: 'string', minLength: 1, maxLength: 128 } }, additionalProperties: false } },
  ],
  async initialState(seed) {
    const given = seed as { schema: string[]; rows?: Record<string, Array<Record<string, SqlValue>>>; read_only?: boolean };
    const SQL = await sqlEngine();
    const db = new SQL.Database();
    try {
      for (const statement of given.schema) {
        if (!SCHEMA_STATEMENT.test(statement) || RECURSIVE.test(statement)) throw new Error(`schema statements must be CREATE TABLE, CREATE INDEX or CREATE VIEW without recursive queries: ${statement.slice(0, 80)}`);
        db.run(statement);
      }
      let count = 0;
      for (const [table, rows] of Object.entries(given.rows ?? {})) {
        count += rows.length;
        if (count > MAX_ROWS) throw new Error(`initial_state.sql holds more than ${MAX_ROWS} rows`);
        // Consecutive rows with the same columns go in one INSERT (one crossing into WebAssembly, not one a row).
        for (let start = 0; start < rows.length;) {
          const columns = Object.keys(rows[start]);
          const signature = columns.join('\u0000');
          const limit = Math.max(1, Math.floor(MAX_BOUND_PARAMETERS / Math.max(columns.length, 1)));
          let end = start + 1;
          while (end < rows.length && end - start < limit && Object.keys(rows[end]).join('\u0000') === signature) end++;
          const batch = rows.slice(start, end);
          const tuple = `(${columns.map(() => '?').join(', ')})`;
          db.run(
            `INSERT INTO "${table.replace(/"/g, '""')}" (${columns.map((column) => `"${column.replace(/"/g, '""')}"`).join(', ')}) VALUES ${batch.map(() => tuple).join(', ')}`,
            batch.flatMap((row) => columns.map((column) => (typeof row[column] === 'boolean' ? Number(row[column]) : row[column]))),
          );
          start = end;
        }
      }
      return { ...dump(db), read_only: given.read_only ?? true, queries: [] };
    } finally {
      db.close();
    }
  },
  async call(action, params, state): Promise<ShimOutcome<SqlState>> {
    if (action === 'query') return query(state, params.sql as string, ((params.params as Array<string | number | boolean | null>) ?? []).map((value) => (typeof value === 'boolean' ? Number(value) : value)));
    if (action === 'list_tables') return { result: { tables: Object.entries(state.tables).map(([name, table]) => ({ name, rows: table.rows.length })) }, state };
    if (action === 'describe_table') {
      const name = params.table as string;
      if (!Object.hasOwn(state.tables, name)) return shimError(state, 'not_found', `no table "${name}"`);
      const db = await databaseOf(state);
      const info = db.exec(`PRAGMA table_info("${name.replace(/"/g, '""')}")`)[0];
      return { result: { table: name, columns: (info?.values ?? []).map((row) => ({ name: row[1] as string, type: row[2] as string, not_null: row[3] === 1, primary_key: row[5] !== 0 })) }, state };
    }
    return shimError(state, 'invalid', `unknown action "${action}"`);
  },
  view(state) {
    return {
      tables: Object.fromEntries(Object.entries(state.tables).map(([name, table]) => [name, table.rows.map((row) => Object.fromEntries(table.columns.map((column, index) => [column, row[index]])))])),
      queries: state.queries,
    };
  },
});
