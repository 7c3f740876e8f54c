/**
 * What a statement is and what it reads, in SQLite's own terms: the bytecode SQLite compiles it to
 * (`EXPLAIN`), never its text. A comment, an alias, a view, a subquery or `*` changes the text, not the
 * program: ATTACH behind a comment still calls `sqlite_attach`, and `SELECT ssn AS b` still reads the `ssn` cell.
 *
 * - **Refused kinds.** Transactions (`AutoCommit`, `Savepoint`: each call is its own transaction), PRAGMA (the
 *   only statements SQLite marks run-once, `Expire 1 1`), ATTACH and DETACH (calls of `sqlite_attach` and
 *   `sqlite_detach`), VACUUM (`Vacuum`) and virtual tables (`VCreate`), whose shadow tables the world cannot
 *   hold. So are `changes()`, `total_changes()` and `last_insert_rowid()`: they answer from the connection's
 *   history, which differs between a cached database and a rebuilt one (use `RETURNING`).
 * - **Writes.** A statement writes when it opens a write transaction (`Transaction P2 ≥ 1`), what
 *   `sqlite3_stmt_readonly` reports.
 * - **Reads.** Each `Column` of a table or index cursor, each rowid read, and each key compared by an index
 *   seek is mapped to the table columns it reveals (catalog.ts); trigger programs, which EXPLAIN lists after
 *   the statement's own, count too. The program is read as compiled, so a column the statement could read is
 *   counted even when no row reached it.
 */
import type { Database, SqlValue } from 'sql.js';
import { catalogOf, type Btree, type Catalog } from './catalog.ts';

/** A statement as SQLite compiled it. */
export interface Program {
  /** Why the statement is refused, when it is. */
  refusal?: string;
  /** It opens a write transaction. */
  writes: boolean;
  /** It creates a virtual table. */
  createsVirtualTable: boolean;
  /** The table columns it reads, `table.column`, sorted. */
  read: string[];
}

const TRANSACTIONS = 'transactions are not available: each call is its own transaction';
/** Functions whose answers depend on what ran before on the connection, or that reach outside the world. */
const REFUSED_FUNCTIONS: Readonly<Record<string, string>> = {
  sqlite_attach: 'ATTACH is not available: the world is this one database',
  sqlite_detach: 'DETACH is not available: the world is this one database',
  changes: 'changes() is not available: it depends on earlier calls (use RETURNING)',
  total_changes: 'total_changes() is not available: it depends on earlier calls (use RETURNING)',
  last_insert_rowid: 'last_insert_rowid() is not available: it depends on earlier calls (use RETURNING)',
};
/** Opcodes comparing a key held in registers with an index's key: P4 is the number of key fields compared. */
const INDEX_COMPARES = new Set(['SeekGE', 'SeekGT', 'SeekLE', 'SeekLT', 'IdxGE', 'IdxGT', 'IdxLE', 'IdxLT', 'Found', 'NotFound', 'NoConflict', 'IdxDelete']);
/** Opcodes reading or comparing a rowid. */
const ROWID_READS = new Set(['Rowid', 'IdxRowid', 'SeekRowid', 'NotExists', 'DeferredSeek']);

interface Reader {
  catalog?: Catalog;
  db: Database;
  cursors: Map<number, Btree | undefined>;
  read: Set<string>;
}

function btreeAt(reader: Reader, root: SqlValue, database: SqlValue): Btree | undefined {
  reader.catalog ??= catalogOf(reader.db);
  return reader.catalog.get(`${Number(database)}:${Number(root)}`);
}

function addAll(reader: Reader, names: readonly string[] | undefined): void {
  for (const name of names ?? []) reader.read.add(name);
}

/** Records what one opcode of the program reads. */
function readOp(reader: Reader, opcode: string, p1: number, p2: SqlValue, p3: SqlValue, p4: SqlValue): void {
  if (opcode === 'OpenRead' || opcode === 'OpenWrite' || opcode === 'ReopenIdx') reader.cursors.set(p1, btreeAt(reader, p2, p3));
  else if (opcode === 'OpenDup') reader.cursors.set(p1, reader.cursors.get(Number(p2)));
  // Ephemeral tables, sorters and pseudo-tables hold what the program already read.
  else if (opcode.startsWith('Open') || opcode === 'SorterOpen') reader.cursors.delete(p1);
  else if (opcode === 'Column') addAll(reader, reader.cursors.get(p1)?.cells[Number(p2)]);
  else if (ROWID_READS.has(opcode)) addAll(reader, reader.cursors.get(p1)?.rowid);
  else if (INDEX_COMPARES.has(opcode)) {
    const btree = reader.cursors.get(p1);
    if (!btree) return;
    const fields = Number(p4) > 0 ? Number(p4) : btree.key || btree.cells.length;
    for (const cell of btree.cells.slice(0, fields)) addAll(reader, cell);
  }
}

/** The refusal an opcode means, if any. */
function refusalOf(opcode: string, p1: number, p2: SqlValue, p4: SqlValue): string | undefined {
  if (opcode === 'AutoCommit' || opcode === 'Savepoint') return TRANSACTIONS;
  if (opcode === 'Expire' && p1 === 1 && Number(p2) === 1) return 'PRAGMA is not available here';
  if (opcode === 'Vacuum') return 'VACUUM is not available here';
  if (opcode === 'Function' || opcode === 'PureFunc') {
    const name = String(p4 ?? '').slice(0, String(p4 ?? '').indexOf('('));
    return Object.hasOwn(REFUSED_FUNCTIONS, name) ? REFUSED_FUNCTIONS[name] : undefined;
  }
  return undefined;
}

/**
 * Compiles `sql` (one statement) with EXPLAIN and reads its program. Throws SQLite's error when the statement
 * does not compile; EXPLAIN itself cannot be explained, so an EXPLAIN statement is refused.
 */
export function compile(db: Database, sql: string): Program {
  let listing: SqlValue[][];
  try {
    listing = db.exec(`EXPLAIN ${sql}`)[0]?.values ?? [];
  } catch {
    // Either SQLite's own error for the statement (prepare throws it), or the statement is an EXPLAIN itself.
    db.prepare(sql).free();
    return { refusal: 'EXPLAIN is not available here', writes: false, createsVirtualTable: false, read: [] };
  }
  const reader: Reader = { db, cursors: new Map(), read: new Set() };
  let refusal: string | undefined;
  let writes = false;
  let createsVirtualTable = false;
  listing.forEach(([address, opcode, p1, p2, p3, p4], index) => {
    // Each trigger program listed after the statement's numbers its instructions, and its cursors, from 0.
    if (Number(address) === 0 && index > 0) reader.cursors.clear();
    const code = String(opcode);
    refusal ??= refusalOf(code, Number(p1), p2, p4);
    if (code === 'Transaction' && Number(p2) >= 1) writes = true;
    if (code === 'VCreate') createsVirtualTable = true;
    readOp(reader, code, Number(p1), p2, p3, p4);
  });
  if (createsVirtualTable) refusal ??= 'virtual tables are not available here';
  return { refusal, writes, createsVirtualTable, read: [...reader.read].sort() };
}
