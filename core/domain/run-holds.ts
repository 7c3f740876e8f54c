/**
 * Runs something else relies on (issue 33 item 1): a pinned baseline (plugins/compare) or a suite certificate
 * (plugins/suites). Retention's `keep_runs` never selects a held run, so newer runs cannot push a baseline out.
 * A hold is a marker per run and holder, `run-holds/<run_id>/<holder>`, written before the record that relies on
 * the run and removed after it no longer does; the plugins that hold runs own their holders' names.
 */
import type { Store } from '../storage.ts';
import { isValidRunId } from './runs.ts';

const PREFIX = 'run-holds';
const HOLDER = /^[a-z][a-z0-9_-]{0,127}$/;
const encoder = new TextEncoder();

function holdKey(runId: string, holder: string): string {
  if (!isValidRunId(runId) || !HOLDER.test(holder)) throw new Error(`not a run hold: ${runId.slice(0, 64)} by ${holder.slice(0, 64)}`);
  return `${PREFIX}/${runId}/${holder}`;
}

/** Marks `runId` as held by `holder` (a lowercase name: `baseline-<digest>`, `suite-<suite_id>`). */
export async function holdRun(store: Store, runId: string, holder: string): Promise<void> {
  // An append creates the marker without the fsync of an atomic write; its content does not matter.
  await store.append(holdKey(runId, holder), encoder.encode('1'));
}

/** Drops `holder`'s hold on `runId` (other holders' stay). */
export async function releaseRun(store: Store, runId: string, holder: string): Promise<void> {
  await store.remove(holdKey(runId, holder));
}

/** Every run some holder holds. */
export async function heldRuns(store: Store): Promise<Set<string>> {
  const held = new Set<string>();
  for (const key of await store.keys(PREFIX)) {
    const runId = key.split('/')[1];
    if (runId && isValidRunId(runId)) held.add(runId);
  }
  return held;
}
