/**
 * τ-bench fidelity without Python, on every CI run: every base-split task's gold actions, replayed through our
 * shims on the database shipped in catalog/data/tau-bench (or `AEH_TAU_DATA_DIR`'s), must end in the database
 * whose hash the reference implementation's own tools produced (fidelity.fixture.json, recorded by
 * bench/tau/fidelity.mjs --write-fixture). Skips, saying why, only when a directory given by `AEH_TAU_DATA_DIR`
 * holds another release.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dbHash, readTauDb, readTauJson, tauAirlineShim, tauRetailShim, type TauDomain } from './index.ts';
import { replayGold } from './replay.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dir = process.env.AEH_TAU_DATA_DIR ? resolve(process.env.AEH_TAU_DATA_DIR) : resolve(repoRoot, 'catalog', 'data', 'tau-bench', 'domains');
const fixture = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fidelity.fixture.json'), 'utf8')) as Record<TauDomain, { split: string; initial_db_sha256: string; tasks: Record<string, string> }>;
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
