/**
 * Issuing certificates: on `run.finished` the trace and the four sidecars are hashed (streamed), the body is
 * built from the run record, the Evaluator entry (and one Agent entry per agent identity that signed its
 * output) is signed, and `runs/<run_id>/certificate.json` is written atomically. `appendAuditor` adds an
 * Auditor entry later (`POST /api/v1/runs/:run_id/sign`).
 */
import type { AttackSummary } from '../../core/domain/attack-summary.ts';
import type { VerdictGate, VerdictPolicy } from '../../core/domain/verdict-policy.ts';
import { buildCertificateBody, certificateDigest, validateCertificate, type Certificate, type ProvenanceRole } from '../../core/domain/certificate.ts';
import { sha3Factory, toHex, type HexDigest } from '../../core/domain/hash.ts';
import { appendProvenance, signatureDigest } from '../../core/domain/provenance.ts';
import { keys, OPTIONAL_SIDECARS, SIDECARS, TRACE_FILE, type EvidenceDigests, type RunRecord } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import { selectSigner } from '../../core/signer.ts';
import { readEvidence } from '../../core/domain/packed-evidence.ts';
import type { Services } from '../../core/services.ts';
import { HARNESS_VERSION, PRODUCT_NAME } from '../../core/version.ts';
import { describeErrors } from '../../core/validate.ts';
import { policyLoosenings } from '../../core/domain/policy-strength.ts';


/** Storage key of the chain anchor: how many entries the chain held and the digest of the last signature. */
export const anchorKey = (runId: string) => `runs/${runId}/certificate.anchor.json`;

/** How many entries a chain held and the digest of its last signature. */
export interface AnchorPoint {
  entries: number;
  head: HexDigest;
}

/**
 * The chain anchor (see docs/certificates.md "Dropped entries"). `pending` is the chain being written: set
 * before the certificate is written and dropped after, so a crash between the two writes leaves an anchor that
 * accepts the old chain and the new one, never a false `chain_anchor` failure.
 */
export interface ChainAnchor extends AnchorPoint {
  pending?: AnchorPoint;
}

interface RunSummary {
  compliance?: { status?: string; score?: number; policy_ref?: string; reason?: string; policy?: VerdictPolicy; decided_by?: { gate: VerdictGate; reason: string } };
  agent_signatures?: Array<{ identity?: unknown; jws?: unknown; task_id?: unknown; verified?: unknown }>;
  usage?: { calls?: unknown; cached_calls?: unknown };
  attacks?: AttackSummary;
}

/** How many answers the run took from the response cache, from `summary.json` (which the ledger covers too). */
function cacheOf(summary: RunSummary | null): Certificate['cache'] {
  const cached = summary?.usage?.cached_calls;
  const calls = summary?.usage?.calls;
  if (typeof cached !== 'number' || !Number.isSafeInteger(cached) || cached <= 0) return undefined;
  return { cached_calls: cached, agent_calls: cached + (typeof calls === 'number' && Number.isSafeInteger(calls) && calls > 0 ? calls : 0) };
}

/** The bytes of the sidecars the engine just stored, by file name (the `run.finished` hook's `evidence`). */
export type StoredEvidence = Readonly<Record<string, Uint8Array>>;

/**
 * An evidence file's digest: of the bytes as judged, rebuilt from its packed form when stored packed; of the
 * bytes the engine stored when it hands them over (`given`).
 */
async function hashEvidence(services: Services, runId: string, file: string, given?: StoredEvidence, known?: EvidenceDigests): Promise<HexDigest | null> {
  const digest = known?.files?.[file];
  if (digest !== undefined) return digest as HexDigest;
  const bytes = given?.[file] ?? (await readEvidence(services.store, runId, file));
  return bytes === null ? null : toHex(sha3Factory(services.capabilities)().update(bytes).digest());
}

/** `summary.json`, from the bytes handed over or from storage; `null` when absent or not JSON. */
async function readSummary(services: Services, runId: string, given?: StoredEvidence): Promise<RunSummary | null> {
  // Stored whole or in the run's bundle (core/domain/evidence-bundle.ts): the bytes the ledger hashes either way.
  const bytes = given?.[SIDECARS.summary] ?? (await readEvidence(services.store, runId, SIDECARS.summary));
  if (!bytes) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as RunSummary;
  } catch {
    return null;
  }
}

