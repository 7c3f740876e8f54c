/**
 * The SQL shim's `query` action: one statement, classified and read by SQLite's compiled program
 * (program.ts) before it runs, then run inside a savepoint so that a refused or failed statement leaves the
 * world as it was. Whatever goes wrong inside the engine is the agent's refused call (`invalid`), never an
 * exception that would end the run.
 */
import type { SqlValue } from 'sql.js';
import { shimError, type Json, type ShimCallContext, type ShimOutcome } from '../../../core/shim.ts';
import { databaseOf, dump, forget, remember, toJson, worldRows, type SqlState, type WorldDatabase } from './database.ts';
import { compile, type Program } from './program.ts';
import { forgetCatalog } from './catalog.ts';
import { explainLimit, isOutOfMemory, MAX_RESULT_BYTES, MAX_RESULT_ROWS, MAX_ROWS, rowBytes } from './limits.ts';

function sqlError(state: SqlState, error: unknown): ShimOutcome<SqlState> {
  // SQLite recovers from running out of memory, but a connection that did is not trusted with the next call.
  if (isOutOfMemory(error)) forget(state, true);
  return shimError(state, 'invalid', `SQL error: ${explainLimit((error as Error)?.message ?? String(error))}`);
}

/** The number of statements in `sql`, counted by SQLite's own parser (sql.js frees each as it moves on). */
function statementCount(world: WorldDatabase, sql: string): number {
  let count = 0;
  for (const _statement of world.db.iterateStatements(sql)) count++;
  return count;
}

interface Ran {
  columns: string[];
  rows: Json[][];
  total: number;
  modified: number;
  schemaChanged: boolean;
}

/** Steps a statement through its rows, keeping the first MAX_RESULT_ROWS within MAX_RESULT_BYTES. */
function rowsOf(world: WorldDatabase, sql: string, params: SqlValue[]): Pick<Ran, 'columns' | 'rows' | 'total'> {
  const statement = world.db.prepare(sql);
  try {
    statement.bind(params);
    const rows: Json[][] = [];
    let total = 0;
    let bytes = 0;
    let full = false;
    while (statement.step()) {
      total++;
      if (full || rows.length >= MAX_RESULT_ROWS) continue;
      const row = statement.get().map(toJson);
      bytes += rowBytes(row);
      if (bytes > MAX_RESULT_BYTES) full = true;
      else rows.push(row);
    }
    return { columns: statement.getColumnNames(), rows, total };
  } finally {
    statement.free();
  }
}

/** Runs a statement that writes inside the savepoint `shim_call`, which the caller releases or rolls back. */
function runWriting(world: WorldDatabase, sql: string, params: SqlValue[]): Ran {
  const { db } = world;
  const schemaNow = () => JSON.stringify(db.exec('SELECT sql FROM sqlite_schema ORDER BY rowid'));
  const totalChanges = () => Number(db.exec('SELECT total_changes()')[0]!.values[0]![0]);
  const schemaBefore = schemaNow();
  const changesBefore = totalChanges();
  const ran = rowsOf(world, sql, params);
  return { ...ran, modified: totalChanges() - changesBefore, schemaChanged: schemaNow() !== schemaBefore };
}

function logged(state: SqlState, sql: string, columns: string[], rows: number, program: Program): SqlState['queries'] {
  return [...state.queries, { sql, columns, rows, read: program.read }];
}

/** A statement that opens no write transaction cannot change the world: it runs without a savepoint. */
function read(state: SqlState, world: WorldDatabase, sql: string, params: SqlValue[], program: Program): ShimOutcome<SqlState> {
  let ran: Pick<Ran, 'columns' | 'rows' | 'total'>;
  try {
    ran = rowsOf(world, sql, params);
  } catch (error) {
    return sqlError(state, error);
  }
  const next: SqlState = { ...state, queries: logged(state, sql, ran.columns, ran.total, program) };
  forget(state);
  remember(next, world);
  return { result: { columns: ran.columns, rows: ran.rows, row_count: ran.total, ...(ran.total > ran.rows.length ? { truncated: true } : {}) }, state: next };
}

