/**
 * Verification of a stored run (`GET /api/v1/verify/:run_id`). Every answer is about the bytes as they are
 * when the request is served: the certificate and its chain anchor are read on every request, and every
 * artefact (the trace, each sidecar) is re-hashed unless the store proves, by its change proof
 * (`Store.fingerprint`: for `fs` one `stat` giving device, inode, size, mtime and ctime in ns), that its bytes
 * are the ones hashed before. Stores without a proof are re-hashed every time; `AEH_VERIFY_REHASH=always`
 * ignores the proof too. No request ever reuses another's reading by time, nor joins a hashing pass that began
 * before it arrived. The schema and signature checks are a pure function of the certificate's bytes and our key
 * set, so their result is kept for identical bytes and keys. See docs/certificates.md, "Verification cost".
 */
import type { Certificate } from '../../core/domain/certificate.ts';
import { isSafeBasename } from '../../core/domain/certificate.ts';
import { sha3Factory, toHex, type HexDigest } from '../../core/domain/hash.ts';
import { signatureDigest } from '../../core/domain/provenance.ts';
import { keys } from '../../core/domain/runs.ts';
import type { Services } from '../../core/services.ts';
import { verifyCertificate, verifyDocument, type ArtefactBytes, type DocumentVerification, type VerificationCheck, type VerificationResult } from '../../core/domain/verify-certificate.ts';
import { anchorKey, type ChainAnchor } from './issue.ts';
import { evidenceFingerprint, readEvidence } from '../../core/domain/packed-evidence.ts';
import { BUNDLE_FILE } from '../../core/domain/evidence-bundle.ts';
import { publishedKeySet } from './keyset.ts';

/** `AEH_VERIFY_REHASH`: `changed` re-hashes what the store cannot prove unchanged; `always` re-hashes everything. */
export type RehashMode = 'changed' | 'always';

/** Per-app memory: artefact digests with the change proof they were taken under, document checks by bytes and keys. */
export interface VerifyCache {
  rehash: RehashMode;
  digests: Map<string, { fingerprint: string; hex: HexDigest }>;
  documents: Map<string, { text: string; keys: string; document: DocumentVerification }>;
}

/** Creates the per-app memory of the verify route. */
export function createVerifyCache(rehash: RehashMode = 'changed'): VerifyCache {
  return { rehash, digests: new Map(), documents: new Map() };
}

const MAX_ENTRIES = 4096;
const decoder = new TextDecoder();

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}

function anchorHolds(chain: Certificate['provenance_chain'], anchor: { entries: number; head: string }, digestOf: (signature: string) => string): boolean {
  const entry = chain[anchor.entries - 1];
  return chain.length >= anchor.entries && !!entry && typeof entry.signature === 'string' && digestOf(entry.signature) === anchor.head;
}

async function checkAnchor(services: Services, runId: string, certificate: Certificate): Promise<VerificationCheck> {
  const id = 'chain_anchor';
  const anchor = await services.store.getJson<ChainAnchor>(anchorKey(runId)).catch(() => null);
  // A first issue records none (issue.ts `writeCertificate`): its signatures alone bind its entries.
  if (!anchor) return { id, ok: true, detail: 'no anchor recorded for this run (one is recorded when a chain is rewritten: an Auditor entry, a re-issue)' };
  const chain = Array.isArray(certificate.provenance_chain) ? certificate.provenance_chain : [];
  const factory = sha3Factory(services.capabilities);
  const digestOf = (signature: string) => signatureDigest(signature, factory);
  // A write interrupted between the anchor and the certificate leaves both chains acceptable (issue.ts).
  const held = [anchor.pending, anchor].find((candidate) => candidate && anchorHolds(chain, candidate, digestOf));
  if (held) return { id, ok: true, detail: `the chain holds the ${held.entries} entr${held.entries === 1 ? 'y' : 'ies'} this service signed` };
  return { id, ok: false, detail: `this service signed ${anchor.entries} entries; the certificate holds ${chain.length} and its entry ${anchor.entries - 1} is not the one signed (entries were dropped or replaced)` };
}

/**
 * An artefact's digest for `verifyCertificate`: reused when the store proves the bytes unchanged since this
 * process hashed them, else hashed now (the trace by `Store.sha3`: in a worker thread where the store offers one,
 * else through the store's own buffers; a sidecar read whole, the bundled ones from `readBundle` when given).
 */
