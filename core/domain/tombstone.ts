/**
 * What is left of a run deleted by retention (`aeh gc`, plugins/retention): its certificate (and chain anchor),
 * which still verifies offline with the service's public keys, and a tombstone (`runs/<run_id>/deleted.json`)
 * saying when and under which policy its evidence was deleted. Routes that serve a run answer 410 `run_deleted`
 * with the tombstone, not a bare 404.
 */
import type { Store } from '../storage.ts';
import { Problem } from '../problems.ts';
import { isValidRunId } from './runs.ts';

/** The tombstone of a run whose evidence retention deleted. */
export interface Tombstone {
  run_id: string;
  deleted_at: string;
  reason: 'retention';
  /** The rule that selected the run: `max_age_days` or `keep_runs` and its value. */
  rule: { max_age_days?: number; keep_runs?: number };
  scenario_id: string;
  /** The agent key the `keep_runs` count was taken over (registry name, else adapter and configuration hash). */
  agent: string;
  finished_at: string | null;
  certificate_url: string;
}

/** The tombstone's storage key. */
export const tombstoneKey = (runId: string) => `runs/${runId}/deleted.json`;

/** Files a deleted run keeps: the certificate, its anchor and the tombstone. */
export const KEPT_AFTER_DELETE = new Set(['certificate.json', 'certificate.anchor.json', 'deleted.json']);

/** The tombstone of a run, or `null` when the run was not deleted. */
export async function readTombstone(store: Store, runId: string): Promise<Tombstone | null> {
  if (!isValidRunId(runId)) return null;
  return store.getJson<Tombstone>(tombstoneKey(runId)).catch(() => null);
}

/** The 410 answer for a deleted run: when, why, and how its certificate still verifies. */
export function runDeleted(tombstone: Tombstone): Problem {
  return new Problem('run_deleted', {
    detail: `run ${tombstone.run_id} was deleted by retention on ${tombstone.deleted_at}; its evidence is gone, its certificate is kept at ${tombstone.certificate_url} and verifies offline (aeh verify certificate.json --jwks <the service's /.well-known/jwks.json>)`,
    extra: { run_id: tombstone.run_id, deleted_at: tombstone.deleted_at, reason: tombstone.reason, rule: tombstone.rule, certificate_url: tombstone.certificate_url },
  });
}

/** Throws `runDeleted` when the run has a tombstone. */
export async function assertNotDeleted(store: Store, runId: string): Promise<void> {
  const tombstone = await readTombstone(store, runId);
  if (tombstone) throw runDeleted(tombstone);
}
