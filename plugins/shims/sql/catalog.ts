/**
 * What each b-tree of a database holds, read from SQLite's own catalog: for every table and index, by the
 * position of a cell in its records, the table columns that cell reveals. A compiled statement reads cells
 * (`Column P1 P2`: cursor P1, cell P2) of b-trees it opened by root page (`OpenRead P1 P2 P3`: root P2 of
 * database P3); this map turns those reads into `table.column` names (program.ts).
 *
 * - A rowid table stores its columns in order, virtual generated columns last (SQLite's
 *   `sqlite3TableColumnToStorage`); an `INTEGER PRIMARY KEY` is the rowid, read with `Rowid`, not `Column`.
 * - A table without rowid stores its primary key first: the order of its primary-key index (`index_xinfo`).
 * - An index stores its key columns, then the rowid; a cell that is an expression reveals the columns the
 *   expression reads, which SQLite's program for rebuilding the index (`EXPLAIN REINDEX`) names.
 */
import type { Database, SqlValue } from 'sql.js';
import { quoted } from './database.ts';

/** One b-tree: its table, what each cell reveals, what its rowid is, and which cells are its key. */
export interface Btree {
  table: string;
  cells: string[][];
  rowid: string[];
  /** Key cells, in order (an index's key columns; a table's rowid or primary key). */
  key: number;
}

/** B-trees by `<database index>:<root page>` (0 main, 1 temp). */
export type Catalog = Map<string, Btree>;

const SCHEMAS = ['main', 'temp'] as const;
/** The catalog table itself, root page 1 of each database. */
const SCHEMA_TABLE_COLUMNS = ['type', 'name', 'tbl_name', 'rootpage', 'sql'];

function rows(db: Database, sql: string): SqlValue[][] {
  return db.exec(sql)[0]?.values ?? [];
}

interface TableShape {
  /** Column names by declaration order. */
  columns: string[];
  btree: Btree;
}

function tableShape(db: Database, schema: string, table: string): TableShape {
  // cid, name, type, notnull, dflt_value, pk, hidden (2: virtual generated, 3: stored generated)
  const info = rows(db, `PRAGMA ${schema}.table_xinfo(${quoted(table)})`);
  const columns = info.map((row) => String(row[1]));
  const qualified = (names: string[]) => names.map((name) => `${table}.${name}`);
  const keyColumns = info.filter((row) => Number(row[5]) > 0).sort((a, b) => Number(a[5]) - Number(b[5]));
  const [list] = rows(db, `SELECT wr FROM pragma_table_list WHERE schema = '${schema}' AND name = '${table.replace(/'/g, "''")}'`);
  if (list && Number(list[0]) === 1) {
    const pk = rows(db, `SELECT name FROM pragma_index_list(${sqlText(table)}, ${sqlText(schema)}) WHERE origin = 'pk'`)[0]?.[0];
    const order = pk ? rows(db, `PRAGMA ${schema}.index_xinfo(${quoted(String(pk))})`) : [];
    return { columns, btree: { table, cells: order.map((row) => qualified([columns[Number(row[1])] ?? '?'])), rowid: [], key: keyColumns.length } };
  }
  const stored = info.filter((row) => Number(row[6]) !== 2).concat(info.filter((row) => Number(row[6]) === 2));
  const integerKey = keyColumns.length === 1 && String(keyColumns[0]![2]).toUpperCase() === 'INTEGER' ? String(keyColumns[0]![1]) : undefined;
  return { columns, btree: { table, cells: stored.map((row) => qualified([String(row[1])])), rowid: qualified([integerKey ?? 'rowid']), key: 0 } };
}

function sqlText(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The table columns an expression index's expressions read, from the program that rebuilds it. */
function expressionColumns(db: Database, schema: string, index: string, shape: TableShape): string[] {
  const program = rows(db, `EXPLAIN REINDEX ${schema}.${quoted(index)}`);
  const tableCursors = new Set<number>();
  const read = new Set<string>();
  for (const [, opcode, p1, p2] of program) {
    if (opcode === 'OpenRead') tableCursors.add(Number(p1));
    // The first OpenRead is the table's; the index is written through OpenWrite.
    else if (opcode === 'Column' && tableCursors.has(Number(p1))) for (const name of shape.btree.cells[Number(p2)] ?? []) read.add(name);
  }
  return [...read];
}

function indexBtree(db: Database, schema: string, index: string, shape: TableShape): Btree {
  // seqno, cid (-1 rowid, -2 expression), name, desc, coll, key
  const info = rows(db, `PRAGMA ${schema}.index_xinfo(${quoted(index)})`);
  const table = shape.btree.table;
  let expressions: string[] | undefined;
  const cells = info.map((row) => {
    const cid = Number(row[1]);
    if (cid === -1) return shape.btree.rowid;
    if (cid === -2) return (expressions ??= expressionColumns(db, schema, index, shape));
    return [`${table}.${shape.columns[cid] ?? '?'}`];
  });
  return { table, cells, rowid: shape.btree.rowid, key: info.filter((row) => Number(row[5]) === 1).length };
}

/** Every table and index of both databases, by root page. */
export function readCatalog(db: Database): Catalog {
  const catalog: Catalog = new Map();
  SCHEMAS.forEach((schema, databaseIndex) => {
    const schemaTable = databaseIndex === 0 ? 'sqlite_schema' : 'sqlite_temp_schema';
    catalog.set(`${databaseIndex}:1`, { table: schemaTable, cells: SCHEMA_TABLE_COLUMNS.map((name) => [`${schemaTable}.${name}`]), rowid: [`${schemaTable}.rowid`], key: 0 });
    const objects = rows(db, `SELECT type, name, tbl_name, rootpage FROM ${schema}.sqlite_schema WHERE rootpage > 0 ORDER BY type DESC`);
    const shapes = new Map<string, TableShape>();
    for (const [type, name, table, root] of objects) {
      if (type === 'table') {
        const shape = tableShape(db, schema, String(name));
        shapes.set(String(name), shape);
        catalog.set(`${databaseIndex}:${root}`, shape.btree);
      } else if (type === 'index') {
        const shape = shapes.get(String(table)) ?? tableShape(db, schema, String(table));
        catalog.set(`${databaseIndex}:${root}`, indexBtree(db, schema, String(name), shape));
      }
    }
  });
  return catalog;
}

const catalogs = new WeakMap<Database, Catalog>();

/**
 * The catalog of `db`, read once and kept until `forgetCatalog`: only a statement that writes can change a
 * schema, and the shim forgets the catalog after each one.
 */
export function catalogOf(db: Database): Catalog {
  let catalog = catalogs.get(db);
  if (!catalog) catalogs.set(db, (catalog = readCatalog(db)));
  return catalog;
}

/** Drops the kept catalog of `db` (a statement that writes ran on it). */
export function forgetCatalog(db: Database): void {
  catalogs.delete(db);
}
