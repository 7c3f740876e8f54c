/**
 * Full verification of a certificate against its artefacts, shared by `GET /api/v1/verify/:run_id` and the
 * offline `aeh verify`: schema, trace hash, evidence ledger, every signature in order, expiry. Artefacts are
 * read through callbacks (a store, a folder) and hashed as streams, so nothing here depends on where they live.
 */
import { certificateExpiry, isSafeBasename, validateCertificate, type Certificate } from './certificate.ts';
import { digestsEqual, nobleSha3, sha3Stream, toHex, type HexDigest, type Sha3Factory } from './hash.ts';
import { verifyProvenance } from './provenance.ts';
import type { JWK } from 'jose';
import { describeErrors } from '../validate.ts';

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

/**
 * An artefact's SHA3-256 computed by the caller: from its bytes now, or `reused` from an earlier hashing
 * because the store proves the bytes unchanged since (docs/certificates.md "Verification cost").
 */
export interface ArtefactDigest {
  sha3_256: HexDigest;
  reused: boolean;
}

/** An artefact's bytes: streamed (large files), whole (small files), its digest, or `null` when missing. */
export type ArtefactBytes = ReadableStream<Uint8Array> | Uint8Array | ArtefactDigest | null;

/** Where the artefacts of a certificate are read from. */
export interface ArtefactSource {
  /** The trace's bytes (stream them: traces can be large). */
  trace(fileName: string): Promise<ArtefactBytes>;
  /** A sidecar's bytes. */
  sidecar(fileName: string): Promise<ArtefactBytes>;
}

/**
 * The checks that depend only on the certificate and the key set (schema, signatures, required roles) and its
 * expiry date: a pure function of the two, so a caller may keep it for identical certificate bytes.
 */
export interface DocumentVerification {
  checks: VerificationCheck[];
  /** Expiry, `null` without a ttl, or `undefined` when the certificate cannot be dated. */
  expiresAt: Date | null | undefined;
  undatedReason?: string;
}

/** Options of `verifyCertificate`. */
export interface VerifyOptions {
  /** Our published public keys; the only keys signatures are checked against. */
  keys: JWK[];
  /**
   * Where the evidence is read from; `null` checks the certificate alone (a run whose evidence retention deleted,
   * `aeh verify --certificate-only`): the hashes it records are signed, but nothing is re-hashed against them.
   */
  source: ArtefactSource | null;
  now: number;
  factory?: Sha3Factory;
  /** Roles the chain must hold (`aeh verify --require-role Auditor`). */
  requireRoles?: string[];
  /** `verifyDocument` of these exact certificate bytes and keys, when the caller kept it. */
  document?: DocumentVerification;
}

async function hashOf(bytes: ArtefactBytes, factory: Sha3Factory = nobleSha3): Promise<HexDigest | null> {
  if (bytes === null) return null;
  if (bytes instanceof Uint8Array) return toHex(factory().update(bytes).digest());
  if ('sha3_256' in bytes) return bytes.sha3_256;
  return (await sha3Stream(bytes, factory)).hex;
}

const reused = (bytes: ArtefactBytes): boolean => bytes !== null && !(bytes instanceof Uint8Array) && 'sha3_256' in bytes && bytes.reused;

async function checkTrace(certificate: Certificate, options: VerifyOptions & { source: ArtefactSource }): Promise<VerificationCheck> {
  const id = 'trace_hash';
  if (!isSafeBasename(String(certificate.trace_file))) return { id, ok: false, detail: `trace_file "${certificate.trace_file}" is not a plain file name` };
  const bytes = await options.source.trace(certificate.trace_file);
  const actual = await hashOf(bytes, options.factory);
  if (actual === null) return { id, ok: false, detail: `the trace ${certificate.trace_file} is missing` };
  if (!digestsEqual(actual, String(certificate.trace_hash))) {
    return { id, ok: false, detail: `the trace ${certificate.trace_file} hashes to ${actual}, the certificate says ${certificate.trace_hash}` };
  }
  return { id, ok: true, detail: `SHA3-256 of ${certificate.trace_file} matches${reused(bytes) ? ' (unchanged since hashed, by the store\'s change proof)' : ''}` };
}

async function checkLedger(certificate: Certificate, options: VerifyOptions & { source: ArtefactSource }): Promise<VerificationCheck> {
  const id = 'evidence_ledger';
  const ledger = certificate.evidence_ledger && typeof certificate.evidence_ledger === 'object' ? certificate.evidence_ledger : {};
  const problems: string[] = [];
  const names = Object.keys(ledger).sort();
  let unchanged = 0;
  for (const name of names) {
    if (!isSafeBasename(name)) {
      problems.push(`"${name}" is not a plain file name`);
      continue;
    }
    const bytes = await options.source.sidecar(name);
    if (reused(bytes)) unchanged++;
    const actual = await hashOf(bytes, options.factory);
    if (actual === null) problems.push(`${name} is missing`);
    else if (!digestsEqual(actual, String(ledger[name]))) problems.push(`${name} hashes to ${actual}, the ledger says ${ledger[name]}`);
  }
  if (problems.length) return { id, ok: false, detail: problems.join('; ') };
  const proof = unchanged ? ` (${unchanged === names.length ? 'all' : unchanged} unchanged since hashed, by the store's change proof)` : '';
  return { id, ok: true, detail: names.length ? `${names.length} sidecar(s) match: ${names.join(', ')}${proof}` : 'the ledger lists no sidecars' };
}

