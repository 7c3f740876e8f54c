/**
 * Evidence files stored packed (issue 27 item 5): a run's `scenario.json` and `world.json` are kept as a small
 * `<file>.packed` record pointing at content-addressed blobs (core/domain/blobs.ts) instead of a full copy per
 * run, and rebuilt on read to exactly the bytes that were judged and hashed into the certificate's evidence
 * ledger. The signed artefact is the rebuilt file, not the packed record: certificates, the evidence route,
 * offline verifiers and `verify` see the same bytes as before; a packed record rebuilds them by construction.
 *  - `splice`: the file is its parts concatenated, each a literal string or a blob (the run plan: the scenario
 *    is a blob shared by every run of it, the run's ids and options are literals around it; `world.json`: the
 *    initial world is a blob shared by every run that starts from it, its units' diffs are literals).
 */
import type { Store } from '../storage.ts';
import { blobKeys, getBlob } from './blobs.ts';
import { keys } from './runs.ts';
import { BUNDLE_FILE, BUNDLED_FILES, fileInBundle } from './evidence-bundle.ts';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Version tag of packed records. */
export const PACKED_FORMAT = 'aeh-packed/1';

/** A file stored as literal parts and blobs (`kind` names the one form there is, for a later one). */
export interface PackedEvidence {
  format: typeof PACKED_FORMAT;
  kind: 'splice';
  parts: Array<string | { blob: string }>;
}

/** The storage key of a packed evidence file. */
export const packedKey = (runId: string, file: string) => keys.sidecar(runId, `${file}.packed`);

/** The blobs a packed record refers to. */
export function blobsOf(packed: PackedEvidence): string[] {
  return packed.parts.flatMap((part) => (typeof part === 'string' ? [] : [part.blob]));
}

async function blobText(store: Store, digest: string): Promise<string | null> {
  const bytes = await getBlob(store, digest);
  return bytes === null ? null : decoder.decode(bytes);
}

/** The file's text rebuilt from its packed record, or `null` when a blob it needs is gone. */
export async function unpack(store: Store, packed: PackedEvidence): Promise<string | null> {
  if (packed?.format !== PACKED_FORMAT || packed.kind !== 'splice' || !Array.isArray(packed.parts)) return null;
  const texts = await Promise.all(packed.parts.map((part) => (typeof part === 'string' ? part : blobText(store, part.blob))));
  return texts.some((text) => text === null) ? null : texts.join('');
}

/**
 * A run's evidence file (a ledger name: `scenario.json`, `world.json`, …) exactly as judged: stored whole, packed,
 * or in the run's bundle (evidence-bundle.ts, the end-of-run sidecars); `null` when absent. `readBundle` reads the
 * bundle (default: from the store each time; public verify reads it once for the files of one request).
 */
export async function readEvidence(store: Store, runId: string, file: string, readBundle = () => store.getBytes(keys.sidecar(runId, BUNDLE_FILE))): Promise<Uint8Array | null> {
  const whole = await store.getBytes(keys.sidecar(runId, file));
  if (whole !== null) return whole;
  const packed = await store.getJson<PackedEvidence>(packedKey(runId, file)).catch(() => null);
  if (!packed) return BUNDLED_FILES.has(file) ? fileInBundle(await readBundle(), file) : null;
  const text = await unpack(store, packed);
  return text === null ? null : encoder.encode(text);
}

/** `readEvidence`, parsed; `null` when absent or not JSON. */
export async function readEvidenceJson<T>(store: Store, runId: string, file: string): Promise<T | null> {
  const bytes = await readEvidence(store, runId, file);
  if (bytes === null) return null;
  try {
    return JSON.parse(decoder.decode(bytes)) as T;
  } catch {
    return null;
  }
}

/**
 * The store's change proof of an evidence file (`Store.fingerprint`): of the whole file, of the packed record
 * and every blob it names, or of the bundle holding it; `null` when any part has none (the caller then re-hashes).
 */
export async function evidenceFingerprint(store: Store, runId: string, file: string): Promise<string | null> {
  const wholeKey = keys.sidecar(runId, file);
  const whole = await store.fingerprint(wholeKey);
  if (whole !== null) return whole;
  const key = packedKey(runId, file);
  const own = await store.fingerprint(key);
  if (own === null) return BUNDLED_FILES.has(file) ? bundleFingerprint(store, runId, wholeKey, key) : null;
  const packed = await store.getJson<PackedEvidence>(key).catch(() => null);
  if (!packed) return null;
  const parts = await Promise.all(blobsOf(packed).map((digest) => store.fingerprint(blobKeys.blob(digest))));
  return parts.some((part) => part === null) ? null : ['packed', own, ...parts].join('|');
}

/**
 * The bundle's proof, for a file stored in it: only when no whole or packed form exists, since `readEvidence`
 * serves those first (a file without a proof may be one just written beside the bundle).
 */
async function bundleFingerprint(store: Store, runId: string, wholeKey: string, packed: string): Promise<string | null> {
  const bundle = await store.fingerprint(keys.sidecar(runId, BUNDLE_FILE));
  if (bundle === null || (await store.has(wholeKey)) || (await store.has(packed))) return null;
  return `bundle|${bundle}`;
}
