import { describe, it, expect } from 'vitest';
import sql from './index.ts';

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
});
