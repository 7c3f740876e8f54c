/**
 * The Verification Certificate, version 3.0.0 (service-spec.md, "Verification Certificate"): its type, how
 * its unsigned body is built from a run's hashes, its digest (what every provenance signature covers), schema
 * validation and expiry. Signing and chain verification live in `provenance.ts`; full verification in
 * `verify-certificate.ts`.
 */
import type { AttackNumbers, AttackSummary, Rate } from './attack-summary.ts';
import type { VerdictGate, VerdictPolicy } from './verdict-policy.ts';
import type { PolicyLoosening } from './policy-strength.ts';
import canonicalize from 'canonicalize';
import { HASH_ALGORITHM, sha3Hex, type HexDigest, type Sha3Factory } from './hash.ts';
import { certificateSchema, PROVENANCE_ROLES, COMPLIANCE_STATUSES } from './schemas/certificate.ts';
import { check } from '../validate.ts';
import type { FieldError } from '../problems.ts';

/** The one certificate format version this service writes and accepts. */
export const VC_VERSION = '3.0.0';

export type ProvenanceRole = (typeof PROVENANCE_ROLES)[number];
export type CertificateComplianceStatus = (typeof COMPLIANCE_STATUSES)[number];

/** One `provenance_chain` entry. */
export interface ProvenanceEntry {
  identity: string;
  /** ISO 8601 date-time. */
  timestamp: string;
  /** Compact JWS (docs/certificates.md, "Signed bytes"). */
  signature: string;
  role: ProvenanceRole;
}

/** The certificate, as written to `runs/<run_id>/certificate.json`. */
export interface Certificate {
  vc_version: typeof VC_VERSION;
  harness_version?: string;
  run_id: string;
  trace_hash: HexDigest;
  hash_algorithm: typeof HASH_ALGORITHM;
  trace_file: string;
  /**
   * `reason`, with status `error` only: why the run has no verdict. `policy`: the verdict policy applied;
   * `decided_by`: the gate that decided the status (core/domain/verdict.ts). Both signed with the rest.
   */
  compliance: CertificateCompliance;
  /** Sidecar basename → SHA3-256 of its bytes. */
  evidence_ledger: Record<string, HexDigest>;
  provenance_chain: ProvenanceEntry[];
  /** Days from the Evaluator entry's timestamp until the certificate expires. */
  governance_ttl?: number;
  /**
   * Present only when the run (or a suite's runs) took answers from the response cache: how many, of every
   * answer it used. Signed with the rest, so a gate can refuse a result measured on cached answers.
   */
  cache?: CertificateCache;
  /**
   * Which scenario was run (issue 32 item 7): its id, its content hash (core/domain/scenario-identity.ts) and
   * where it came from (`catalog`, `file`, `inline`), so a gate can tell the catalog's scenario from another
   * document under its id. Absent in certificates of runs recorded before it.
   */
  scenario?: CertificateScenario;
  /**
   * With attacks (issue 35): utility, utility under attack and the targeted attack success rate, pooled and per
   * attack (core/domain/attack-summary.ts). Absent in certificates of runs without attacks, and of older runs.
   */
  attacks?: CertificateAttacks;
}

/** The `attacks` member of a certificate: the run's attack numbers, without the lists of task ids. */
export type CertificateAttacks = Omit<AttackSummary, 'not_injectable' | 'by_attack'> & { by_attack: Array<Pick<AttackNumbers, 'attack' | 'dos' | 'cases' | 'utility_under_attack' | 'asr'>> };

/** The certificate's attack member from a run's summary (a copy with only the signed fields). */
export function certificateAttacks(summary: AttackSummary): CertificateAttacks {
  const rate = ({ count, total, rate: value }: Rate): Rate => ({ count, total, rate: value });
  return {
    utility: rate(summary.utility), utility_under_attack: rate(summary.utility_under_attack), targeted_asr: rate(summary.targeted_asr),
    by_attack: summary.by_attack.map((entry) => ({ attack: entry.attack, dos: entry.dos, cases: entry.cases, utility_under_attack: rate(entry.utility_under_attack), asr: rate(entry.asr) })),
  };
}

/** The `scenario` member of a certificate (core/domain/scenario-identity.ts computes it). */
export interface CertificateScenario {
  id: string;
  content_hash: HexDigest;
  origin: 'catalog' | 'file' | 'inline';
}

/** The `compliance` member of a certificate. */
export interface CertificateCompliance {
  status: CertificateComplianceStatus;
  score: number;
  policy_ref: string;
  reason?: string;
  policy?: VerdictPolicy;
  /** Present when `policy` gates less than the defaults: each loosened field (core/domain/policy-strength.ts). */
  policy_relaxed?: PolicyLoosening[];
  decided_by?: { gate: VerdictGate; reason: string };
}

/** The `cache` member of a certificate. */
export interface CertificateCache {
  /** Answers taken from the response cache instead of the agent. */
  cached_calls: number;
  /** Every agent answer the run used: calls made plus cached answers. */
  agent_calls: number;
}

