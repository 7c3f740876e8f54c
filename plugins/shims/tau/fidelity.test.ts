/**
 * τ-bench fidelity without Python: every base-split task's gold actions, replayed through our shims on the
 * published database, must end in the database whose hash bench/tau/fidelity.mjs recorded when it found ours
 * identical to the reference implementation's (fidelity.fixture.json). Needs the τ-bench data, which is not in
 * the repository: `AEH_TAU_DATA_DIR`, else `../shared/tau-bench` beside it (docs/shims.md, "τ-bench domains").
 * Skips, saying why, when it is absent or holds another release.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dbHash, readTauDb, tauAirlineShim, tauRetailShim, type TauDomain } from './index.ts';
import { replayGold } from './replay.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dir = process.env.AEH_TAU_DATA_DIR ? resolve(process.env.AEH_TAU_DATA_DIR) : resolve(repoRoot, '..', 'shared', 'tau-bench');
const fixture = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fidelity.fixture.json'), 'utf8')) as Record<TauDomain, { split: string; initial_db_sha256: string; tasks: Record<string, string> }>;
const files = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };

for (const domain of ['retail', 'airline'] as const) {
  const present = existsSync(join(dir, domain, 'tasks.json'));
  if (!present) console.warn(`τ-bench ${domain} fidelity skipped: ${join(dir, domain)} is absent (set AEH_TAU_DATA_DIR or place ../shared/tau-bench beside the repository)`);
  describe.skipIf(!present)(`τ-bench ${domain}: the recorded fidelity hashes`, () => {
    it(`every ${fixture[domain].split}-split task's gold actions end in the database the reference's tools produced`, async (context) => {
      const db = await readTauDb({ dir, files }, domain);
      const initial = dbHash(db);
      if (initial !== fixture[domain].initial_db_sha256) {
        console.warn(`τ-bench ${domain} fidelity skipped: ${dir}/${domain} holds another database (sha256 ${initial}) than the one recorded (${fixture[domain].initial_db_sha256})`);
        context.skip();
      }
      const shim = domain === 'retail' ? tauRetailShim() : tauAirlineShim();
      const tasks = JSON.parse(readFileSync(join(dir, domain, 'tasks.json'), 'utf8')) as Array<{ id: string; evaluation_criteria?: { actions?: Array<{ name: string; arguments: Record<string, unknown> }> } }>;
      const byId = new Map(tasks.map((task) => [task.id, task]));
      const found: Record<string, string> = {};
      for (const id of Object.keys(fixture[domain].tasks)) {
        found[id] = dbHash((await replayGold(shim as never, db, byId.get(id)?.evaluation_criteria?.actions ?? [])).db);
      }
      expect(found).toEqual(fixture[domain].tasks);
    }, 120_000);
  });
}
