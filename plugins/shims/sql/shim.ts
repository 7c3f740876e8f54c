/**
 * `sql`: a relational database that executes real SQL, on SQLite compiled to WebAssembly (sql.js), so it runs the
 * same on Node, Deno, Bun and workerd. The scenario gives the schema (`CREATE TABLE …` statements) and rows; the
 * agent runs one statement per call. With `read_only` (the default) any statement that writes is refused
 * (`permission_denied`). Each query's text, result columns and the table columns it read are logged in the
 * state, so a scenario can assert that the agent never read a column it should not (an alias, a view, a
 * subquery or `*` does not hide a read: program.ts). A failed call leaves the state as it was, like every shim's.
 *
 * SQLite decides what a statement is: its compiled program (EXPLAIN), never its text, classifies it.
 * Determinism: the state is the tables' rows (plain JSON); a database is built from it when a call needs one
 * and kept for the next call on the same state. `random()` and the clock read the world's seed and clock
 * (world-functions.ts), so a replay reaches the same states.
 */
import type { SqlValue } from 'sql.js';
import { defineShim, shimError, type ShimOutcome } from '../../../core/shim.ts';
import { databaseOf, quoted, sqlEngine, type SqlState } from './database.ts';
import { query } from './query.ts';
import { buildSqlState, type SqlSeed } from './schema.ts';
import { sqlDeclaration } from './declaration.ts';

export { sqlEngine, type SqlState };

/** Loads SQLite's WebAssembly: a worker that preloads this module does it before a job's budget starts. */
export function warmUp(): Promise<unknown> {
  return sqlEngine();
}

export default defineShim<SqlState>({
  ...sqlDeclaration,
  initialState(seed, context) {
    return buildSqlState(seed as SqlSeed, context.now);
  },
  async call(action, params, state, context): Promise<ShimOutcome<SqlState>> {
    if (action === 'query') return query(state, params.sql as string, ((params.params as Array<string | number | boolean | null>) ?? []).map((value): SqlValue => (typeof value === 'boolean' ? Number(value) : value)), context);
    if (action === 'list_tables') return { result: { tables: Object.entries(state.tables).map(([name, table]) => ({ name, rows: table.rows.length })) }, state };
    if (action === 'describe_table') {
      const name = params.table as string;
      if (!Object.hasOwn(state.tables, name)) return shimError(state, 'not_found', `no table "${name}"`);
      const { db } = await databaseOf(state);
      const info = db.exec(`PRAGMA table_info(${quoted(name)})`)[0];
      return { result: { table: name, columns: (info?.values ?? []).map((row) => ({ name: row[1] as string, type: row[2] as string, not_null: row[3] === 1, primary_key: row[5] !== 0 })) }, state };
    }
    return shimError(state, 'invalid', `unknown action "${action}"`);
  },
});
