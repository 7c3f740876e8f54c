/**
 * What the SQL shim declares before SQLite loads (index.ts registers it lazily; shim.ts is the shim itself, and
 * the module a worker imports): its name, schemas, actions and view, none of which needs sql.js.
 */
import type { Json } from '../../../core/shim.ts';
import type { LazyShimDeclaration } from '../../../core/domain/lazy-shim.ts';
import type { SqlState } from './database.ts';

/**
 * shim.ts, from the sources (.ts) or the build (.js): calls run in a worker that imports it (`Shim.module`).
 * Undefined where a module has no URL to resolve against (a bundle): there is no worker pool there either, and
 * calls run inline.
 */
function shimModule(): string | undefined {
  try {
    return new URL(`./shim.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;
  } catch {
    return undefined;
  }
}

/** The SQL shim without its behaviour. */
export const sqlDeclaration: Omit<LazyShimDeclaration<SqlState>, 'load'> = {
  name: 'sql',
  // An agent's SQL, and a scenario's schema, can run for a long time: both run in a worker under the shim budget.
  module: shimModule(),
  description: 'A relational database (SQLite): run SQL queries, list tables, describe a table. Read-only unless the scenario allows writes.',
  // The query log records reads too: a gold comparison judges the tables, while assertions may still read the log.
  incidental: ['/queries'],
  initialStateSchema: {
    type: 'object',
    required: ['schema'],
    properties: {
      schema: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', maxLength: 10000 } },
      rows: { type: 'object', additionalProperties: { type: 'array', items: { type: 'object' } } },
      read_only: { type: 'boolean' },
      seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
    },
    additionalProperties: false,
  },
  actions: [
    { name: 'query', description: 'Run one SQL statement (SQLite dialect) with optional positional parameters (?); returns columns and rows.', parameters: { type: 'object', required: ['sql'], properties: { sql: { type: 'string', minLength: 1, maxLength: 20000 }, params: { type: 'array', maxItems: 100, items: { type: ['string', 'number', 'boolean', 'null'] } } }, additionalProperties: false } },
    { name: 'list_tables', description: 'The tables and their row counts.', readOnly: true, parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'describe_table', description: 'The columns of a table with their declared types.', readOnly: true, parameters: { type: 'object', required: ['table'], properties: { table: { type: 'string', minLength: 1, maxLength: 128 } }, additionalProperties: false } },
  ],
  view(state): Json {
    return {
      tables: Object.fromEntries(Object.entries(state.tables).map(([name, table]) => [name, table.rows.map((row) => Object.fromEntries(table.columns.map((column, index) => [column, row[index]])))])),
      queries: state.queries,
    };
  },
};
