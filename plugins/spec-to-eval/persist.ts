/**
 * `persist: true`: the stubs are written under `PROJECT_ROOT/scenarios/` so they can be evaluated by path
 * (`POST /api/evaluate {"path": "scenarios/<id>.json"}`).
 *
 * Naming: `<scenario id>.json`; an existing file is never overwritten: the next free name `<id>-2.json`,
 * `<id>-3.json`… is used and the stub's `id` is renamed to match its file. Names are claimed in the store
 * (`setIfAbsent`) first, so concurrent requests to the same service (or instances sharing a Redis store) do
 * not pick the same name. Writes are atomic (temp file, then rename) through `capabilities.files`; the folder
 * must resolve inside `PROJECT_ROOT` (a `scenarios` symlink leading elsewhere is refused).
 */
import { Problem } from '../../core/problems.ts';
import type { Scenario } from '../../core/domain/scenario.ts';
import type { Services } from '../../core/services.ts';
import { LIMITS } from './build.ts';
import { within } from '../../core/guards/jail.ts';

/** Folder under PROJECT_ROOT that receives persisted stubs. */
export const SCENARIOS_DIR = 'scenarios';
/** How many numbered names are tried before giving up. */
const MAX_ATTEMPTS = 1000;
/** How long a name claim lives in the store, in seconds (the file exists long before it expires). */
const CLAIM_TTL_SECONDS = 600;

/** Where one stub was written, relative to PROJECT_ROOT. */
export interface PersistedStub {
  scenario_id: string;
  path: string;
}

async function exists(files: NonNullable<Services['capabilities']['files']>, path: string): Promise<boolean> {
  return files.realpath(path).then(() => true, () => false);
}

async function scenariosFolder(services: Pick<Services, 'config' | 'capabilities'>): Promise<string> {
  const files = services.capabilities.files;
  if (!files) throw new Problem('not_implemented', { detail: 'this runtime has no file system; persist is unavailable (omit "persist")' });
  let root: string;
  try {
    root = await files.realpath(services.config.projectRoot);
  } catch (error) {
    throw new Problem('unavailable', { detail: 'PROJECT_ROOT does not exist or cannot be read', cause: error });
  }
  const folder = `${root === '/' ? '' : root}/${SCENARIOS_DIR}`;
  const real = await files.realpath(folder).catch(() => undefined);
  if (real === undefined) return folder;
  if (!within(real, root)) throw new Problem('path_outside_jail', { detail: `PROJECT_ROOT/${SCENARIOS_DIR} resolves outside PROJECT_ROOT; persist refuses to write there` });
  const stat = await files.stat(real);
  if (stat.isFile) throw new Problem('conflict', { detail: `PROJECT_ROOT/${SCENARIOS_DIR} is a file, not a folder` });
  return real;
}

/** Writes each stub to the next free `scenarios/<id>[-n].json`; returns the stubs as written and their paths. */
export async function persistScenarios(services: Pick<Services, 'config' | 'capabilities' | 'store'>, scenarios: Scenario[]): Promise<{ scenarios: Scenario[]; persisted: PersistedStub[] }> {
  const folder = await scenariosFolder(services);
  const files = services.capabilities.files!;
  const written: Scenario[] = [];
  const persisted: PersistedStub[] = [];
  for (const scenario of scenarios) {
    let name: string | undefined;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS && !name; attempt++) {
      const suffix = attempt === 1 ? '' : `-${attempt}`;
      const candidate = `${scenario.id.slice(0, LIMITS.id - suffix.length)}${suffix}`;
      if (await exists(files, `${folder}/${candidate}.json`)) continue;
      if (await services.store.setIfAbsent(`spec-to-eval/claims/${candidate}`, scenario.id, CLAIM_TTL_SECONDS)) name = candidate;
    }
    if (!name) throw new Problem('conflict', { detail: `${MAX_ATTEMPTS} files named ${scenario.id}*.json already exist in PROJECT_ROOT/${SCENARIOS_DIR}` });
    const stub = { ...scenario, id: name };
    await files.writeFile(`${folder}/${name}.json`, new TextEncoder().encode(`${JSON.stringify(stub, null, 2)}\n`));
    written.push(stub);
    persisted.push({ scenario_id: name, path: `${SCENARIOS_DIR}/${name}.json` });
  }
  return { scenarios: written, persisted };
}
