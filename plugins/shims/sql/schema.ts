/**
 * Building a SQL world from a scenario's `initial_state.sql`: its schema statements, then its rows. What a
 * schema statement is, is SQLite's answer, not its text's: each is compiled first (program.ts refuses
 * transactions, PRAGMA, ATTACH, VACUUM and virtual tables), then run, and SQLite's catalog must show that it
 * created tables, indexes or views and nothing else (no trigger, nothing temporary, nothing dropped or
 * altered). A schema may compute a table (`CREATE TABLE … AS SELECT`, with a recursive query if it likes): the
 * build runs in a worker under the shim budget (`AEH_SHIM_BUDGET_MS`), so a query that never ends costs a
 * worker that budget, never the service (core/domain/shim-run.ts).
 */
import type { SqlValue } from 'sql.js';
import { dump, MAX_BOUND_PARAMETERS, openWorldDatabase, quoted, worldRows, type SqlState, type WorldDatabase } from './database.ts';
import { explainLimit, MAX_ROWS } from './limits.ts';
import { compile } from './program.ts';
import { forgetCatalog } from './catalog.ts';

/** What a schema statement may leave behind in SQLite's catalog. */
const SCHEMA_TYPES = new Set(['table', 'index', 'view']);

/** The scenario's `initial_state.sql`. */
export interface SqlSeed {
  schema: string[];
  rows?: Record<string, Array<Record<string, SqlValue | boolean>>>;
  read_only?: boolean;
  seed?: number;
}

function catalogRows(world: WorldDatabase): string[] {
  const listed = world.db.exec("SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema UNION ALL SELECT 'temp ' || name FROM sqlite_temp_schema");
  return (listed[0]?.values ?? []).map((row) => String(row[0]));
}

/** Runs one schema statement, refusing what is not the creation of tables, indexes or views. */
function runSchemaStatement(world: WorldDatabase, sql: string, now: string, seed: number, position: number): void {
  const program = compile(world.db, sql);
  const refuse = (why: string) => new Error(`schema statements must create tables, indexes or views (${why}): ${sql.trim().slice(0, 80)}`);
  if (program.refusal) throw refuse(program.refusal);
  const before = new Set(catalogRows(world));
  world.beginStatement(now, seed, position);
  world.db.run(sql);
  forgetCatalog(world.db);
  const after = catalogRows(world);
  const added = after.filter((row) => !before.has(row));
  if (added.length === 0 || after.length - added.length !== before.size) throw refuse('it created nothing, or changed what was there');
  for (const row of added) {
    const type = row.slice(0, row.indexOf(' '));
    if (!SCHEMA_TYPES.has(type)) throw refuse(type === 'temp' ? 'a temporary object' : `a ${type}`);
  }
}

/** Inserts a table's rows: consecutive rows with the same columns in one INSERT (one crossing into WebAssembly). */
function insertRows(world: WorldDatabase, table: string, rows: Array<Record<string, SqlValue | boolean>>): void {
  for (let start = 0; start < rows.length;) {
    const columns = Object.keys(rows[start]!);
    const signature = columns.join('\u0000');
    const limit = Math.max(1, Math.floor(MAX_BOUND_PARAMETERS / Math.max(columns.length, 1)));
    let end = start + 1;
    while (end < rows.length && end - start < limit && Object.keys(rows[end]!).join('\u0000') === signature) end++;
    const batch = rows.slice(start, end);
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    world.db.run(
      `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES ${batch.map(() => tuple).join(', ')}`,
      batch.flatMap((row) => columns.map((column) => (typeof row[column] === 'boolean' ? Number(row[column]) : row[column] as SqlValue))),
    );
    start = end;
  }
}

/** The world's state from the scenario's seed; throws naming what SQLite or the limits refused. */
export async function buildSqlState(given: SqlSeed, now: string): Promise<SqlState> {
  const world = await openWorldDatabase();
  const seed = given.seed ?? 0;
  try {
    let position = 0;
    for (const entry of given.schema) {
      // One entry may hold several statements; each is judged on its own.
      for (const statement of world.db.iterateStatements(entry)) {
        const sql = statement.getSQL();
        statement.free();
        runSchemaStatement(world, sql, now, seed, position++);
      }
    }
    let count = 0;
    for (const [table, rows] of Object.entries(given.rows ?? {})) {
      count += rows.length;
      if (count > MAX_ROWS) throw new Error(`initial_state.sql holds more than ${MAX_ROWS} rows`);
      insertRows(world, table, rows);
    }
    // Counted before the rows are read out: a schema that computes a table could make millions.
    const total = worldRows(world.db);
    if (total > MAX_ROWS) throw new Error(`initial_state.sql makes more than ${MAX_ROWS} rows (its schema computes ${total - count})`);
    return { ...dump(world.db), read_only: given.read_only ?? true, seed, queries: [] };
  } catch (error) {
    throw new Error(explainLimit((error as Error)?.message ?? String(error)));
  } finally {
    world.db.close();
  }
}
