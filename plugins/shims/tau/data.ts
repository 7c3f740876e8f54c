/**
 * The operator's τ-bench data directory (`AEH_TAU_DATA_DIR`): where the shims find a domain's database when a
 * scenario gives none, and the task converter finds tasks, splits and policies. Its layout is the τ²/τ³-bench
 * release's `data/tau2/domains/`:
 *
 *     <dir>/retail/db.json  tasks.json  split_tasks.json  policy.md
 *     <dir>/airline/db.json tasks.json  split_tasks.json  policy.md
 *
 * An airline folder may hold τ-bench v1's three files (`flights.json`, `reservations.json`, `users.json`)
 * instead of `db.json`: they are the same database with the user ids only as keys, and are read as one. Any
 * JSON file may be gzipped (`db.json.gz`), as the bundled copy's are (catalog/data/tau-bench, read with the
 * web-standard DecompressionStream). The directory is the operator's (a setting, not a request's path) or the
 * bundled one, read through the runtime's file access.
 */
import type { FileAccess } from '../../../core/capabilities.ts';
import type { DbLoader, TauDomain } from './define.ts';
import type { JsonObject } from './shared.ts';

/** Reads a domain's files from a τ-bench data directory. */
export interface TauDataDir {
  dir: string;
  files: Pick<FileAccess, 'readFile' | 'stat'>;
}

const exists = (data: TauDataDir, path: string) => data.files.stat(path).then((stat) => stat.isFile, () => false);

/** Gunzips bytes with the web-standard DecompressionStream. */
async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A file's bytes, or its gzipped copy's (`<path>.gz`) unpacked when only that one is there. */
async function readMaybeGzipped(data: TauDataDir, path: string): Promise<Uint8Array> {
  if (!(await exists(data, path)) && (await exists(data, `${path}.gz`))) return gunzip(await data.files.readFile(`${path}.gz`));
  return data.files.readFile(path);
}

/** True when the domain folder holds `file` (or its gzipped copy). */
const holds = async (data: TauDataDir, path: string) => (await exists(data, path)) || exists(data, `${path}.gz`);

/** A file of a domain's folder, parsed as JSON. */
export async function readTauJson(data: TauDataDir, domain: TauDomain, file: string): Promise<unknown> {
  const path = `${data.dir}/${domain}/${file}`;
  const bytes = await readMaybeGzipped(data, path).catch(() => {
    throw new Error(`τ-bench data: ${path} cannot be read (AEH_TAU_DATA_DIR holds <domain>/${file})`);
  });
  return JSON.parse(new TextDecoder().decode(bytes));
}

/**
 * τ-bench's user-simulation guidelines (`<dir>/../user_simulator/simulation_guidelines.md` in a release's
 * layout; `simulation_guidelines_tools.md` for a user with tools), or `undefined` when the data directory has none.
 */
export async function readTauGuidelines(data: TauDataDir, withTools = false): Promise<string | undefined> {
  // The parent by name, not `..`: a path through a folder that is not there does not resolve.
  const parent = data.dir.replace(/\/+$/, '').replace(/\/[^/]*$/, '') || '/';
  // A user with tools of its own (telecom) gets the release's guidelines for one (user_simulator.py `use_tools`).
  const path = `${parent}/user_simulator/simulation_guidelines${withTools ? '_tools' : ''}.md`;
  return (await exists(data, path)) ? new TextDecoder().decode(await data.files.readFile(path)) : undefined;
}

/** A text file of a domain's folder (`policy.md`). */
export async function readTauText(data: TauDataDir, domain: TauDomain, file: string): Promise<string> {
  const path = `${data.dir}/${domain}/${file}`;
  const bytes = await data.files.readFile(path).catch(() => {
    throw new Error(`τ-bench data: ${path} cannot be read (AEH_TAU_DATA_DIR holds <domain>/${file})`);
  });
  return new TextDecoder().decode(bytes);
}

/** τ-bench v1's airline files as one database, each user given its `user_id` (its key there). */
async function airlineFromV1(data: TauDataDir): Promise<JsonObject> {
  const [flights, reservations, users] = await Promise.all(['flights.json', 'reservations.json', 'users.json'].map((file) => readTauJson(data, 'airline', file))) as JsonObject[];
  const withIds: JsonObject = {};
  for (const [id, user] of Object.entries(users)) withIds[id] = { user_id: id, ...(user as JsonObject) };
  return { flights, users: withIds, reservations };
}

/** A domain's database from the directory (`db.json`; for the airline, v1's three files when it has none). */
export async function readTauDb(data: TauDataDir, domain: TauDomain): Promise<JsonObject> {
  if (domain === 'airline' && !(await holds(data, `${data.dir}/airline/db.json`))) return airlineFromV1(data);
  return (await readTauJson(data, domain, 'db.json')) as JsonObject;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/**
 * The shims' loader: each domain read once per process and frozen (a call that tried to change it in place
 * would throw rather than corrupt every later run). A failed read is not kept, so the next run retries.
 */
export function tauDbLoader(data: TauDataDir): DbLoader {
  const loaded = new Map<TauDomain, Promise<JsonObject>>();
  return (domain) => {
    let db = loaded.get(domain);
    if (!db) {
      db = readTauDb(data, domain).then(deepFreeze);
      db.catch(() => loaded.delete(domain));
      loaded.set(domain, db);
    }
    return db;
  };
}
