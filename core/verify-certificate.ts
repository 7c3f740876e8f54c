/**
 * Full verification of a certificate against its artefacts, shared by `GET /api/v1/verify/:run_id` and the
 * offline `aeh verify`: schema, trace hash, evidence ledger, every signature in order, expiry. Artefacts are
 * read through callbacks (a store, a folder) and hashed as streams, so nothing here depends on where they live.
 */
import { certificateExpiry, isSafeBasename, validateCertificate, type Certificate } from './certificate.ts';
import { digestsEqual, sha3Stream, type HexDigest, type Sha3Factory } from './hash.ts';
import { verifyProvenance } from './provenance.ts';
import type { JWK } from 'jose';

/** One named check of a verification (`checks[]` of the verify response). */
export interface VerificationCheck {
  id: string;
  ok: boolean;
  detail: string;
}

/** `status` of the verify response. */
export type VerificationStatus = 'valid' | 'invalid' | 'expired';

export interface VerificationResult {
  valid: boolean;
  status: VerificationStatus;
  checks: VerificationCheck[];
  /** When the certificate expires (ISO 8601), or `null` when it sets no ttl. */
  expires_at: string | null;
}

/** Where the artefacts of a certificate are read from. */
export interface ArtefactSource {
  /** The trace's bytes as a stream, or `null` when it is missing. */
  trace(fileName: string): Promise<ReadableStream<Uint8Array> | null>;
  /** A sidecar's bytes as a stream, or `null` when it is missing. */
  sidecar(fileName: string): Promise<ReadableStream<Uint8Array> | null>;
  /**
   * The trace digest from a cache that the caller keeps sound, instead of re-hashing (the service's verify
   * route; see docs/certificates.md "Verification cost"). Returns `null` to hash the stream.
   */
  cachedTraceDigest?(fileName: string): Promise<{ hex: HexDigest; detail: string } | null>;
}

/** Options of `verifyCertificate`. */
export interface VerifyOptions {
  /** Our published public keys; the only keys signatures are checked against. */
  keys: JWK[];
  source: ArtefactSource;
  now: number;
  factory?: Sha3Factory;
  /** Roles the chain must hold (`aeh verify --require-role Auditor`). */
  requireRoles?: string[];
}

async function hashOf(stream: ReadableStream<Uint8Array> | null, factory?: Sha3Factory): Promise<HexDigest | null> {
  return stream ? (await sha3Stream(stream, factory)).hex : null;
}

async function checkTrace(certificate: Certificate, options: VerifyOptions): Promise<VerificationCheck> {
  const id = 'trace_hash';
  if (!isSafeBasename(String(certificate.trace_file))) return { id, ok: false, detail: `trace_file "${certificate.trace_file}" is not a plain file name` };
  const cached = await options.source.cachedTraceDigest?.(certificate.trace_file);
  const actual = cached?.hex ?? (await hashOf(await options.source.trace(certificate.trace_file), options.factory));
  if (actual === null) return { id, ok: false, detail: `the trace ${certificate.trace_file} is missing` };
  if (!digestsEqual(actual, String(certificate.trace_hash))) {
    return { id, ok: false, detail: `the trace ${certificate.trace_file} hashes to ${actual}, the certificate says ${certificate.trace_hash}` };
  }
  return { id, ok: true, detail: `SHA3-256 of ${certificate.trace_file} matches${cached ? ` (${cached.detail})` : ''}` };
}

