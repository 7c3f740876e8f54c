/**
 * Hostile: an agent's SQL is judged by what SQLite compiles it to (issue 25 item 8). Text filters let
 * `/**\/ATTACH` and `/**\/PRAGMA` run, let `random()` and `date('now')` make worlds that never replay, and
 * `/**\/COMMIT` broke the call's savepoint so that the whole run failed as an agent error. Now each is the
 * agent's refused call, recorded as such, and chance and the clock are the world's.
 */
import { describe, it, expect } from 'vitest';
import { testApp } from '../helpers.ts';
import { evaluate } from '../evaluation-fixtures.ts';

const STATEMENTS = [
  '/**/COMMIT',
  '/**/BEGIN',
  "/**/ATTACH ':memory:' AS elsewhere",
  '/**/PRAGMA writable_schema = 1',
  'SELECT last_insert_rowid()',
  "SELECT random() AS r, random/**/() AS s, date('now') AS d, CURRENT_TIMESTAMP AS ts",
  "INSERT INTO notes (body) VALUES ('kept')",
];

const scenario = {
  id: 'sql-hostile-statements', title: 'Statements hidden behind comments', industry: 'Fintech', use_case: 'Reporting', tags: ['shims'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { q: { output: 'done', tool_calls: STATEMENTS.map((sql) => ({ name: 'sql.query', arguments: { sql } })) } } },
  topology: [],
  enabled_shims: ['sql'], initial_state: { sql: { schema: ['CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)'], read_only: false, seed: 42 } },
  tasks: [{ id: 'q', input: 'go', expected_outcome: [{ target: 'shim:sql', property: 'tables.notes', expected: 1, mode: 'count' }], metrics: [{ id: 'state_match' }] }],
};

describe('hostile: SQL statements are classified by SQLite, not by their text', () => {
  it('records transactions, ATTACH and PRAGMA behind comments as refused calls, and the run goes on', async () => {
    const t = await testApp();
    const { run, trace } = await evaluate(t, { scenario });
    expect(run.status).toBe('succeeded');
    expect(run.error).toBeUndefined();
    const calls = trace.filter((event: any) => event.type === 'tool_call').map((event: any) => event.data);
    expect(calls.map((call: any) => call.error?.code ?? 'ok')).toEqual(['invalid', 'invalid', 'invalid', 'invalid', 'invalid', 'ok', 'ok']);
    expect(calls.slice(0, 5).map((call: any) => call.error.message)).toEqual([
      expect.stringMatching(/transactions are not available/), expect.stringMatching(/transactions are not available/),
      expect.stringMatching(/ATTACH is not available/), expect.stringMatching(/PRAGMA is not available/), expect.stringMatching(/RETURNING/),
    ]);
    // The world's clock is the run's creation time; the world still took the insert after the refusals.
    const [, , date, timestamp] = calls[5].result.rows[0];
    expect(date).toBe(run.created_at.slice(0, 10));
    expect(timestamp).toBe(run.created_at.slice(0, 19).replace('T', ' '));
    expect(trace.filter((event: any) => event.type === 'metric_result').map((event: any) => event.data.score)).toEqual([1]);
  });

  it('draws random() from the world\'s seed: two runs of the scenario get the same numbers', async () => {
    const t = await testApp();
    const randoms = async () => {
      const { trace } = await evaluate(t, { scenario });
      return trace.filter((event: any) => event.type === 'tool_call')[5].data.result.rows[0].slice(0, 2);
    };
    const [first, second] = [await randoms(), await randoms()];
    expect(second).toEqual(first);
    expect(first[0]).not.toBe(first[1]);
  });
});
