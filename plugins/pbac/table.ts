/**
 * The PBAC configuration as data: the role → permissions table and the claim mappings (which claim holds a
 * user's groups, and which role each group stands for). Versions are stored whole and never rewritten
 * (`pbac/versions/<n>.json`, created with setIfAbsent, so two instances cannot both write version n); the
 * newest number is `pbac/current.json`. With no version stored the contract's table is in force.
 */
import type { Store } from '../../core/storage.ts';
import { ROLE_PERMISSIONS } from '../../core/permissions.ts';

export interface PbacTable {
  version: number;
  updated_at?: string;
  updated_by?: string;
  /** Role name (lower case) → permission nodes. */
  roles: Record<string, string[]>;
  claims: ClaimMappings;
}

export interface ClaimMappings {
  /** The claim holding a user's groups (default `groups`). */
  groups_claim: string;
  /** Group name (lower case) → role name. */
  groups: Record<string, string>;
}

export const DEFAULT_TABLE: PbacTable = Object.freeze({
  version: 0,
  roles: Object.fromEntries(Object.entries(ROLE_PERMISSIONS).map(([role, nodes]) => [role, [...nodes]])),
  claims: { groups_claim: 'groups', groups: {} },
});

const CURRENT = 'pbac/current.json';
export const versionKey = (version: number) => `pbac/versions/${String(version).padStart(8, '0')}.json`;

export async function readTable(store: Store): Promise<PbacTable> {
  const current = await store.getJson<{ version: number }>(CURRENT);
  if (!current?.version) return DEFAULT_TABLE;
  return (await store.getJson<PbacTable>(versionKey(current.version))) ?? DEFAULT_TABLE;
}

/** The current version number, the cheap read each instance polls. */
export async function currentVersion(store: Store): Promise<number> {
  return (await store.getJson<{ version: number }>(CURRENT))?.version ?? 0;
}

/**
 * Writes `next` as the version after `base`; false when another writer took that version first (the caller
 * answers 409 and the client retries on the newer table).
 */
export async function writeTable(store: Store, base: PbacTable, next: Omit<PbacTable, 'version'>): Promise<PbacTable | null> {
  const table = { ...next, version: base.version + 1 };
  if (!(await store.setIfAbsent(versionKey(table.version), JSON.stringify(table)))) return null;
  await store.setJson(CURRENT, { version: table.version });
  return table;
}
