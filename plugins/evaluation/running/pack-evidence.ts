/**
 * Writes a run's big evidence files packed (core/domain/packed-evidence.ts): the run plan (`scenario.json`) with
 * its scenario as a blob shared by every run of that scenario, and `world.json` with its initial world as a blob
 * shared by every run that starts from it (its units are diffs already). A packed file is its literal parts and
 * blobs concatenated, so it rebuilds the exact bytes by construction. The blobs and the run's references to
 * them are written before the packed record.
 */
import type { Store } from '../../../core/storage.ts';
import type { Sha3Factory } from '../../../core/domain/hash.ts';
import { putBlob } from '../../../core/domain/blobs.ts';
import { PACKED_FORMAT, packedKey } from '../../../core/domain/packed-evidence.ts';
import { keys } from '../../../core/domain/runs.ts';
import type { Json } from '../../../core/shim.ts';

const encoder = new TextEncoder();

/** Below this, a blob and a reference cost more than the copy they save. */
const MIN_SHARED_BYTES = 1024;

/**
 * Stores `text` (a ledger file) packed when it contains `sharedText` (the part that repeats from run to run): that
 * part as a blob shared by every run, the rest as literals around it; whole otherwise.
 */
async function storeSpliced(store: Store, runId: string, file: string, text: string, sharedText: string, factory: Sha3Factory, owner?: string): Promise<void> {
  const at = sharedText.length < MIN_SHARED_BYTES ? -1 : text.indexOf(sharedText);
  if (at < 0) return store.setBytes(keys.sidecar(runId, file), encoder.encode(text));
  const blob = await putBlob(store, encoder.encode(sharedText), runId, factory, owner);
  const parts = [text.slice(0, at), { blob }, text.slice(at + sharedText.length)];
  await store.setJson(packedKey(runId, file), { format: PACKED_FORMAT, kind: 'splice', parts });
}

/**
 * Stores the run plan `planText`, whose bytes contain `scenarioText`, with the scenario as a shared blob (charged
 * to `owner`, the run's submitter, when this run is the first to write it: core/domain/blobs.ts).
 */
export function storePlan(store: Store, runId: string, file: string, planText: string, scenarioText: string, factory: Sha3Factory, owner?: string): Promise<void> {
  return storeSpliced(store, runId, file, planText, scenarioText, factory, owner);
}

/**
 * Stores `world.json` (worlds/world-sidecar.ts: the initial world and each unit's diff from it) with its initial
 * world as a blob shared by every run that starts from it (every task of a τ-bench domain), charged as the plan's.
 */
export function storeWorld(store: Store, runId: string, file: string, sidecar: Json, factory: Sha3Factory, owner?: string): Promise<void> {
  const { initial, ...rest } = sidecar as { initial: Json } & Record<string, Json>;
  // Exactly `JSON.stringify(sidecar)`, whose first member is `initial`, with the initial world (a τ-bench
  // database: most of the file) serialised once rather than once for the file and again for its blob.
  const initialText = JSON.stringify(initial);
  const restText = JSON.stringify(rest);
  const text = `{"initial":${initialText}${restText === '{}' ? '' : `,${restText.slice(1, -1)}`}}`;
  return storeSpliced(store, runId, file, text, initialText, factory, owner);
}