/**
 * The trace's digest: the engine's running one while the stored trace holds exactly the bytes it covers (a
 * failed append that left some bytes behind makes it longer: then it is read and hashed, as stored).
 */
async function hashTrace(services: Services, key: string, known?: EvidenceDigests['trace']): Promise<HexDigest | null> {
  if (known && (await services.store.size(key)) === known.bytes) return known.sha3 as HexDigest;
  return hashKey(services, key);
}

async function hashKey(services: Services, key: string): Promise<HexDigest | null> {
  const hash = sha3Factory(services.capabilities)();
  return (await services.store.hashInto(key, hash)) === null ? null : toHex(hash.digest());
}

function complianceOf(run: RunRecord | null, summary: RunSummary | null): Certificate['compliance'] {
  const recorded = run?.compliance ?? summary?.compliance;
  if (recorded && typeof recorded.status === 'string' && typeof recorded.score === 'number') {
    // An error says why (the run could not complete, or nothing was measured), signed with the rest.
    const reason = recorded.status === 'error' && typeof recorded.reason === 'string' ? { reason: recorded.reason } : {};
    // The policy applied and the gate that decided are signed with the status they explain.
    const decided = recorded.policy && recorded.decided_by ? { policy: recorded.policy, decided_by: recorded.decided_by } : {};
    // Worked out again from the policy signed, not copied: a gate must be able to trust that a relaxed policy says so.
    const relaxed = recorded.policy ? policyLoosenings(recorded.policy) : [];
    return { status: recorded.status as Certificate['compliance']['status'], score: recorded.score, policy_ref: String(recorded.policy_ref ?? 'NIST AI 100-1'), ...reason, ...decided, ...(relaxed.length ? { policy_relaxed: relaxed } : {}) };
  }
  // A run that could not complete has no score; the certificate still records that outcome.
  return { status: 'error', score: 0, policy_ref: String(recorded?.policy_ref ?? 'NIST AI 100-1'), ...(run?.error?.message ? { reason: `the run could not complete: ${run.error.message}` } : {}) };
}

/**
 * Writes the certificate between two anchor writes: announce the new chain, write it, then commit to it. A first
 * issue (`first`: no certificate stored before, and no anchor) writes no anchor (issue 36: one atomic write less
 * per run). The anchor guards against rolling a chain back to an earlier complete one, and a first issue has
 * none: its signatures bind every entry it holds (the Evaluator's names the roles required), so an entry dropped
 * fails `signatures` whatever an anchor says. Every rewrite (an Auditor entry, a re-issue) records the anchor, so
 * rolling back to the first chain is still seen; a crash before that commit leaves no anchor, which accepts
 * either chain, as the `pending` form did. See docs/certificates.md "Dropped entries".
 */
async function writeCertificate(services: Services, certificate: Certificate, first = false): Promise<void> {
  const previous = await services.store.getJson<ChainAnchor>(anchorKey(certificate.run_id)).catch(() => null);
  // An anchor left by an earlier chain (a certificate since damaged or removed) is still moved on, never left stale.
  if (first && !previous) return services.store.setJson(keys.certificate(certificate.run_id), certificate);
  const last = certificate.provenance_chain[certificate.provenance_chain.length - 1]!;
  const next: AnchorPoint = { entries: certificate.provenance_chain.length, head: signatureDigest(last.signature, sha3Factory(services.capabilities)) };
  if (previous) await services.store.setJson(anchorKey(certificate.run_id), { entries: previous.entries, head: previous.head, pending: next } satisfies ChainAnchor);
  await services.store.setJson(keys.certificate(certificate.run_id), certificate);
  await services.store.setJson(anchorKey(certificate.run_id), next satisfies ChainAnchor);
}

/**
 * Builds, signs and writes the certificate of a finished run. Returns it, or `null` when the run is not one to
 * certify (unknown, cancelled, no trace). Idempotent: a second call for unchanged artefacts keeps the
 * certificate already written (with any Auditor entries).
 * `identity` names the Evaluator (`AEH_EVALUATOR_IDENTITY`, default the product name); `record` is the run record
 * the engine hands to `run.finished` (read from `run.json` when not given). The evidence is hashed as stored:
 * read back from storage, except the sidecars in `evidence`, the bytes the engine has just stored (issue 36:
 * reading them back cost a read and a copy each, and proved nothing more, the engine being the only writer), and
 * what `known` gives the digests of: the plan as the run verified and ran it, and the trace as it was appended
 * (taken only while the stored trace has the length it covers). Public verify re-hashes all of them as stored.
 */