/** Everything of a certificate except `provenance_chain`: the part every signature covers. */
export type CertificateBody = Omit<Certificate, 'provenance_chain'>;

/** Options of `buildCertificateBody`. */
export interface CertificateBodyInput {
  runId: string;
  harnessVersion: string;
  traceHash: HexDigest;
  traceFile: string;
  compliance: Certificate['compliance'];
  evidenceLedger: Record<string, HexDigest>;
  governanceTtlDays: number;
  /** How many answers came from the response cache; the body says so only when some did. */
  cache?: CertificateCache;
  /** The scenario's identity, when the run recorded one. */
  scenario?: CertificateScenario;
  /** The run's attack numbers, when it made attacks. */
  attacks?: AttackSummary;
}

/** Builds the unsigned body, with keys in the spec's table order (readable files; the digest uses JCS anyway). */
export function buildCertificateBody(input: CertificateBodyInput): CertificateBody {
  return {
    vc_version: VC_VERSION,
    harness_version: input.harnessVersion,
    run_id: input.runId,
    trace_hash: input.traceHash.toLowerCase(),
    hash_algorithm: HASH_ALGORITHM,
    trace_file: input.traceFile,
    compliance: {
      status: input.compliance.status, score: input.compliance.score, policy_ref: input.compliance.policy_ref,
      ...(input.compliance.status === 'error' && input.compliance.reason ? { reason: input.compliance.reason.slice(0, 1000) } : {}),
      ...(input.compliance.policy ? { policy: input.compliance.policy } : {}),
      ...(input.compliance.policy_relaxed?.length ? { policy_relaxed: input.compliance.policy_relaxed } : {}),
      ...(input.compliance.decided_by ? { decided_by: { gate: input.compliance.decided_by.gate, reason: input.compliance.decided_by.reason.slice(0, 1000) } } : {}),
    },
    evidence_ledger: Object.fromEntries(Object.entries(input.evidenceLedger).sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, hex]) => [name, hex.toLowerCase()])),
    governance_ttl: input.governanceTtlDays,
    ...(input.cache && input.cache.cached_calls > 0 ? { cache: { cached_calls: input.cache.cached_calls, agent_calls: input.cache.agent_calls } } : {}),
    ...(input.scenario ? { scenario: { id: input.scenario.id, content_hash: input.scenario.content_hash.toLowerCase(), origin: input.scenario.origin } } : {}),
    ...(input.attacks ? { attacks: certificateAttacks(input.attacks) } : {}),
  };
}

/** The body of a certificate: a copy without `provenance_chain`. */
export function certificateBody(certificate: Certificate | CertificateBody): CertificateBody {
  const { provenance_chain: _chain, ...body } = certificate as Certificate;
  return body;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A copy with every lone surrogate replaced by U+FFFD: RFC 8785 refuses them (`canonicalJson` throws), and what a
 * request sends (a spec, a scenario, a body) may carry any text. Hash `canonicalJson(wellFormed(value))`.
 */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\ufffd');
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [wellFormed(key) as string, wellFormed(item)]));
  return value;
}

/** RFC 8785 (JCS) canonical JSON of a value; throws for values JSON cannot hold. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/**
 * The certificate digest: SHA3-256 (hex) of the JCS form of the certificate without `provenance_chain`.
 * Every provenance signature covers it, so changing any field (hashes, compliance, ttl) breaks them all.
 */
export function certificateDigest(certificate: Certificate | CertificateBody, factory?: Sha3Factory): HexDigest {
  return sha3Hex(canonicalJson(certificateBody(certificate)), factory);
}

/** Schema errors of a certificate (empty when it is a valid 3.0.0 certificate). */
export function validateCertificate(value: unknown): FieldError[] {
  return check(certificateSchema as unknown as Record<string, unknown>, value);
}

/**
 * When a certificate expires: the first Evaluator entry's timestamp plus `governance_ttl` days, or `null`
 * when it sets no ttl (the field is optional in the spec). The timestamp is signed, so the date cannot be moved.
 */
export function certificateExpiry(certificate: Pick<Certificate, 'provenance_chain' | 'governance_ttl'>): Date | null {
  if (certificate.governance_ttl === undefined) return null;
  const issued = certificate.provenance_chain.find((entry) => entry.role === 'Evaluator');
  const issuedAt = issued ? Date.parse(issued.timestamp) : Number.NaN;
  if (Number.isNaN(issuedAt)) return new Date(Number.NaN);
  return new Date(issuedAt + certificate.governance_ttl * 86_400_000);
}

const BASENAME = /^(?!\.\.?$)[^/\\\u0000]+$/;

/** True when `name` is a single path segment (safe to join onto a run folder). */
export function isSafeBasename(name: string): boolean {
  return name.length > 0 && name.length <= 255 && BASENAME.test(name);
}
