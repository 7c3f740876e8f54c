/**
 * Writes a run's big evidence files packed (core/domain/packed-evidence.ts): the run plan (`scenario.json`) with
 * its scenario as a blob shared by every run of that scenario, and `world.json` as each shim's initial state (a
 * blob shared by every unit and every run that starts from it) plus each unit's diff. The blobs and the run's
 * references to them are written before the packed record, and the packed record is written only once it is
 * proven to rebuild the exact bytes; otherwise the file is stored whole, as before.
 */
import type { Store } from '../../../core/storage.ts';
import type { Sha3Factory } from '../../../core/domain/hash.ts';
import { putBlob, releaseBlobs } from '../../../core/domain/blobs.ts';
import { blobsOf, PACKED_FORMAT, packedKey, unpack, type PackedWorld } from '../../../core/domain/packed-evidence.ts';
import { keys } from '../../../core/domain/runs.ts';
import { stateDiff } from '../../../core/domain/state-diff.ts';
import type { Json } from '../../../core/shim.ts';

const encoder = new TextEncoder();

/** Below this, a blob and a reference cost more than the copy they save. */
const MIN_SHARED_BYTES = 1024;

/** Stores the run plan `planText`, whose bytes contain `scenarioText`, with the scenario as a shared blob. */
export async function storePlan(store: Store, runId: string, file: string, planText: string, scenarioText: string, factory: Sha3Factory): Promise<void> {
  const at = scenarioText.length < MIN_SHARED_BYTES ? -1 : planText.indexOf(scenarioText);
  if (at < 0) return store.setBytes(keys.sidecar(runId, file), encoder.encode(planText));
  const blob = await putBlob(store, encoder.encode(scenarioText), runId, factory);
  const parts = [planText.slice(0, at), { blob }, planText.slice(at + scenarioText.length)];
  await store.setJson(packedKey(runId, file), { format: PACKED_FORMAT, kind: 'splice', parts });
}

interface WorldSidecar {
  initial: Record<string, Json>;
  units: Array<{ final: Record<string, Json> } & Record<string, unknown>>;
  unchanged: number;
}

/** Stores `world.json` as initial-state blobs and per-unit diffs, or whole when that would not rebuild it exactly. */
export async function storeWorld(store: Store, runId: string, file: string, sidecar: Json, factory: Sha3Factory): Promise<void> {
  const world = sidecar as unknown as WorldSidecar;
  const text = JSON.stringify(world);
  const initial: Record<string, string> = {};
  for (const [shim, state] of Object.entries(world.initial)) initial[shim] = await putBlob(store, encoder.encode(JSON.stringify(state)), runId, factory);
  const units = world.units.map(({ final, ...identity }) => {
    const diff: Record<string, ReturnType<typeof stateDiff>> = {};
    for (const shim of Object.keys(world.initial)) {
      const operations = stateDiff(world.initial[shim], final[shim]);
      if (operations.length) diff[shim] = operations;
    }
    return { identity, diff };
  });
  const packed: PackedWorld = { format: PACKED_FORMAT, kind: 'world', initial, units, unchanged: world.unchanged };
  // The signed bytes are the rebuilt ones: an order of keys a diff cannot express (a key added mid-object) would
  // change them, so such a world is kept whole.
  if ((await unpack(store, packed)) === text) return store.setJson(packedKey(runId, file), packed);
  await store.setBytes(keys.sidecar(runId, file), encoder.encode(text));
  await releaseBlobs(store, runId, blobsOf(packed));
}