export async function issueCertificate(services: Services, runId: string, identity: string = PRODUCT_NAME, record?: RunRecord, evidence?: StoredEvidence, known?: EvidenceDigests): Promise<Certificate | null> {
  const run = record ?? (await readRun(services.store, runId));
  if (run?.status === 'cancelled') return null;
  const traceFile = run?.trace_file || TRACE_FILE;
  const traceHash = await hashTrace(services, keys.sidecar(runId, traceFile), traceFile === TRACE_FILE ? known?.trace : undefined);
  if (traceHash === null) {
    services.logger.error('certification: the run has no trace; no certificate issued', { run_id: runId });
    return null;
  }
  const ledger: Record<string, HexDigest> = {};
  for (const file of Object.values(SIDECARS)) {
    const digest = await hashEvidence(services, runId, file, evidence, known);
    if (digest === null) services.logger.warn(`certification: sidecar ${file} is missing; it is left out of the evidence ledger`, { run_id: runId });
    else ledger[file] = digest;
  }
  for (const file of Object.values(OPTIONAL_SIDECARS)) {
    const digest = await hashEvidence(services, runId, file);
    if (digest !== null) ledger[file] = digest;
  }
  const summary = await readSummary(services, runId, evidence);
  const body = buildCertificateBody({
    runId,
    harnessVersion: HARNESS_VERSION,
    traceHash,
    traceFile,
    compliance: complianceOf(run, summary),
    evidenceLedger: ledger,
    governanceTtlDays: services.config.governanceTtlDays,
    cache: cacheOf(summary),
    // Which scenario, by content and origin (issue 32 item 7); runs recorded before it have none.
    ...(run?.scenario_hash && run.scenario_origin ? { scenario: { id: run.scenario_id, content_hash: run.scenario_hash, origin: run.scenario_origin } } : {}),
    // The attack numbers from summary.json, which the ledger covers (issue 35).
    ...(summary?.attacks && typeof summary.attacks === 'object' ? { attacks: summary.attacks } : {}),
  });
  const existing = await services.store.getJson<Certificate>(keys.certificate(runId)).catch(() => null);
  const factory = sha3Factory(services.capabilities);
  if (existing && certificateDigest(existing, factory) === certificateDigest(body, factory)) return existing;

  // Only signatures the engine verified against a key pinned for the agent (`signature_key`) name an Agent;
  // an unchecked claim of identity is never signed with our key.
  const agentIdentities = [...new Set((summary?.agent_signatures ?? []).filter((entry) => entry?.verified === true && typeof entry.identity === 'string' && typeof entry.jws === 'string').map((entry) => String(entry.identity)))];
  const required: ProvenanceRole[] = ['Evaluator', ...agentIdentities.map((): ProvenanceRole => 'Agent')];
  const signer = selectSigner(services.signers, services.config);
  const timestamp = new Date(services.now()).toISOString();
  let certificate = await appendProvenance(body, { signer, identity, role: 'Evaluator', timestamp, requiredRoles: required, factory });
  // The agents' own JWSs are in summary.json, which the ledger covers; the Agent entries record, under our key,
  // which pinned identities signed their output and were verified.
  for (const identity of agentIdentities) {
    certificate = await appendProvenance(certificate, { signer, identity, role: 'Agent', timestamp, requiredRoles: required, factory });
  }
  const errors = validateCertificate(certificate);
  if (errors.length) throw new Error(`certificate of run ${runId} would not validate: ${describeErrors(errors, errors.length)}`);
  await writeCertificate(services, certificate, !existing);
  services.telemetry.increment('certificates.issued');
  return certificate;
}

/** Appends an Auditor entry signed now by the active signer, writes the certificate and returns it. */
export async function appendAuditor(services: Services, certificate: Certificate, identity: string): Promise<Certificate> {
  const signer = selectSigner(services.signers, services.config);
  const required = [...certificate.provenance_chain.map((entry) => entry.role), 'Auditor' as const];
  const signed = await appendProvenance(certificate, {
    signer,
    identity,
    role: 'Auditor',
    timestamp: new Date(services.now()).toISOString(),
    requiredRoles: required,
    factory: sha3Factory(services.capabilities),
  });
  await writeCertificate(services, signed);
  services.telemetry.increment('certificates.audited');
  return signed;
}
