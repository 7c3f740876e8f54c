/**
 * The provenance chain of a certificate: each entry's `signature` is a compact JWS (RFC 7515; EdDSA per
 * RFC 8037, or ES256) with `typ: "aeh-provenance+jws"`, whose payload is the RFC 8785 (JCS) canonical form of
 *
 *   { certificate_digest, previous_digest, identity, role, timestamp, required_roles }
 *
 * `certificate_digest` binds the entry to every field of the certificate but the chain; `previous_digest`
 * (SHA3-256 of the previous entry's `signature` string, `null` for the first) fixes the order so no entry can be
 * removed or moved; `required_roles` lists the roles the complete chain must hold, so cutting entries off the
 * end is caught too. Verification takes keys only from our own published key set, by `kid`, enforces `alg`
 * against that key and `typ`, and never follows a key reference found inside a certificate (`jku`, `jwk`, `x5u`).
 */
// Subpaths, not the 'jose' index: the index loads all of jose's 46 modules at start (issue 26), these ~20.
import { compactVerify } from 'jose/jws/compact/verify';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { importJWK } from 'jose/key/import';
import * as base64url from 'jose/base64url';
import type { JWK } from 'jose';
import { canonicalJson, certificateDigest, type Certificate, type CertificateBody, type ProvenanceEntry, type ProvenanceRole } from './certificate.ts';
import { sha3Hex, type HexDigest, type Sha3Factory } from './hash.ts';
import { SIGNING_ALGORITHMS, type Signer, type SigningAlgorithm } from '../signer.ts';

/** The JWS `typ` of provenance signatures, so they cannot be confused with any other JWS. */
export const PROVENANCE_TYP = 'aeh-provenance+jws';

/** What a provenance signature signs (before JCS). */
export interface ProvenanceStatement {
  certificate_digest: HexDigest;
  previous_digest: HexDigest | null;
  identity: string;
  role: ProvenanceRole;
  timestamp: string;
  /** Roles the complete chain must hold, with multiplicity, sorted. */
  required_roles: ProvenanceRole[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The exact bytes a provenance signature covers: UTF-8 of the JCS form of the statement. */
export function statementBytes(statement: ProvenanceStatement): Uint8Array {
  return encoder.encode(canonicalJson(statement));
}

/** SHA3-256 (hex) of an entry's `signature` string, the next entry's `previous_digest`. */
export function signatureDigest(signature: string, factory?: Sha3Factory): HexDigest {
  return sha3Hex(signature, factory);
}

/** Options of `appendProvenance`. */
export interface AppendProvenanceOptions {
  signer: Signer;
  identity: string;
  role: ProvenanceRole;
  /** ISO 8601 date-time of the signature. */
  timestamp: string;
  /** Roles the complete chain must hold after this entry (this entry's role is added when missing). */
  requiredRoles: ProvenanceRole[];
  factory?: Sha3Factory;
}

/** Signs one entry over the certificate and the chain so far, and returns the certificate with it appended. */
export async function appendProvenance(certificate: Certificate | CertificateBody, options: AppendProvenanceOptions): Promise<Certificate> {
  const chain = (certificate as Certificate).provenance_chain ?? [];
  const required = [...options.requiredRoles];
  const chainRoles = [...chain.map((entry) => entry.role), options.role];
  // An entry may never require fewer entries of a role than the chain it seals already holds.
  for (const role of new Set(chainRoles)) {
    const have = chainRoles.filter((r) => r === role).length;
    const want = required.filter((r) => r === role).length;
    for (let extra = want; extra < have; extra++) required.push(role);
  }
  const statement: ProvenanceStatement = {
    certificate_digest: certificateDigest(certificate, options.factory),
    previous_digest: chain.length ? signatureDigest(chain[chain.length - 1]!.signature, options.factory) : null,
    identity: options.identity,
    role: options.role,
    timestamp: options.timestamp,
    required_roles: required.sort(),
  };
  const signature = await options.signer.sign(statementBytes(statement), { typ: PROVENANCE_TYP });
  const entry: ProvenanceEntry = { identity: options.identity, timestamp: options.timestamp, signature, role: options.role };
  return { ...(certificate as Certificate), provenance_chain: [...chain, entry] };
}

/** The outcome of checking a chain: ok, or the first problem in plain words naming the entry. */
export interface ChainResult {
  ok: boolean;
  detail: string;
  /** Per entry: the `kid` and `alg` that verified it. */
  entries: Array<{ index: number; role: ProvenanceRole; identity: string; kid?: string; alg?: SigningAlgorithm }>;
}

const keyCache = new WeakMap<JWK, Promise<CryptoKey | Uint8Array>>();

function importPublished(jwk: JWK, alg: SigningAlgorithm): Promise<CryptoKey | Uint8Array> {
  let imported = keyCache.get(jwk);
  if (!imported) {
    // Only the public members are imported: a stray `d` in a published set must never become a signing key.
    const publicOnly: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y ? { y: jwk.y } : {}) };
    imported = importJWK(publicOnly, alg) as Promise<CryptoKey | Uint8Array>;
    keyCache.set(jwk, imported);
  }
  return imported;
}