function expiryOf(certificate: Certificate): Pick<DocumentVerification, 'expiresAt' | 'undatedReason'> {
  const datable = Array.isArray(certificate.provenance_chain) && certificate.provenance_chain.every((entry) => entry !== null && typeof entry === 'object');
  if (!datable) return { expiresAt: undefined, undatedReason: 'no chain to date the certificate from' };
  const expiresAt = certificateExpiry(certificate);
  if (expiresAt !== null && Number.isNaN(expiresAt.getTime())) return { expiresAt: undefined, undatedReason: 'no Evaluator entry with a valid timestamp to count governance_ttl from' };
  return { expiresAt };
}

function checkExpiry(document: DocumentVerification, ttl: unknown, now: number): VerificationCheck {
  const id = 'expiry';
  const { expiresAt } = document;
  if (expiresAt === undefined) return { id, ok: false, detail: document.undatedReason ?? 'the certificate cannot be dated' };
  if (expiresAt === null) return { id, ok: true, detail: 'the certificate sets no governance_ttl' };
  const ok = now < expiresAt.getTime();
  return { id, ok, detail: ok ? `valid until ${expiresAt.toISOString()}` : `expired at ${expiresAt.toISOString()} (governance_ttl ${ttl} days)` };
}

/** The checks of the certificate itself against a key set: schema, signatures in order, required roles. */
export async function verifyDocument(value: unknown, options: Pick<VerifyOptions, 'keys' | 'factory' | 'requireRoles'>): Promise<DocumentVerification> {
  const schemaErrors = validateCertificate(value);
  const checks: VerificationCheck[] = [
    { id: 'schema', ok: schemaErrors.length === 0, detail: schemaErrors.length ? describeErrors(schemaErrors, 5) : 'a valid 3.0.0 certificate' },
  ];
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    checks.push({ id: 'signatures', ok: false, detail: 'the certificate is not a JSON object' });
    return { checks, expiresAt: undefined, undatedReason: 'the certificate is not a JSON object' };
  }
  const certificate = value as Certificate;
  const chain = Array.isArray(certificate.provenance_chain)
    ? await verifyProvenance(certificate, options.keys, options.factory).catch((error: Error) => ({ ok: false, detail: `chain could not be read: ${error.message}` }))
    : { ok: false, detail: 'provenance_chain is not an array' };
  checks.push({ id: 'signatures', ok: chain.ok, detail: chain.detail });
  if (options.requireRoles?.length) {
    const held = new Set((Array.isArray(certificate.provenance_chain) ? certificate.provenance_chain : []).map((entry) => entry?.role));
    const missing = options.requireRoles.filter((role) => !held.has(role as Certificate['provenance_chain'][number]['role']));
    checks.push({ id: 'required_roles', ok: missing.length === 0, detail: missing.length ? `the chain holds no ${missing.join(', ')} entry` : `the chain holds ${options.requireRoles.join(', ')}` });
  }
  return { checks, ...expiryOf(certificate) };
}

/**
 * Verifies a certificate: every check runs (so a report names every problem, not only the first), then
 * `status` is `invalid` when an integrity check failed, `expired` when only expiry failed, `valid` otherwise.
 */
export async function verifyCertificate(value: unknown, options: VerifyOptions): Promise<VerificationResult> {
  const document = options.document ?? (await verifyDocument(value, options));
  const [schema, ...documentChecks] = document.checks;
  const checks: VerificationCheck[] = [schema!];
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    for (const id of ['trace_hash', 'evidence_ledger']) checks.push({ id, ok: false, detail: 'the certificate is not a JSON object' });
  } else {
    const certificate = value as Certificate;
    if (options.source === null) {
      const detail = 'not re-hashed (certificate only): the signatures cover the hash it records';
      checks.push({ id: 'trace_hash', ok: true, detail }, { id: 'evidence_ledger', ok: true, detail });
    } else {
      const source = options.source;
      checks.push(await checkTrace(certificate, { ...options, source }));
      checks.push(await checkLedger(certificate, { ...options, source }));
    }
  }
  checks.push(...documentChecks);
  const expiry = checkExpiry(document, (value as Certificate | null)?.governance_ttl, options.now);
  checks.push(expiry);
  const integrityOk = checks.every((check) => check.ok || check.id === 'expiry');
  const status: VerificationStatus = !integrityOk ? 'invalid' : expiry.ok ? 'valid' : 'expired';
  return { valid: status === 'valid', status, checks, expires_at: document.expiresAt ? document.expiresAt.toISOString() : null };
}