async function checkLedger(certificate: Certificate, options: VerifyOptions): Promise<VerificationCheck> {
  const id = 'evidence_ledger';
  const ledger = certificate.evidence_ledger && typeof certificate.evidence_ledger === 'object' ? certificate.evidence_ledger : {};
  const problems: string[] = [];
  const names = Object.keys(ledger).sort();
  for (const name of names) {
    if (!isSafeBasename(name)) {
      problems.push(`"${name}" is not a plain file name`);
      continue;
    }
    const actual = await hashOf(await options.source.sidecar(name), options.factory);
    if (actual === null) problems.push(`${name} is missing`);
    else if (!digestsEqual(actual, String(ledger[name]))) problems.push(`${name} hashes to ${actual}, the ledger says ${ledger[name]}`);
  }
  if (problems.length) return { id, ok: false, detail: problems.join('; ') };
  return { id, ok: true, detail: names.length ? `${names.length} sidecar(s) match: ${names.join(', ')}` : 'the ledger lists no sidecars' };
}

function checkExpiry(certificate: Certificate, now: number): { check: VerificationCheck; expiresAt: Date | null } {
  const id = 'expiry';
  const expiresAt = certificateExpiry(certificate);
  if (expiresAt === null) return { check: { id, ok: true, detail: 'the certificate sets no governance_ttl' }, expiresAt };
  if (Number.isNaN(expiresAt.getTime())) return { check: { id, ok: false, detail: 'no Evaluator entry with a valid timestamp to count governance_ttl from' }, expiresAt: null };
  const ok = now < expiresAt.getTime();
  return {
    check: { id, ok, detail: ok ? `valid until ${expiresAt.toISOString()}` : `expired at ${expiresAt.toISOString()} (governance_ttl ${certificate.governance_ttl} days)` },
    expiresAt,
  };
}

/**
 * Verifies a certificate: every check runs (so a report names every problem, not only the first), then
 * `status` is `invalid` when an integrity check failed, `expired` when only expiry failed, `valid` otherwise.
 */
export async function verifyCertificate(value: unknown, options: VerifyOptions): Promise<VerificationResult> {
  const schemaErrors = validateCertificate(value);
  const checks: VerificationCheck[] = [
    { id: 'schema', ok: schemaErrors.length === 0, detail: schemaErrors.length ? schemaErrors.slice(0, 5).map((error) => `${error.path} ${error.message}`).join('; ') : 'a valid 3.0.0 certificate' },
  ];
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    for (const id of ['trace_hash', 'evidence_ledger', 'signatures', 'expiry']) checks.push({ id, ok: false, detail: 'the certificate is not a JSON object' });
    return { valid: false, status: 'invalid', checks, expires_at: null };
  }
  const certificate = value as Certificate;
  checks.push(await checkTrace(certificate, options));
  checks.push(await checkLedger(certificate, options));
  const chain = Array.isArray(certificate.provenance_chain) ? await verifyProvenance(certificate, options.keys, options.factory).catch((error: Error) => ({ ok: false, detail: `chain could not be read: ${error.message}`, entries: [] })) : { ok: false, detail: 'provenance_chain is not an array', entries: [] };
  checks.push({ id: 'signatures', ok: chain.ok, detail: chain.detail });
  if (options.requireRoles?.length) {
    const held = new Set((certificate.provenance_chain ?? []).map((entry) => entry.role));
    const missing = options.requireRoles.filter((role) => !held.has(role as Certificate['provenance_chain'][number]['role']));
    checks.push({ id: 'required_roles', ok: missing.length === 0, detail: missing.length ? `the chain holds no ${missing.join(', ')} entry` : `the chain holds ${options.requireRoles.join(', ')}` });
  }
  const expiry = Array.isArray(certificate.provenance_chain) ? checkExpiry(certificate, options.now) : { check: { id: 'expiry', ok: false, detail: 'no chain to date the certificate from' }, expiresAt: null };
  checks.push(expiry.check);
  const integrityOk = checks.every((check) => check.ok || check.id === 'expiry');
  const status: VerificationStatus = !integrityOk ? 'invalid' : expiry.check.ok ? 'valid' : 'expired';
  return { valid: status === 'valid', status, checks, expires_at: expiry.expiresAt && !Number.isNaN(expiry.expiresAt.getTime()) ? expiry.expiresAt.toISOString() : null };
}
