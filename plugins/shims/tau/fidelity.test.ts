/**
 * τ-bench fidelity without Python, on every CI run: every base-split task's gold actions, replayed through our
 * shims on the database shipped in catalog/data/tau-bench (or `AEH_TAU_DATA_DIR`'s), must end in the database
 * whose hash the reference implementation's own tools produced (fidelity.fixture.json, recorded by
 * bench/tau/fidelity.mjs --write-fixture). Skips, saying why, only when a directory given by `AEH_TAU_DATA_DIR`
 * holds another release.
 *
 * Telecom (the agent's side, `tau_telecom`): each base task from the database its initialization actions on the
 * agent's side make, then its gold actions whose requestor is the assistant, every action's outcome compared too
 * (what the agent is shown, or the refusal's message); and the probes of every tool (bench/tau/probes.mjs), alike.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dbHash, initializeTelecomDb, readTauDb, readTauJson, tauAirlineShim, tauRetailShim, tauTelecomShim, type TauDomain, type TelecomDb } from './index.ts';
import { replayGold } from './replay.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dir = process.env.AEH_TAU_DATA_DIR ? resolve(process.env.AEH_TAU_DATA_DIR) : resolve(repoRoot, 'catalog', 'data', 'tau-bench', 'domains');
type Recorded = Record<string, { hash: string; actions: string[] }>;
const fixture = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fidelity.fixture.json'), 'utf8')) as Record<'retail' | 'airline', { split: string; initial_db_sha256: string; tasks: Record<string, string> }>
  & { telecom: { initial_db_sha256: string; tasks: Recorded }; telecom_probes: Recorded };
const files = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };

for (const domain of ['retail', 'airline'] as const) {
  const present = existsSync(join(dir, domain, 'tasks.json')) || existsSync(join(dir, domain, 'tasks.json.gz'));
  if (!present) console.warn(`τ-bench ${domain} fidelity skipped: ${join(dir, domain)} holds no tasks.json (AEH_TAU_DATA_DIR)`);
  describe.skipIf(!present)(`τ-bench ${domain}: the recorded fidelity hashes`, () => {
    it(`every ${fixture[domain].split}-split task's gold actions end in the database the reference's tools produced`, async (context) => {
      const db = await readTauDb({ dir, files }, domain);
      const initial = dbHash(db);
      if (initial !== fixture[domain].initial_db_sha256) {
        console.warn(`τ-bench ${domain} fidelity skipped: ${dir}/${domain} holds another database (sha256 ${initial}) than the one recorded (${fixture[domain].initial_db_sha256})`);
        context.skip();
      }
      const shim = domain === 'retail' ? tauRetailShim() : tauAirlineShim();
      const tasks = await readTauJson({ dir, files }, domain, 'tasks.json') as Array<{ id: string; evaluation_criteria?: { actions?: Array<{ name: string; arguments: Record<string, unknown> }> } }>;
      const byId = new Map(tasks.map((task) => [task.id, task]));
      const found: Record<string, string> = {};
      for (const id of Object.keys(fixture[domain].tasks)) {
        found[id] = dbHash((await replayGold(shim as never, db, byId.get(id)?.evaluation_criteria?.actions ?? [])).db);
      }
      expect(found).toEqual(fixture[domain].tasks);
    }, 120_000);
  });
}

type TelecomTask = { id: string; initial_state?: { initialization_actions?: Array<{ env_type: string; func_name: string; arguments: Record<string, unknown> }> }; evaluation_criteria?: { actions?: Array<{ name: string; requestor?: string; arguments: Record<string, unknown> }> } };

/** Our replay's outcomes in the reference's words: `ok <canonical JSON>`, or `error: <message>`. */
const inReferenceWords = (outcome: string, theirs: string) => {
  if (outcome.startsWith('ok')) return outcome;
  // A name that is no tool is refused by the world before the shim (τ-bench: "Tool '…' not found.").
  if (outcome.startsWith('invalid: no action ') && /^error: Tool '.*' not found\.$/.test(theirs)) return theirs;
  return `error: ${outcome.slice(outcome.indexOf(': ') + 2)}`;
};

async function replayTelecom(db: TelecomDb, tasks: TelecomTask[]): Promise<Recorded> {
  const shim = tauTelecomShim();
  const found: Recorded = {};
  for (const task of tasks) {
    const start = initializeTelecomDb(db, task.initial_state?.initialization_actions ?? []);
    const gold = (task.evaluation_criteria?.actions ?? []).filter((action) => (action.requestor ?? 'assistant') === 'assistant');
    const replay = await replayGold(shim as never, start, gold, { results: true });
    found[task.id] = { hash: dbHash(replay.db), actions: replay.actions };
  }
  return found;
}

const telecomPresent = existsSync(join(dir, 'telecom', 'db.json.gz')) || existsSync(join(dir, 'telecom', 'db.json'));
describe.skipIf(!telecomPresent)('τ-bench telecom (the agent\'s side): the recorded fidelity results', () => {
  const load = async (context: { skip(): void }) => {
    const db = await readTauDb({ dir, files }, 'telecom') as TelecomDb;
    if (dbHash(db) !== fixture.telecom.initial_db_sha256) {
      console.warn(`τ-bench telecom fidelity skipped: ${dir}/telecom holds another database than the one recorded`);
      context.skip();
    }
    return db;
  };
  const compare = (found: Recorded, recorded: Recorded) => {
    for (const [id, entry] of Object.entries(found)) found[id] = { hash: entry.hash, actions: entry.actions.map((outcome, index) => inReferenceWords(outcome, recorded[id]?.actions[index] ?? '')) };
    expect(found).toEqual(recorded);
  };

  it('every base task ends in the database, and each assistant action in the outcome, the reference\'s tools produced', async (context) => {
    const db = await load(context);
    const tasks = await readTauJson({ dir, files }, 'telecom', 'tasks.json') as TelecomTask[];
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const found = await replayTelecom(db, Object.keys(fixture.telecom.tasks).map((id) => byId.get(id) ?? { id }));
    compare(found, fixture.telecom.tasks);
  }, 60_000);

  it('the probes of every tool, refusals included, answer as the reference\'s tools did', async (context) => {
    const db = await load(context);
    const { telecomProbes } = await import(pathToFileURL(join(repoRoot, 'bench', 'tau', 'probes.mjs')).href) as { telecomProbes: (db: TelecomDb) => TelecomTask[] };
    compare(await replayTelecom(db, telecomProbes(db)), fixture.telecom_probes);
  }, 60_000);
});
