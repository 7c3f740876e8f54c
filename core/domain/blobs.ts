/**
 * Content-addressed blobs shared by runs (issue 27 item 5): a scenario or an initial world is stored once per
 * principal (`blobs/<address>.json`), however many of its runs use it. Each run that uses a blob records a
 * reference (`blob-refs/<address>/<run_id>`, holding the time it was made) before it relies on the blob, so the
 * garbage collector (`collectBlob`) deletes only blobs no run refers to, and never one a run started meanwhile
 * refers to: it deletes, then looks again, and puts the bytes back if a reference appeared (see `collectBlob`).
 *
 * A blob's address is the SHA3-256 of its bytes, scoped by the principal whose runs share it (`blobAddress`): runs
 * of one principal share a blob, two principals never do (issue 33). Whether a submission wrote its blob or found
 * it (a difference in time, and in what it was charged) so says nothing about what another principal stored: with
 * addresses shared by everyone, a principal could confirm another's scenario or world by submitting a guess.
 *
 * A blob is charged to the principal whose run first wrote it (issue 33 item 2: six distinct 0.85 MB scenarios
 * put 9,988 KiB in the store while their principal's counter read 41,936 bytes): `blob-charges/<address>` names
 * that run and principal, the run's stored bytes count the blob (owners.ts), and the collector that deletes the
 * blob credits it back. Blobs being per principal, the principal charged is the one whose runs use it.
 */
import type { Store } from '../storage.ts';
import { isHexDigest, sha3Hex, toHex, type HexDigest, type Sha3Factory } from './hash.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Storage keys of blobs and their references. */
export const blobKeys = {
  blob: (digest: HexDigest) => `blobs/${digest}.json`,
  refs: (digest: HexDigest) => `blob-refs/${digest}`,
  ref: (digest: HexDigest, runId: string) => `blob-refs/${digest}/${runId}`,
  charge: (digest: HexDigest) => `blob-charges/${digest}.json`,
};

/** Who a blob is charged to: the run that first wrote it and that run's submitter. */
export interface BlobCharge {
  run_id: string;
  owner: string;
}

/**
 * The address of `bytes` stored for `owner`'s runs: SHA3-256 over the owner's scope and the bytes (over the bytes
 * alone for runs nobody submitted, and in blobs written before scoping: a packed record names the address it used).
 */
export function blobAddress(bytes: Uint8Array, factory: Sha3Factory, owner?: string): HexDigest {
  if (owner === undefined) return sha3Hex(bytes, factory);
  const scope = encoder.encode(`aeh-blob-scope:${sha3Hex(owner, factory)}\n`);
  return toHex(factory().update(scope).update(bytes).digest());
}

/**
 * Stores `bytes` as a blob of `owner`'s runs (the run's submitter), referenced by `runId`, and returns its
 * address. The reference is written first: from then on a collector that deletes the blob puts it back (or this
 * call writes it, seeing it absent). A call that writes the blob charges it to `owner`, once: of two runs writing
 * it at once, one is.
 */
export async function putBlob(store: Store, bytes: Uint8Array, runId: string, factory: Sha3Factory, owner?: string): Promise<HexDigest> {
  const digest = blobAddress(bytes, factory, owner);
  // An append creates the reference without the fsync of an atomic write (one per run saved): a reference whose
  // time did not reach the disk reads as NaN, which the collector keeps, and the run's packed record, written
  // atomically after it, commits the file system's journal with it.
  await store.append(blobKeys.ref(digest, runId), encoder.encode(new Date().toISOString()));
  if (!(await store.has(blobKeys.blob(digest)))) {
    if (owner !== undefined) await store.setIfAbsent(blobKeys.charge(digest), JSON.stringify({ run_id: runId, owner } satisfies BlobCharge));
    await store.setBytes(blobKeys.blob(digest), bytes);
  }
  return digest;
}

/** Who a blob is charged to, or `null` (written before blobs were charged, or by a run nobody submitted). */
export async function blobCharge(store: Store, digest: HexDigest): Promise<BlobCharge | null> {
  const bytes = await store.getBytes(blobKeys.charge(digest)).catch(() => null);
  if (!bytes) return null;
  try {
    const charge = JSON.parse(decoder.decode(bytes)) as BlobCharge;
    return typeof charge?.run_id === 'string' && typeof charge.owner === 'string' ? charge : null;
  } catch {
    return null;
  }
}


/** A blob's bytes, or `null` when it is not stored (or the address is not one). */
export async function getBlob(store: Store, digest: string): Promise<Uint8Array | null> {
  if (!isHexDigest(digest)) return null;
  return store.getBytes(blobKeys.blob(digest));
}

/** Drops the references a run holds (its evidence is gone); the blobs go at the next collection if unreferenced. */
export async function releaseBlobs(store: Store, runId: string, digests: Iterable<HexDigest>): Promise<void> {
  await Promise.all([...new Set(digests)].map((digest) => store.remove(blobKeys.ref(digest, runId))));
}

/** The stored blob addresses. */
export async function listBlobs(store: Store): Promise<HexDigest[]> {
  const found = await store.keys('blobs');
  return found.map((key) => key.slice(key.lastIndexOf('/') + 1).replace(/\.json$/, '')).filter(isHexDigest);
}

/** The runs referring to a blob, with when each reference was made (ms; NaN when unreadable). */
export async function blobReferences(store: Store, digest: HexDigest): Promise<Array<{ runId: string; madeAt: number }>> {
  const found = await store.keys(blobKeys.refs(digest));
  return Promise.all(found.map(async (key) => {
    const runId = key.slice(key.lastIndexOf('/') + 1);
    const bytes = await store.getBytes(key).catch(() => null);
    return { runId, madeAt: bytes ? Date.parse(decoder.decode(bytes)) : Number.NaN };
  }));
}

/** What a collector decides about a reference: the run still uses the blob, or the reference is stale. */
export type ReferenceCheck = (reference: { runId: string; madeAt: number }) => Promise<boolean>;

/**
 * Deletes a blob no live run refers to. References whose run is gone (`live` says false: a crash between
 * deleting a run and dropping its references) are dropped first. The bytes are read before the delete and the
 * references listed again after it: a run that took a reference meanwhile had either found the blob (and it is
 * put back now) or will find it absent and write it itself. `dryRun` decides without deleting anything.
 */
export async function collectBlob(store: Store, digest: HexDigest, live: ReferenceCheck, dryRun = false): Promise<'kept' | 'deleted'> {
  const references = await blobReferences(store, digest);
  const liveness = await Promise.all(references.map(live));
  if (liveness.some(Boolean)) return 'kept';
  if (dryRun) return 'deleted';
  await Promise.all(references.map(({ runId }) => store.remove(blobKeys.ref(digest, runId))));
  const bytes = await store.getBytes(blobKeys.blob(digest));
  await store.remove(blobKeys.blob(digest));
  if (bytes && (await store.keys(blobKeys.refs(digest))).length > 0) {
    await store.setBytes(blobKeys.blob(digest), bytes);
    return 'kept';
  }
  return 'deleted';
}
