/**
 * Suite records in storage: `suites/<suite_id>/suite.json` (what was asked and what each launch answered),
 * `suites-index/<suite_id>` (a marker per suite, listed newest first: ids start with the time),
 * `suites-launching/<suite_id>` (a marker while its runs are being launched, for resuming after a stop),
 * `suites/<suite_id>/launcher/<slot>` (who launches it in that minute: lease.ts) and
 * `suite-of-run/<run_id>` (which suite a run belongs to, for the `run.finished` hook).
 */
import type { VerdictPolicyInput } from '../../core/domain/verdict-policy.ts';
import type { CatalogQuery } from '../../core/domain/catalog.ts';
import type { Scenario } from '../../core/domain/scenario.ts';
import type { SuiteAgent } from '../../core/domain/suites.ts';
import type { Store } from '../../core/storage.ts';
import type { StoredCreator } from '../../core/delegation.ts';

/** One (scenario, agent) pair and what its launch answered. */
export interface SuiteEntry {
  scenario_id: string;
  /** The key of one of the suite's agents. */
  agent: string;
  run_id: string | null;
  task_id: string | null;
  error?: { status: number; code: string; detail: string };
}

export interface SuiteRecord {
  suite_id: string;
  name: string | null;
  created_at: string;
  created_by: string | null;
  /** Who a resumed launch acts as: the creator's principal at creation. Never shown by the API (claims may be personal). */
  creator?: StoredCreator;
  query: CatalogQuery | null;
  scenario_ids: string[];
  agents: SuiteAgent[];
  entries: SuiteEntry[];
  /** True once every entry was launched or refused. */
  launched: boolean;
  /** Every run was asked to use the response cache. */
  cache?: boolean;
  /** Fields of the verdict policy every run was asked to apply over its scenario's. */
  verdict?: VerdictPolicyInput;
  /** The scenarios given as files or inline, as read when the suite was created, by id: each run gets this copy. */
  own_scenarios?: Record<string, Scenario>;
}


export const suiteKeys = {
  record: (suiteId: string) => `suites/${suiteId}/suite.json`,
  manifest: (suiteId: string) => `suites/${suiteId}/manifest.json`,
  certificate: (suiteId: string) => `suites/${suiteId}/certificate.json`,
  claim: (suiteId: string) => `suites/${suiteId}/certificate.claim`,
  index: (suiteId: string) => `suites-index/${suiteId}`,
  launching: (suiteId: string) => `suites-launching/${suiteId}`,
  lease: (suiteId: string, slot: number) => `suites/${suiteId}/launcher/${slot}`,
  ofRun: (runId: string) => `suite-of-run/${runId}`,
};

const SUITE_ID = /^suite_[a-z0-9]{1,80}$/;

/** True for a string that could be a suite id (and is safe as a storage path segment). */
export function isSuiteId(value: string): boolean {
  return SUITE_ID.test(value);
}

/** A new suite id: the time first so ids sort by creation, then 80 random bits. */
export function newSuiteId(now: number): string {
  let suffix = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(10))) suffix += byte.toString(36).padStart(2, '0');
  return `suite_${now.toString(36).padStart(9, '0')}${suffix}`;
}

export async function readSuite(store: Store, suiteId: string): Promise<SuiteRecord | null> {
  return isSuiteId(suiteId) ? store.getJson<SuiteRecord>(suiteKeys.record(suiteId)) : null;
}

/** Suite ids, newest first, after `before` (exclusive) when given. */
export async function listSuiteIds(store: Store, limit: number, before?: string): Promise<{ ids: string[]; next_cursor: string | null }> {
  const all = (await store.keys('suites-index')).map((key) => key.slice(key.lastIndexOf('/') + 1)).filter(isSuiteId).sort().reverse();
  const from = before ? all.findIndex((id) => id < before) : 0;
  const ids = from < 0 ? [] : all.slice(from, from + limit);
  return { ids, next_cursor: from >= 0 && from + limit < all.length ? ids[ids.length - 1]! : null };
}
