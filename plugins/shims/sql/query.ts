/**
 * The SQL shim's `query` action: one statement, classified and read by SQLite's compiled program
 * (program.ts) before it runs, then run inside a savepoint so that a refused or failed statement leaves the
 * world as it was. Whatever goes wrong inside the engine is the agent's refused call (`invalid`), never an
 * exception that would end the run.
 */
import type { SqlValue } from 'sql.js';
import { shimError, type Json, type ShimCallContext, type ShimOutcome } from '../../../core/shim.ts';
import { databaseOf, dump, forget, remember, toJson, type SqlState, type WorldDatabase } from './database.ts';
import { compile, type Program } from './program.ts';
import { forgetCatalog } from './catalog.ts';

/** Rows one result returns at most; the rest is counted and reported as truncated. */
const MAX_RESULT_ROWS = 500;

function sqlError(state: SqlState, error: unknown): ShimOutcome<SqlState> {
  return shimError(state, 'invalid', `SQL error: ${(error as Error)?.message ?? String(error)}`);
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

/** Steps a statement through its rows, keeping the first MAX_RESULT_ROWS. */
function rowsOf(world: WorldDatabase, sql: string, params: SqlValue[]): Pick<Ran, 'columns' | 'rows' | 'total'> {
  const statement = world.db.prepare(sql);
  try {
    statement.bind(params);
    const rows: Json[][] = [];
    let total = 0;
    while (statement.step()) {
      if (total++ < MAX_RESULT_ROWS) rows.push(statement.get().map(toJson));
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
  return { result: { columns: ran.columns, rows: ran.rows, row_count: ran.total, ...(ran.total > MAX_RESULT_ROWS ? { truncated: true } : {}) }, state: next };
}

/** Why a statement that ran must be undone, if it must. */
function undoReason(state: SqlState, world: WorldDatabase, ran: Ran): ShimOutcome<SqlState> | undefined {
  // Temporary objects live on the connection, not in the world: a rebuilt database would not have them.
  if (Number(world.db.exec('SELECT count(*) FROM sqlite_temp_schema')[0]!.values[0]![0]) > 0) return shimError(state, 'invalid', 'temporary tables are not available: the world is the main database');
  if (state.read_only && (ran.modified > 0 || ran.schemaChanged)) return shimError(state, 'permission_denied', 'this database is read-only for you: the statement would change data or schema');
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
      db.run('ROLLBACK TO shim_call');
      db.run('RELEASE shim_call');
      return sqlError(state, error);
    }
    // A changed schema changes what root pages hold (kept or rolled back, the catalog is read again).
    if (ran.schemaChanged) forgetCatalog(db);
    const undo = undoReason(state, world, ran);
    if (undo) db.run('ROLLBACK TO shim_call');
    db.run('RELEASE shim_call');
    if (undo) return undo;
    const changed = ran.modified > 0 || ran.schemaChanged;
    const result: Json = { columns: ran.columns, rows: ran.rows, row_count: ran.total, ...(ran.total > MAX_RESULT_ROWS ? { truncated: true } : {}), ...(changed ? { rows_modified: ran.modified } : {}) };
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