/** Why a statement that ran must be undone, if it must. */
function undoReason(state: SqlState, world: WorldDatabase, ran: Ran): ShimOutcome<SqlState> | undefined {
  // Temporary objects live on the connection, not in the world: a rebuilt database would not have them.
  if (Number(world.db.exec('SELECT count(*) FROM sqlite_temp_schema')[0]!.values[0]![0]) > 0) return shimError(state, 'invalid', 'temporary tables are not available: the world is the main database');
  if (state.read_only && (ran.modified > 0 || ran.schemaChanged)) return shimError(state, 'permission_denied', 'this database is read-only for you: the statement would change data or schema');
  // The rows a world may hold bound a write as they bound the scenario's seed (schema.ts): counted by SQLite, cheap
  // beside the dump of every table that follows a write.
  if (ran.modified > 0 && worldRows(world.db) > MAX_ROWS) return shimError(state, 'invalid', `the world is limited to ${MAX_ROWS} rows: the statement would leave more`);
  return undefined;
}

function refusalOf(state: SqlState, program: Program): ShimOutcome<SqlState> | undefined {
  if (state.read_only && program.writes) return shimError(state, 'permission_denied', 'this database is read-only for you: the statement writes');
  return undefined;
}

/** Runs one statement of an agent's against the world `state`. */
export async function query(state: SqlState, sql: string, params: SqlValue[], context: ShimCallContext): Promise<ShimOutcome<SqlState>> {
  const world = await databaseOf(state);
  let program: Program;
  // SQLite applies a PRAGMA's setting when it compiles it (`PRAGMA query_only = 1` needs no step), and counting
  // and classifying compile: a connection that compiled a refused statement is not used again.
  const dropped = (outcome: ShimOutcome<SqlState>) => {
    forget(state, true);
    return outcome;
  };
  try {
    const count = statementCount(world, sql);
    if (count !== 1) return dropped(shimError(state, 'invalid', `send exactly one SQL statement per call (got ${count})`));
    program = compile(world.db, sql);
  } catch (error) {
    return dropped(sqlError(state, error));
  }
  if (program.refusal) return dropped(shimError(state, 'invalid', program.refusal));
  const refused = refusalOf(state, program);
  if (refused) return refused;
  world.beginStatement(context.now, state.seed ?? 0, state.queries.length);
  if (!program.writes) return read(state, world, sql, params, program);
  const { db } = world;
  try {
    db.run('SAVEPOINT shim_call');
    let ran: Ran;
    try {
      ran = runWriting(world, sql, params);
    } catch (error) {
      try {
        db.run('ROLLBACK TO shim_call');
        db.run('RELEASE shim_call');
      } catch {
        // SQLite rolled the whole transaction back itself (it may on a full database or out of memory): the world
        // is `state` again, but the connection is not trusted with the next call.
        forget(state, true);
      }
      return sqlError(state, error);
    }
    // A changed schema changes what root pages hold (kept or rolled back, the catalog is read again).
    if (ran.schemaChanged) forgetCatalog(db);
    const undo = undoReason(state, world, ran);
    if (undo) db.run('ROLLBACK TO shim_call');
    db.run('RELEASE shim_call');
    if (undo) return undo;
    const changed = ran.modified > 0 || ran.schemaChanged;
    const result: Json = { columns: ran.columns, rows: ran.rows, row_count: ran.total, ...(ran.total > ran.rows.length ? { truncated: true } : {}), ...(changed ? { rows_modified: ran.modified } : {}) };
    const base = changed ? { ...state, ...dump(db) } : state;
    const next: SqlState = { ...base, queries: logged(state, sql, ran.columns, ran.total, program) };
    forget(state);
    remember(next, world);
    return { result, state: next };
  } catch (error) {
    // The savepoint itself is gone or broken: this database no longer matches any state, so it is not reused.
    forget(state, true);
    return sqlError(state, error);
  }
}
