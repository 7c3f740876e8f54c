/**
 * Issue 34 item 5, the data: τ²-bench's telecom tasks regenerated with the reference's own generator
 * (bench/tau/telecom-tasks.mjs runs tau2-bench a2c0247's create_tasks.py, seed 42), shipped in
 * catalog/data/tau-bench/domains/telecom since the release's tasks.json (over 4 MiB) was absent from the fetched
 * copy. What the release lets us check is checked here on every run, without Python: its tasks_small.json's 20
 * tasks are regenerated exactly, and the base split's 114 tasks are all there, in the split's order.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { BUNDLED_TAU_DIR } from '../cli/commands/bench.ts';

const read = (file: string) => JSON.parse(gunzipSync(readFileSync(join(BUNDLED_TAU_DIR, 'telecom', file))).toString());
const withoutNulls = (value: unknown) => JSON.parse(JSON.stringify(value, (_key, member) => (member === null ? undefined : member)));

interface TelecomTask { id: string; evaluation_criteria: { reward_basis: string[]; actions: Array<{ requestor: string; name: string }> | null } }

describe('τ-bench telecom tasks, regenerated (issue 34 item 5)', () => {
  const tasks = read('tasks.json.gz') as TelecomTask[];
  const splits = read('split_tasks.json.gz') as Record<string, string[]>;

  it("holds the base split's 114 tasks in its order, then the regenerated small tasks", () => {
    expect(splits.base).toHaveLength(114);
    expect(tasks.slice(0, 114).map((task) => task.id)).toEqual(splits.base);
    expect(new Set(tasks.map((task) => task.id)).size).toBe(tasks.length);
  });

  it("regenerates the release's tasks_small.json exactly (null members aside: the generator now also writes three, issues, required_documents and user_tools, the file predates)", () => {
    const small = read('tasks_small.json.gz') as TelecomTask[];
    expect(small).toHaveLength(20);
    const byId = new Map(tasks.map((task) => [task.id, task]));
    for (const task of small) expect(withoutNulls(byId.get(task.id))).toEqual(withoutNulls(task));
  });

  it('is judged on both sides: every base task by ENV_ASSERTION (20 with ACTION too), its gold actions the user\'s and the agent\'s', () => {
    const base = tasks.slice(0, 114);
    const bases = new Map<string, number>();
    for (const task of base) bases.set(task.evaluation_criteria.reward_basis.join('×'), (bases.get(task.evaluation_criteria.reward_basis.join('×')) ?? 0) + 1);
    expect(Object.fromEntries(bases)).toEqual({ ENV_ASSERTION: 94, 'ENV_ASSERTION×ACTION': 20 });
    const actions = base.flatMap((task) => task.evaluation_criteria.actions ?? []);
    expect(actions.filter((action) => action.requestor === 'user')).toHaveLength(393);
    expect(actions.filter((action) => action.requestor === 'assistant')).toHaveLength(123);
  });
});
