import { describe, it, expect } from 'vitest';
import sql from './index.ts';

const NOW = '2026-11-24T08:30:00.000Z';
const context = { config: {}, now: NOW };
const seedOf = (seed?: number) => ({ schema: ['CREATE TABLE t (a INTEGER)'], rows: { t: [{ a: 1 }] }, ...(seed === undefined ? {} : { seed }) });

async function answer(statement: string, state?: Awaited<ReturnType<typeof sql.initialState>>) {
  const outcome = await sql.call('query', { sql: statement }, state ?? (await sql.initialState(seedOf(), context)), context);
  if ('error' in outcome) throw new Error(outcome.error.message);
  return outcome as { result: { rows: unknown[][] }; state: Awaited<ReturnType<typeof sql.initialState>> };
}

describe('shim: sql, the world\'s clock and chance (issue 25 item 8)', () => {
  it('answers the date and time functions, in any spelling, from the world\'s clock', async () => {
    const { result } = await answer("SELECT date('now'), date(), DATE('NOW', '+1 day'), time('now'), datetime('now', 'start of month'), strftime('%Y-%m-%d %H:%M', 'now'), strftime('%s'), unixepoch(), julianday('now') - julianday('2026-11-24 08:30:00')");
    expect(result.rows[0]).toEqual(['2026-11-24', '2026-11-24', '2026-11-25', '08:30:00', '2026-11-01 00:00:00', '2026-11-24 08:30', '1795509000', 1795509000, 0]);
    const keywords = await answer('SELECT CURRENT_TIMESTAMP, CURRENT_DATE, current_time');
    expect(keywords.result.rows[0]).toEqual(['2026-11-24 08:30:00', '2026-11-24', '08:30:00']);
    // Dates that are not 'now' keep SQLite's arithmetic.
    expect((await answer("SELECT date('2024-02-28', '+1 day'), datetime(1700000000, 'unixepoch')")).result.rows[0]).toEqual(['2024-02-29', '2023-11-14 22:13:20']);
  });

  it('draws random() and randomblob() from the world\'s seed: the same on every replay, cached or rebuilt', async () => {
    const state = await sql.initialState(seedOf(7), context);
    const first = await answer('SELECT random(), random(), hex(randomblob(8))', state);
    // A fresh copy of the state rebuilds its database (a worker's lot); the answer must not change.
    const replayed = await answer('SELECT random(), random(), hex(randomblob(8))', structuredClone(state));
    expect(replayed.result.rows).toEqual(first.result.rows);
    const [a, b, blob] = first.result.rows[0] as [number, number, string];
    expect(Number.isSafeInteger(a) && Number.isSafeInteger(b) && a !== b).toBe(true);
    expect(blob).toMatch(/^[0-9A-F]{16}$/);
    // The next statement of the world draws the next numbers; another seed draws others.
    expect((await answer('SELECT random()', first.state)).result.rows[0]![0]).not.toBe(a);
    const other = await answer('SELECT random()', await sql.initialState(seedOf(8), context));
    expect(other.result.rows[0]![0]).not.toBe(a);
  });

  it('builds a schema that computes with chance and the clock the same way every time', async () => {
    const seed = { schema: ["CREATE TABLE draws AS WITH c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n, random() AS r, date('now') AS d FROM c"], seed: 3 };
    const first = await sql.initialState(seed, context);
    const second = await sql.initialState(structuredClone(seed), context);
    expect(second.tables).toEqual(first.tables);
    expect(first.tables.draws!.rows.map((row) => row[2])).toEqual(Array(5).fill('2026-11-24'));
  });

  it('refuses a randomblob() larger than a mebibyte', async () => {
    const outcome = await sql.call('query', { sql: 'SELECT length(randomblob(2000000))' }, await sql.initialState(seedOf(), context), context);
    expect('error' in outcome && outcome.error.message).toMatch(/randomblob\(\) is limited/);
  });
});
