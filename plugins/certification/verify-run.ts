/**
 * Verification of a stored run (`GET /api/v1/verify/:run_id`), with one cost trade-off: the trace digest.
 *
 * Re-hashing the trace costs ~7.6 ms per MiB (SHA3-256, OpenSSL, one core), which caps a 1 MiB run at ~130
 * verifications per second. So the digest of a trace is kept for `AEH_VERIFY_CACHE_MS` (default 1000 ms) and
 * reused only while the stored size is unchanged; concurrent requests share one hashing pass. Everything
 * else (certificate, schema, sidecars, every signature, expiry, chain anchor) is re-read and re-checked on every
 * request. A same-size edit of the trace is therefore reported at most that long after it happens; set 0 to
 * re-hash on every request. See docs/certificates.md, "Verification cost".
 */
import type { Certificate } from '../../core/certificate.ts';
import { isSafeBasename } from '../../core/certificate.ts';
import { sha3Factory, sha3Stream, type HexDigest } from '../../core/hash.ts';
import { signatureDigest } from '../../core/provenance.ts';
import { keys } from '../../core/runs.ts';
import type { Services } from '../../core/services.ts';
import { verifyCertificate, type VerificationCheck, type VerificationResult } from '../../core/verify-certificate.ts';
import { anchorKey, type ChainAnchor } from './issue.ts';
import { publishedKeySet } from './keyset.ts';

interface CachedDigest {
  hex: HexDigest;
  size: number;
  at: number;
}

/** A per-app cache of trace digests, with single-flight hashing. */
export interface TraceDigestCache {
  ttlMs: number;
  entries: Map<string, CachedDigest>;
  inflight: Map<string, Promise<CachedDigest | null>>;
}

/** Creates the cache; `ttlMs` 0 disables it. */
export function createTraceDigestCache(ttlMs: number): TraceDigestCache {
  return { ttlMs, entries: new Map(), inflight: new Map() };
}

const MAX_ENTRIES = 1024;

async function cachedTraceDigest(services: Services, cache: TraceDigestCache, key: string): Promise<{ hex: HexDigest; detail: string } | null> {
  if (cache.ttlMs <= 0) return null;
  const size = await services.store.size(key);
  if (size === null) return null;
  const now = services.now();
  const hit = cache.entries.get(key);
  if (hit && hit.size === size && now - hit.at < cache.ttlMs) return { hex: hit.hex, detail: `hashed ${now - hit.at} ms ago, size unchanged` };
  let pending = cache.inflight.get(key);
  if (!pending) {
    pending = (async () => {
      const stream = await services.store.stream(key);
      if (!stream) return null;
      const at = services.now();
      const digest = await sha3Stream(stream, sha3Factory(services.capabilities));
      const entry = { hex: digest.hex, size: digest.bytes, at };
      if (cache.entries.size >= MAX_ENTRIES) cache.entries.delete(cache.entries.keys().next().value!);
      cache.entries.set(key, entry);
      return entry;
    })().finally(() => cache.inflight.delete(key));
    cache.inflight.set(key, pending);
  }
  const fresh = await pending;
  return fresh ? { hex: fresh.hex, detail: 're-hashed now' } : null;
}

async function checkAnchor(services: Services, certificate: Certificate): Promise<VerificationCheck> {
  const id = 'chain_anchor';
  const anchor = await services.store.getJson<ChainAnchor>(anchorKey(certificate.run_id)).catch(() => null);
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

/** Verifies the stored certificate of a run against its stored artefacts; `null` when it has no certificate. */
export async function verifyStoredRun(services: Services, runId: string, cache: TraceDigestCache): Promise<{ certificate: unknown; result: VerificationResult } | null> {
  const certificate = await services.store.getJson<unknown>(keys.certificate(runId)).catch(() => 'unreadable');
  if (certificate === null) return null;
  const factory = sha3Factory(services.capabilities);
  const result = await verifyCertificate(certificate, {
    keys: await publishedKeySet(services),
    now: services.now(),
    factory,
    source: {
      trace: (file) => (isSafeBasename(file) ? services.store.stream(keys.sidecar(runId, file)) : Promise.resolve(null)),
      sidecar: (file) => (isSafeBasename(file) ? services.store.stream(keys.sidecar(runId, file)) : Promise.resolve(null)),
      cachedTraceDigest: (file) => cachedTraceDigest(services, cache, keys.sidecar(runId, file)),
    },
  });
  if (certificate && typeof certificate === 'object' && (certificate as Certificate).run_id !== runId) {
    result.checks.push({ id: 'run_id', ok: false, detail: `the certificate names run ${(certificate as Certificate).run_id}` });
  }
  if (certificate && typeof certificate === 'object') {
    const anchorCheck = await checkAnchor(services, { ...(certificate as Certificate), run_id: runId });
    result.checks.push(anchorCheck);
  }
  if (result.status !== 'invalid' && result.checks.some((check) => !check.ok && check.id !== 'expiry')) {
    result.status = 'invalid';
    result.valid = false;
  }
  return { certificate, result };
}
