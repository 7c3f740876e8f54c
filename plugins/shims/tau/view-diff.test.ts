/**
 * The τ-bench shims' `viewDiff` (world.json's per-unit diffs from the states' arrays) must be exactly the diff of
 * their views, operation for operation and in order: on every base task's gold actions of retail and airline
 * (the shipped data), and on the shapes `put` never makes (duplicate ids, a reordered or shortened table,
 * integer-like ids, which a JavaScript object orders first).
 */
import { describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stateDiff } from '../../../core/domain/state-diff.ts';
import type { Json, Shim } from '../../../core/shim.ts';
import { readTauDb, readTauJson, tauAirlineShim, tauRetailShim } from './index.ts';
import { table, type JsonObject } from './shared.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dir = resolve(repoRoot, 'catalog', 'data', 'tau-bench', 'domains');
const files = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };
const context = { config: {}, now: '2024-05-15T15:00:00Z' };

/** The view diff both ways, the shim's own and the generic one (core/domain/state-diff.test.ts proves it applies): they must agree. */
async function bothDiffs(shim: Shim, before: Json, after: Json) {
  const [start, end] = [await shim.view!(before), await shim.view!(after)];
  const own = shim.viewDiff!(before, after);
  expect(own).toEqual(stateDiff(start, end));
  return own;
}

describe('τ-bench viewDiff', () => {
  for (const domain of ['retail', 'airline'] as const) {
    it(`equals the diff of the views after every ${domain} base task's gold actions`, async () => {
      const shim = (domain === 'retail' ? tauRetailShim() : tauAirlineShim()) as unknown as Shim;
      const initial = await shim.initialState(await readTauDb({ dir, files }, domain), context);
      const tasks = await readTauJson({ dir, files }, domain, 'tasks.json') as Array<{ id: string; evaluation_criteria?: { actions?: Array<{ name: string; arguments: Record<string, unknown> }> } }>;
      const base = new Set((await readTauJson({ dir, files }, domain, 'split_tasks.json') as { base: string[] }).base);
      let changed = 0;
      for (const task of tasks.filter((candidate) => base.has(candidate.id))) {
        let state = initial;
        for (const action of task.evaluation_criteria?.actions ?? []) state = (await shim.call(action.name, action.arguments, state, context)).state;
        if ((await bothDiffs(shim, initial, state)).length) changed++;
      }
      expect(changed).toBeGreaterThan(20);
    }, 120_000);
  }

  const keyed = table<JsonObject>('id');
  const diff = (before: JsonObject[], after: JsonObject[]) => {
    const operations: ReturnType<typeof stateDiff> = [];
    keyed.viewDiff(before, after, '/rows', operations);
    return operations;
  };
  const generic = (before: JsonObject[], after: JsonObject[]) => stateDiff({ rows: keyed.toKeyed(before) }, { rows: keyed.toKeyed(after) });

  it('orders integer-like ids as the keyed view does, and appends new ids after the changed ones', () => {
    const before = [{ id: 'b', v: 1 }, { id: '20', v: 1 }, { id: 'a', v: 1 }, { id: '3', v: 1 }];
    let after = keyed.put(before, { id: 'a', v: 2 });
    after = keyed.put(after, { id: '20', v: 2 });
    after = keyed.put(after, { id: '3', v: 2 });
    after = keyed.put(after, { id: 'z', v: 0 });
    after = keyed.put(after, { id: '7', v: 0 });
    expect(diff(before, after)).toEqual(generic(before, after));
    expect(diff(before, after).map((operation) => operation.path)).toEqual(['/rows/3/v', '/rows/20/v', '/rows/a/v', '/rows/7', '/rows/z']);
  });

  it('falls back to the views where put could not have made the table', () => {
    const before = [{ id: 'a', v: 1 }, { id: 'a', v: 2 }, { id: 'b', v: 1 }];
    const cases: JsonObject[][] = [
      [{ id: 'a', v: 9 }, { id: 'a', v: 2 }, { id: 'b', v: 1 }], // a duplicate id: the view shows the last
      [{ id: 'b', v: 1 }, { id: 'a', v: 2 }], // shorter
    ];
    for (const after of cases) expect(diff(before, after)).toEqual(generic(before, after));
    const unique = [{ id: 'a', v: 1 }, { id: 'b', v: 1 }];
    for (const after of [[{ id: 'b', v: 1 }, { id: 'a', v: 1 }], [{ id: 'a', v: 1 }, { id: 'b', v: 1 }, { id: 'a', v: 3 }]]) expect(diff(unique, after)).toEqual(generic(unique, after));
  });
});
