/**
 * Verification of a stored run (`GET /api/v1/verify/:run_id`), with one cost trade-off: artefact hashes.
 *
 * Re-hashing costs ~7.6 ms per MiB (SHA3-256, OpenSSL, one core), which caps a run with a 1 MiB trace at ~130
 * verifications per second per core. So the artefact checks (`trace_hash`, `evidence_ledger`: the trace and
 * every sidecar re-hashed; `chain_anchor`) are reused for `AEH_VERIFY_CACHE_MS` (default 1000 ms) for the same
 * certificate bytes, and concurrent requests share one hashing pass. On every request the certificate is
 * re-read (any edit of it is seen at once) and expiry re-evaluated; the schema and signature checks are a pure
 * function of the certificate's bytes and our key set, so their result is kept for identical bytes and keys.
 * An edit of the trace, a sidecar or the anchor is therefore reported at most `AEH_VERIFY_CACHE_MS` after it
 * happens; 0 re-hashes on every request. See docs/certificates.md, "Verification cost".
 */
import type { Certificate } from '../../core/certificate.ts';
import { isSafeBasename } from '../../core/certificate.ts';
import { sha3Factory } from '../../core/hash.ts';
import { signatureDigest } from '../../core/provenance.ts';
import { keys } from '../../core/runs.ts';
import type { Services } from '../../core/services.ts';
import { verifyCertificate, verifyDocument, type DocumentVerification, type VerificationCheck, type VerificationResult } from '../../core/verify-certificate.ts';
import { anchorKey, type ChainAnchor } from './issue.ts';
import { publishedKeySet } from './keyset.ts';

interface ArtefactResult {
  text: string;
  at: number;
  checks: VerificationCheck[];
}

/** Per-app caches: artefact checks by certificate bytes (bounded in time), document checks by bytes and keys. */
export interface VerifyCache {
  ttlMs: number;
  artefacts: Map<string, ArtefactResult>;
  inflight: Map<string, Promise<ArtefactResult>>;
  documents: Map<string, { text: string; keys: string; document: DocumentVerification }>;
}

/** Creates the caches; `ttlMs` 0 re-hashes the artefacts on every request. */
export function createVerifyCache(ttlMs: number): VerifyCache {
  return { ttlMs, artefacts: new Map(), inflight: new Map(), documents: new Map() };
}

const MAX_ENTRIES = 1024;
const decoder = new TextDecoder();

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}

async function checkAnchor(services: Services, runId: string, certificate: Certificate): Promise<VerificationCheck> {
  const id = 'chain_anchor';
  const anchor = await services.store.getJson<ChainAnchor>(anchorKey(runId)).catch(() => null);
  if (!anchor) return { id, ok: true, detail: 'no anchor recorded for this run' };
  const chain = Array.isArray(certificate.provenance_chain) ? certificate.provenance_chain : [];
  const entry = chain[anchor.entries - 1];
  const ok = chain.length >= anchor.entries && !!entry && typeof entry.signature === 'string' && signatureDigest(entry.signature, sha3Factory(services.capabilities)) === anchor.head;
  return {
    id,
    ok,
    detail: ok ? `the chain holds the ${anchor.entries} entr${anchor.entries === 1 ? 'y' : 'ies'} this service signed` : `this service signed ${anchor.entries} entries; the certificate holds ${chain.length} and its entry ${anchor.entries - 1} is not the one signed (entries were dropped or replaced)`,
  };
}

/** Hashes the trace (streamed) and every sidecar of the certificate now, and reads the chain anchor. */
async function hashArtefacts(services: Services, runId: string, certificate: unknown, text: string, document: DocumentVerification): Promise<ArtefactResult> {
  const at = services.now();
  const result = await verifyCertificate(certificate, {
    keys: [],
    document,
    now: at,
    factory: sha3Factory(services.capabilities),
    source: {
      trace: (file) => (isSafeBasename(file) ? services.store.stream(keys.sidecar(runId, file)) : Promise.resolve(null)),
      // Sidecars are small: one read each instead of a stream.
      sidecar: (file) => (isSafeBasename(file) ? services.store.getBytes(keys.sidecar(runId, file)) : Promise.resolve(null)),
    },
  });
  const artefacts = result.checks.filter((check) => check.id === 'trace_hash' || check.id === 'evidence_ledger');
  return { text, at, checks: [...artefacts, await checkAnchor(services, runId, certificate as Certificate)] };
}

async function artefactChecks(services: Services, cache: VerifyCache, runId: string, certificate: unknown, text: string, document: DocumentVerification, fresh: boolean): Promise<VerificationCheck[]> {
  const now = services.now();
  const kept = cache.artefacts.get(runId);
  if (!fresh && cache.ttlMs > 0 && kept && kept.text === text && now - kept.at < cache.ttlMs) {
    return kept.checks.map((check) => (check.id === 'chain_anchor' ? check : { ...check, detail: `${check.detail} (hashed ${now - kept.at} ms ago)` }));
  }
  const flightKey = `${runId}\n${text}`;
  // On workerd a request cannot wait on another's I/O (capabilities.requestScopedIo): each one hashes for itself.
  const shared = !services.capabilities.requestScopedIo;
  let pending = shared ? cache.inflight.get(flightKey) : undefined;
  if (!pending) {
    pending = hashArtefacts(services, runId, certificate, text, document).finally(() => cache.inflight.delete(flightKey));
    if (shared) cache.inflight.set(flightKey, pending);
  }
  const hashed = await pending;
  if (cache.ttlMs > 0) remember(cache.artefacts, runId, hashed);
  return hashed.checks;
}

/**
 * Verifies the stored certificate of a run against its stored artefacts; `null` when it has no certificate.
 * `fresh` re-hashes the artefacts whatever the cache holds (before an Auditor countersigns).
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
  const isObject = certificate !== null && typeof certificate === 'object' && !Array.isArray(certificate);
  const result = await verifyCertificate(certificate, {
    keys: published,
    document: memo.document,
    artefactChecks: isObject ? await artefactChecks(services, cache, runId, certificate, text, memo.document, options.fresh ?? false) : undefined,
    now: services.now(),
    factory,
    source: { trace: async () => null, sidecar: async () => null },
  });
  if (isObject && (certificate as Certificate).run_id !== runId) {
    result.checks.push({ id: 'run_id', ok: false, detail: `the certificate names run ${(certificate as Certificate).run_id}` });
  }
  if (result.status !== 'invalid' && result.checks.some((check) => !check.ok && check.id !== 'expiry')) {
    result.status = 'invalid';
    result.valid = false;
  }
  return { certificate, result };
}