function keyFits(jwk: JWK, alg: SigningAlgorithm): boolean {
  if (jwk.alg !== undefined && jwk.alg !== alg) return false;
  if (jwk.use !== undefined && jwk.use !== 'sig') return false;
  return alg === 'EdDSA' ? jwk.kty === 'OKP' && jwk.crv === 'Ed25519' : jwk.kty === 'EC' && jwk.crv === 'P-256';
}

function parseStatement(payload: Uint8Array): ProvenanceStatement | null {
  try {
    const value = JSON.parse(decoder.decode(payload)) as ProvenanceStatement;
    return value && typeof value === 'object' && Array.isArray(value.required_roles) ? value : null;
  } catch {
    return null;
  }
}

function countRoles(roles: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const role of roles) counts.set(role, (counts.get(role) ?? 0) + 1);
  return counts;
}

/**
 * Verifies every signature of a certificate's chain, in order, against a key set.
 * @param keys our own published keys (`GET /.well-known/jwks.json`); keys are chosen from here only, by `kid`
 */
export async function verifyProvenance(certificate: Certificate, keys: JWK[], factory?: Sha3Factory): Promise<ChainResult> {
  const chain = certificate.provenance_chain;
  const entries: ChainResult['entries'] = [];
  const fail = (detail: string): ChainResult => ({ ok: false, detail, entries });
  if (!Array.isArray(chain) || chain.length === 0) return fail('the provenance chain is empty');
  if (chain[0]!.role !== 'Evaluator') return fail(`entry 0 is a ${chain[0]!.role} entry; a chain starts with the Evaluator's`);
  const digest = certificateDigest(certificate, factory);
  const byKid = new Map<string, JWK>();
  for (const key of keys) if (typeof key.kid === 'string' && !byKid.has(key.kid)) byKid.set(key.kid, key);

  const requiredByEntry: ProvenanceRole[][] = [];
  for (const [index, entry] of chain.entries()) {
    const name = `entry ${index} (${entry.role} "${entry.identity}")`;
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      if (entry.signature.split('.').length !== 3) throw new Error('not compact');
      header = decodeProtectedHeader(entry.signature);
    } catch {
      return fail(`${name}: the signature is not a compact JWS`);
    }
    if (header.typ !== PROVENANCE_TYP) return fail(`${name}: JWS typ is ${JSON.stringify(header.typ)}, expected "${PROVENANCE_TYP}"`);
    const alg = header.alg as SigningAlgorithm;
    if (!SIGNING_ALGORITHMS.includes(alg)) return fail(`${name}: JWS alg ${JSON.stringify(header.alg)} is not accepted (EdDSA or ES256)`);
    if (typeof header.kid !== 'string') return fail(`${name}: the JWS header names no kid`);
    const jwk = byKid.get(header.kid);
    if (!jwk) return fail(`${name}: kid "${header.kid}" is not in the published key set`);
    if (!keyFits(jwk, alg)) return fail(`${name}: key "${header.kid}" is not an ${alg} signing key`);
    let payload: Uint8Array;
    try {
      const key = await importPublished(jwk, alg);
      // `crit` extensions are refused by jose; only the one algorithm of the chosen key is allowed.
      ({ payload } = await compactVerify(entry.signature, key, { algorithms: [alg] }));
    } catch {
      return fail(`${name}: the signature does not verify with key "${header.kid}"`);
    }
    const statement = parseStatement(payload);
    if (!statement) return fail(`${name}: the signed payload is not a provenance statement`);
    const expectedPrevious = index === 0 ? null : signatureDigest(chain[index - 1]!.signature, factory);
    if (statement.certificate_digest !== digest) return fail(`${name}: signed for a different certificate body (a field of the certificate was changed)`);
    if (statement.previous_digest !== expectedPrevious) return fail(`${name}: does not follow entry ${index - 1} as signed (entries were removed or reordered)`);
    for (const field of ['identity', 'role', 'timestamp'] as const) {
      if (statement[field] !== entry[field]) return fail(`${name}: ${field} differs from the signed value`);
    }
    const expected: ProvenanceStatement = { ...statement, required_roles: [...statement.required_roles] };
    // The payload must be exactly the JCS bytes: no extra members, no other serialisation of the same values.
    if (base64url.encode(statementBytes(expected)) !== entry.signature.split('.')[1]) return fail(`${name}: the signed payload is not the canonical statement`);
    requiredByEntry.push(statement.required_roles);
    entries.push({ index, role: entry.role, identity: entry.identity, kid: header.kid, alg });
  }
  const held = countRoles(chain.map((entry) => entry.role));
  for (const [index, required] of requiredByEntry.entries()) {
    for (const [role, count] of countRoles(required)) {
      if ((held.get(role) ?? 0) < count) return fail(`entry ${index} requires ${count} ${role} entr${count === 1 ? 'y' : 'ies'}, the chain holds ${held.get(role) ?? 0} (entries were dropped)`);
    }
  }
  return { ok: true, detail: `${chain.length} signature(s) verified in order (${chain.map((entry) => entry.role).join(' → ')})`, entries };
}
