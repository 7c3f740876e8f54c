import { describe, it, expect } from 'vitest';
import sql from './index.ts';
import { MAX_RESULT_BYTES, MAX_ROWS, MAX_WORLD_BYTES } from './limits.ts';

const context = { config: {}, now: '2026-11-24T00:00:00.000Z' };
const CALLS = 4200;

describe('shim: sql, hostile use', () => {
  it('closes the databases it stops caching: 4,200 calls on fresh copies of a state (a worker\'s lot) keep working', async () => {
    // sql.js cannot open more than 4,093 databases at once (measured: the 4,094th open fails with "unable to open
    // database file"); each copy of a state gets its own. 4,200 calls go past that limit, as 5,000 did: more calls
    // would prove nothing new.
    const state = await sql.initialState({ schema: ['CREATE TABLE t (a INTEGER)'], rows: { t: [{ a: 1 }] } }, context);
    let answered = 0;
    for (let index = 0; index < CALLS; index++) {
      const outcome = await sql.call('query', { sql: 'SELECT a FROM t' }, structuredClone(state), context);
      if ('error' in outcome) throw new Error(`call ${index}: ${outcome.error.message}`);
      answered++;
    }
    expect(answered).toBe(CALLS);
    // What it pins is past sql.js's 4,093 open databases, not a speed: 8 s alone (5,000 calls), 38 s in the suite
    // on a loaded 2-core host (load average 10), past the default 30 s.
  }, 120_000);

  it('inserts a scenario\'s rows in batches of like rows, whatever their column order', async () => {
    const rows = [{ a: 1, b: 'x' }, { a: 2, b: 'y' }, { b: 'z', a: 3 }, { a: 4 }];
    const state = await sql.initialState({ schema: ['CREATE TABLE t (a INTEGER, b TEXT)'], rows: { t: rows } }, context);
    expect(state.tables.t.rows).toEqual([[1, 'x'], [2, 'y'], [3, 'z'], [4, null]]);
  });

  it('leaves no trace of a refused PRAGMA on the connection, though SQLite applies it when it compiles it', async () => {
    const state = await sql.initialState({ schema: ['CREATE TABLE t (a INTEGER)'], read_only: false }, context);
    for (const statement of ['/**/PRAGMA query_only = 1', 'SELECT 1; PRAGMA query_only = 1', 'PRAGMA query_only = 1; SELEKT']) {
      const refused = await sql.call('query', { sql: statement }, state, context);
      expect('error' in refused && refused.error.code, statement).toBe('invalid');
      // The same world, next call: a write must still be possible (query_only would refuse it).
      const written = await sql.call('query', { sql: 'INSERT INTO t VALUES (1)' }, state, context);
      expect('error' in written ? written.error.message : 'ok', statement).toBe('ok');
    }
  });

  it('bounds a world in bytes: a write past MAX_WORLD_BYTES is refused and leaves the world as it was', async () => {
    const state = await sql.initialState({ schema: ['CREATE TABLE t (a)'], rows: { t: [{ a: 1 }] }, read_only: false }, context);
    // One row of 200 MB took two minutes and 6 GB before it failed when only rows were counted; one just past the
    // bound proves the same, sooner.
    for (const statement of [`INSERT INTO t VALUES (zeroblob(${MAX_WORLD_BYTES + 65536}))`, 'INSERT INTO t SELECT zeroblob(1000000) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300) SELECT x FROM c)']) {
      const refused = await sql.call('query', { sql: statement }, state, context);
      expect('error' in refused && refused.error, statement).toMatchObject({ code: 'invalid', message: expect.stringMatching(/the world's database is limited to 16 MiB/) });
      const count = await sql.call('query', { sql: 'SELECT count(*) AS n FROM t' }, state, context);
      expect('result' in count && count.result, statement).toMatchObject({ rows: [[1]] });
    }
    // Just under the bound is a world like any other.
    const written = await sql.call('query', { sql: `INSERT INTO t VALUES (zeroblob(${MAX_WORLD_BYTES / 2}))` }, state, context);
    expect('result' in written && written.result).toMatchObject({ rows_modified: 1 });
  });

  it('bounds the memory of one statement: a computed gigabyte is refused, and the next call works', async () => {
    const state = await sql.initialState({ schema: ['CREATE TABLE t (a)'] }, context);
    for (const statement of ['SELECT length(hex(zeroblob(300000000)))', "SELECT length(printf('%.*c', 900000000, 'x'))"]) {
      const refused = await sql.call('query', { sql: statement }, state, context);
      expect('error' in refused && refused.error.message, statement).toMatch(/needs more memory than a world's call may use/);
      const next = await sql.call('query', { sql: 'SELECT 1' }, state, context);
      expect('result' in next && next.result, statement).toMatchObject({ rows: [[1]] });
    }
  });

  it('bounds a result in bytes as in rows: past MAX_RESULT_BYTES it is truncated and counted', async () => {
    const state = await sql.initialState({ schema: ['CREATE TABLE t (a)'], rows: { t: Array.from({ length: 40 }, (_, a) => ({ a })) } }, context);
    const outcome = await sql.call('query', { sql: 'SELECT a, hex(zeroblob(100000)) FROM t' }, state, context);
    if (!('result' in outcome)) throw new Error(outcome.error.message);
    const result = outcome.result as { rows: unknown[][]; row_count: number; truncated?: boolean };
    expect(result).toMatchObject({ row_count: 40, truncated: true });
    expect(result.rows.length).toBe(Math.floor(MAX_RESULT_BYTES / 200_010));
    expect(JSON.stringify(result.rows).length).toBeLessThanOrEqual(MAX_RESULT_BYTES);
  });

  it('bounds the rows a write may leave, as it bounds the seed\'s', async () => {
    const state = await sql.initialState({ schema: ['CREATE TABLE t (a)'], read_only: false }, context);
    const refused = await sql.call('query', { sql: `INSERT INTO t SELECT x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${MAX_ROWS + 1}) SELECT x FROM c)` }, state, context);
    expect('error' in refused && refused.error.message).toMatch(/limited to 20000 rows/);
    const count = await sql.call('query', { sql: 'SELECT count(*) FROM t' }, state, context);
    expect('result' in count && count.result).toMatchObject({ rows: [[0]] });
  });
});
