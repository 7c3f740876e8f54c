/**
 * The world's chance and clock inside SQLite. `random()`, `randomblob()`, the date and time functions given
 * `'now'` (or no time at all) and `CURRENT_DATE`/`CURRENT_TIME`/`CURRENT_TIMESTAMP` read the wall clock and the
 * operating system's entropy in SQLite; here they are replaced, on every database the shim opens, by functions
 * of the same names that read the world instead: a sequence drawn from the world's `seed` and the number of
 * statements it has logged, and the run's clock (`ShimCallContext.now`). A replay of the run reaches the same
 * rows, whichever instance runs it and whether or not a database was cached.
 *
 * The date arithmetic stays SQLite's: a replaced date function calls the built-in one on a database of its own
 * (no replacements there) with `'now'` swapped for the world's clock. SQLite resolves `CURRENT_TIMESTAMP` as a
 * call of the function `current_timestamp`, so the keyword is covered too.
 */
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { createRng, deriveSeed } from '../../../core/domain/rng.ts';

/** What the functions read while one statement runs: set before each statement (`beginStatement`). */
export interface WorldSession {
  /** The world's clock, ISO 8601 (the run's creation time). */
  now: string;
  /** Next 32 random bits of the statement's sequence. */
  next(): number;
}

const TWO_POW_32 = 4294967296;
/** Largest `randomblob()` a statement may ask for: SQLite's own limit is a gigabyte. */
const MAX_RANDOM_BLOB = 1 << 20;

/** The date and time functions and where their time value is: after the format for `strftime`. */
const TIME_FUNCTIONS: ReadonlyArray<readonly [name: string, timeArguments: readonly number[]]> = [
  ['date', [0]], ['time', [0]], ['datetime', [0]], ['julianday', [0]], ['unixepoch', [0]], ['strftime', [1]], ['timediff', [0, 1]],
];

/** A session whose sequence is the `statement`-th of the world seeded `seed` (the service's one generator). */
export function worldSession(now: string, seed: number, statement: number): WorldSession {
  const rng = createRng(deriveSeed(seed, statement));
  return { now, next: () => rng.int(TWO_POW_32) };
}

/** A 64-bit-like integer SQLite can hold exactly as a double: 53 bits and a sign. */
function randomInteger(session: WorldSession): number {
  const high = session.next();
  const magnitude = (high & 0x1fffff) * 2 ** 32 + session.next();
  return high & 0x80000000 ? -magnitude : magnitude;
}

let clockDatabase: Database | undefined;

/** SQLite's own date functions, on a database with no replacements. */
function builtin(SQL: SqlJsStatic, name: string, args: SqlValue[]): SqlValue {
  clockDatabase ??= new SQL.Database();
  const [result] = clockDatabase.exec(`SELECT ${name}(${args.map(() => '?').join(', ')})`, args);
  return result?.values[0]?.[0] ?? null;
}

/** A function of any number of arguments (sql.js takes the arity from `length`; -1 is SQLite's "any"). */
function variadic(body: (...args: SqlValue[]) => SqlValue): (...args: SqlValue[]) => SqlValue {
  const fn = (...args: SqlValue[]) => body(...args);
  Object.defineProperty(fn, 'length', { value: -1 });
  return fn;
}

/**
 * Replaces the functions that read chance or the clock on `db` by the world's. `session()` is read at each
 * call, so one registration serves every statement the database runs.
 */
export function installWorldFunctions(SQL: SqlJsStatic, db: Database, session: () => WorldSession): void {
  db.create_function('random', () => randomInteger(session()));
  db.create_function('randomblob', (size) => {
    const bytes = Math.max(1, Math.floor(Number(size) || 0));
    if (bytes > MAX_RANDOM_BLOB) throw new Error(`randomblob() is limited to ${MAX_RANDOM_BLOB} bytes here`);
    const blob = new Uint8Array(bytes);
    const current = session();
    for (let index = 0; index < bytes; index += 4) {
      const word = current.next();
      for (let shift = 0; shift < 4 && index + shift < bytes; shift++) blob[index + shift] = (word >>> (shift * 8)) & 0xff;
    }
    return blob;
  });
  for (const [name, timeArguments] of TIME_FUNCTIONS) {
    db.create_function(name, variadic((...args) => {
      const given = [...args];
      const now = session().now;
      // SQLite reads a missing time value as 'now' (`date()`, `strftime('%s')`), and 'now' in any letter case.
      while (given.length <= timeArguments[0]!) given.push(now);
      for (const at of timeArguments) if (typeof given[at] === 'string' && (given[at] as string).toLowerCase() === 'now') given[at] = now;
      return builtin(SQL, name, given);
    }));
  }
  db.create_function('current_date', () => builtin(SQL, 'date', [session().now]));
  db.create_function('current_time', () => builtin(SQL, 'time', [session().now]));
  db.create_function('current_timestamp', () => builtin(SQL, 'datetime', [session().now]));
}
