/**
 * τ²-bench telecom with dual control, without Python, on every CI run: every base task's two worlds (the
 * carrier's `tau_telecom` and the user's device `tau_telecom_user`) replayed through our shims (telecom-replay.ts:
 * the initialization actions of both sides, every gold action of either requestor, each followed by the worlds'
 * reconcile, the env assertions by the shims' checks) must give what the reference's own `TelecomEnvironment` gave:
 * both worlds' hashes after the initialization and after the gold, every action's answer, every assertion's result
 * (fidelity-telecom.fixture.json, recorded by bench/tau/fidelity.mjs --domain telecom --write-fixture).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dbHash, readTauDb, readTauJson, replayTelecomTask, tauTelecomShim, tauTelecomUserShim, type TelecomDb } from './index.ts';
import type { TelecomTaskLike } from './telecom-replay.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dir = process.env.AEH_TAU_DATA_DIR ? resolve(process.env.AEH_TAU_DATA_DIR) : resolve(repoRoot, 'catalog', 'data', 'tau-bench', 'domains');
const files = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };
type Hashes = { agent: string; user: string };
const fixture = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fidelity-telecom.fixture.json'), 'utf8')) as {
  initial: Hashes;
  tasks: Record<string, { init: Hashes; actions: string[]; live: Hashes; assertions: boolean[]; gold_env: Hashes }>;
};

const present = existsSync(join(dir, 'telecom', 'tasks.json.gz')) || existsSync(join(dir, 'telecom', 'tasks.json'));
describe.skipIf(!present)('τ-bench telecom, dual control: the recorded fidelity results', () => {
  it('every base task: both worlds after initialization and after the gold of either side, each answer, each env assertion, as the reference\'s environment', async (context) => {
    const db = await readTauDb({ dir, files }, 'telecom') as TelecomDb;
    if (dbHash(db) !== fixture.initial.agent) {
      console.warn(`τ-bench telecom dual-control fidelity skipped: ${dir}/telecom holds another database than the one recorded`);
      context.skip();
    }
    const agent = tauTelecomShim();
    const user = tauTelecomUserShim();
    const agentDb = await agent.initialState(db, { config: {}, now: '' });
    const tasks = await readTauJson({ dir, files }, 'telecom', 'tasks.json') as Array<TelecomTaskLike & { id: string }>;
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const ids = Object.keys(fixture.tasks);
    expect(ids).toHaveLength(114);
    const found: Record<string, unknown> = {};
    const recorded: Record<string, unknown> = {};
    for (const id of ids) {
      const replay = await replayTelecomTask(agent as never, user as never, agentDb, byId.get(id)!);
      found[id] = { init: replay.init, actions: replay.actions, live: replay.live, assertions: replay.assertions };
      const { gold_env: _gold, ...reference } = fixture.tasks[id];
      recorded[id] = reference;
    }
    expect(found).toEqual(recorded);
    // The device the release ships (user_db.toml) is the one recorded.
    expect(dbHash(await user.view!(await user.initialState(undefined, { config: {}, now: '' })))).toBe(fixture.initial.user);
  });
});