async function artefact(services: Services, cache: VerifyCache, runId: string, file: string, large: boolean, rehash: RehashMode, readBundle?: () => Promise<Uint8Array | null>): Promise<ArtefactBytes> {
  const { store } = services;
  const key = keys.sidecar(runId, file);
  // Taken before the read: a change during the read moves the fingerprint, so the next request re-hashes.
  // Sidecars may be stored packed (core/domain/packed-evidence.ts): their proof covers the record and its blobs.
  const fingerprint = rehash !== 'changed' ? null : large ? await store.fingerprint(key) : await evidenceFingerprint(store, runId, file);
  const known = fingerprint === null ? undefined : cache.digests.get(key);
  if (known && known.fingerprint === fingerprint) return { sha3_256: known.hex, reused: true };
  let hex: HexDigest;
  if (large) {
    // Off the request thread when the store can (fs on Node: a worker thread), else through its own buffers.
    const digest = await store.sha3(key, sha3Factory(services.capabilities));
    if (digest === null) return null;
    hex = digest;
  } else {
    // The bytes as judged, rebuilt when packed: a blob changed or gone changes or fails the hash.
    const bytes = await readEvidence(store, runId, file, readBundle);
    if (bytes === null) return null;
    hex = toHex(sha3Factory(services.capabilities)().update(bytes).digest());
  }
  if (fingerprint !== null) remember(cache.digests, key, { fingerprint, hex });
  return { sha3_256: hex, reused: false };
}

/**
 * Verifies the stored certificate of a run against its stored artefacts; `null` when it has no certificate.
 * `fresh` re-hashes every artefact whatever the store proves (before an Auditor countersigns).
 */
export async function verifyStoredRun(services: Services, runId: string, cache: VerifyCache, options: { fresh?: boolean } = {}): Promise<{ certificate: unknown; result: VerificationResult } | null> {
  const bytes = await services.store.getBytes(keys.certificate(runId));
  if (bytes === null) return null;
  const text = decoder.decode(bytes);
  let certificate: unknown;
  try {
    certificate = JSON.parse(text);
  } catch {
    certificate = text; // reported as invalid on every check
  }
  const factory = sha3Factory(services.capabilities);
  const published = await publishedKeySet(services);
  const keySetId = published.map((jwk) => jwk.kid).join(',');
  let memo = cache.documents.get(runId);
  if (!memo || memo.text !== text || memo.keys !== keySetId) {
    memo = { text, keys: keySetId, document: await verifyDocument(certificate, { keys: published, factory }) };
    remember(cache.documents, runId, memo);
  }
  const rehash = options.fresh ? 'always' : cache.rehash;
  // Re-hashing everything (nothing is remembered under a change proof), the bundled sidecars are judged from one
  // reading of their bundle: two whole reads fewer per request. Under proofs, each file's proof must be taken
  // before its own read, so each reads the bundle itself.
  let bundleReading: Promise<Uint8Array | null> | undefined;
  const readBundle = rehash === 'changed' ? undefined : () => (bundleReading ??= services.store.getBytes(keys.sidecar(runId, BUNDLE_FILE)));
  const read = (file: string, large: boolean) => (isSafeBasename(file) ? artefact(services, cache, runId, file, large, rehash, readBundle) : Promise.resolve(null));
  const result = await verifyCertificate(certificate, {
    keys: published,
    document: memo.document,
    now: services.now(),
    factory,
    // Sidecars are small: one read each.
    source: { trace: (file) => read(file, true), sidecar: (file) => read(file, false) },
  });
  const isObject = certificate !== null && typeof certificate === 'object' && !Array.isArray(certificate);
  if (isObject) {
    const anchor = await checkAnchor(services, runId, certificate as Certificate);
    result.checks.splice(result.checks.findIndex((check) => check.id === 'evidence_ledger') + 1, 0, anchor);
    if ((certificate as Certificate).run_id !== runId) result.checks.push({ id: 'run_id', ok: false, detail: `the certificate names run ${(certificate as Certificate).run_id}` });
  }
  if (result.status !== 'invalid' && result.checks.some((check) => !check.ok && check.id !== 'expiry')) {
    result.status = 'invalid';
    result.valid = false;
  }
  return { certificate, result };
}
