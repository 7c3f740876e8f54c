/**
 * The suite certificate: a Verification Certificate 3.0.0 like a run's, over the suite instead of one trace.
 * `run_id` is the suite id, `trace_file` is `manifest.json` (the suite's runs, agents and aggregates in
 * RFC 8785 form) and `trace_hash` its SHA3-256, and the evidence ledger lists one entry per run,
 * `<run_id>.certificate.json`, whose digest is that run certificate's certificate digest: SHA3-256 of the
 * RFC 8785 form of the certificate without `provenance_chain`, what every signature of it covers. An Auditor
 * countersigning a run later adds to its chain and leaves the suite's ledger true. The evidence files
 * (`GET /api/v1/suites/:suite_id/evidence/:file`) are the manifest and, per run, exactly those canonical bytes,
 * so `aeh verify` checks a suite certificate offline as it checks a run's.
 */
import { buildCertificateBody, canonicalJson, certificateBody, certificateDigest, validateCertificate, type Certificate } from '../../core/domain/certificate.ts';
import { sha3Factory, sha3Hex } from '../../core/domain/hash.ts';
import { appendProvenance } from '../../core/domain/provenance.ts';
import { FINAL_STATUSES, keys, type RunRecord } from '../../core/domain/runs.ts';
import { holdRun } from '../../core/domain/run-holds.ts';
import type { SuiteView } from '../../core/domain/suites.ts';
import { verifyCertificate, type VerificationResult } from '../../core/domain/verify-certificate.ts';
import type { Services } from '../../core/services.ts';
import { selectSigner } from '../../core/signer.ts';
import { HARNESS_VERSION, PRODUCT_NAME } from '../../core/version.ts';
import { isSuiteId, readSuite, suiteKeys, type SuiteRecord } from './store.ts';
import { describeErrors } from '../../core/validate.ts';
import { storeIsProcessLocal } from '../../core/domain/store-locality.ts';
import { policyLoosenings, weakestPolicy } from '../../core/domain/policy-strength.ts';
import type { VerdictPolicy } from '../../core/domain/verdict-policy.ts';

export const MANIFEST_FILE = 'manifest.json';
const RUN_CERTIFICATE = /^([A-Za-z0-9_-]{1,128})\.certificate\.json$/;
const encoder = new TextEncoder();
const WORST: Certificate['compliance']['status'][] = ['error', 'fail', 'warning', 'pass'];

/**
 * Why a suite has no certificate yet, or `null` when it can have one now. `runs` (the suite's run records, read
 * before `certificates`) tells a run still going from one that ended without a certificate: certification signs
 * a run on `run.finished`, before its final record is stored, so one whose record says it ended and that has no
 * certificate never will (cancelled, ended before any result, or its issuing failed): the suite is then
 * `unavailable`, not `pending` for ever (issue 36: a client waiting for it never stopped).
 */
export function certificateBlocker(record: SuiteRecord, certificates: Map<string, Certificate>, runs?: Map<string, RunRecord>): { status: 'pending' | 'unavailable'; detail: string } | null {
  if (!record.launched) return { status: 'pending', detail: 'runs are still being launched' };
  const refused = record.entries.filter((entry) => entry.run_id === null);
  if (refused.length) return { status: 'unavailable', detail: `${refused.length} run(s) could not be launched, so the suite cannot be certified` };
  // A run certified a moment ago whose final record is not stored yet reads as queued here: a certificate signed
  // now would sign a manifest without its verdict (the `run.finished` hook, which has the record, issues it).
  const going = record.entries.filter((entry) => { const status = runs?.get(entry.run_id!)?.status; return status !== undefined && !FINAL_STATUSES.has(status); });
  const missing = record.entries.filter((entry) => !certificates.has(entry.run_id!));
  if (!missing.length) return going.length ? { status: 'pending', detail: `${going.length} of ${record.entries.length} run(s) have not ended yet` } : null;
  const ended = missing.filter((entry) => FINAL_STATUSES.has(runs?.get(entry.run_id!)?.status ?? ''));
  if (ended.length) {
    const cancelled = ended.filter((entry) => runs?.get(entry.run_id!)?.status === 'cancelled').length;
    return { status: 'unavailable', detail: `${ended.length} of ${record.entries.length} run(s) ended without a certificate (${cancelled} cancelled; the others ended before any result or their certificate could not be issued), so the suite cannot be certified` };
  }
  return { status: 'pending', detail: `${missing.length} of ${record.entries.length} run(s) have no certificate yet` };
}

/** The run certificates of a suite that exist, by run id. */
export async function readRunCertificates(services: Services, record: SuiteRecord): Promise<Map<string, Certificate>> {
  const found = new Map<string, Certificate>();
  const ids = record.entries.map((entry) => entry.run_id).filter((id): id is string => id !== null);
  for (let start = 0; start < ids.length; start += 64) {
    await Promise.all(ids.slice(start, start + 64).map(async (id) => {
      const certificate = await services.store.getJson<Certificate>(keys.certificate(id)).catch(() => null);
      if (certificate) found.set(id, certificate);
    }));
  }
  return found;
}

/** The manifest the suite certificate's `trace_hash` covers, in RFC 8785 form. */
export function manifestBytes(view: Omit<SuiteView, 'certificate'>, certificates: Map<string, Certificate>, factory: ReturnType<typeof sha3Factory>): Uint8Array {
  return encoder.encode(canonicalJson({
    suite_id: view.suite_id,
    name: view.name,
    created_at: view.created_at,
    created_by: view.created_by,
    query: view.query,
    scenario_ids: view.scenario_ids,
    agents: view.agents.map(({ agent, index, dimensions, pass_rate, failures_by_code, runs }) => ({ agent, index, dimensions, pass_rate, failures_by_code, runs: runs.total })),
    runs: view.runs.map((run) => ({ scenario_id: run.scenario_id, agent: run.agent, run_id: run.run_id, index: run.index, compliance: run.compliance, certificate_digest: certificateDigest(certificates.get(run.run_id!)!, factory) })),
  }));
}

function suiteCompliance(runs: RunRecord[], certificates: Map<string, Certificate>): Certificate['compliance'] {
  const statuses = [...certificates.values()].map((certificate) => certificate.compliance.status);
  const status = WORST.find((candidate) => statuses.includes(candidate)) ?? 'error';
  const scores = [...certificates.values()].map((certificate) => certificate.compliance.score);
  const policies = new Set(runs.map((run) => run.compliance?.policy_ref).filter(Boolean));
  // The weakest policy any run was held to, from their signed certificates (only when every one signs its policy),
  // so that a gate can refuse a suite one of whose runs was judged under a relaxed policy.
  const signed = [...certificates.values()].map((certificate) => certificate.compliance.policy);
  const policy = signed.every((item) => item !== undefined) ? weakestPolicy(signed as VerdictPolicy[]) : undefined;
  const relaxed = policy ? policyLoosenings(policy) : [];
  return {
    status, score: scores.length ? Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 10_000) / 10_000 : 0, policy_ref: policies.size === 1 ? [...policies][0]! : 'NIST AI 100-1',
    ...(policy ? { policy } : {}), ...(relaxed.length ? { policy_relaxed: relaxed } : {}),
  };
}

/**
 * A suite measured partly on cached answers says so too: the cached answers its runs' certificates state, of
 * every answer its runs used (from their usage totals, or what a certificate states when a run has none).
 */
function suiteCache(certificates: Map<string, Certificate>, runs: Map<string, RunRecord>): Certificate['cache'] {
  let cached = 0;
  let answers = 0;
  for (const [runId, certificate] of certificates) {
    const usage = runs.get(runId)?.usage;
    cached += certificate.cache?.cached_calls ?? 0;
    answers += usage ? usage.calls + usage.cached_calls : certificate.cache?.agent_calls ?? 0;
  }
  return cached > 0 ? { cached_calls: cached, agent_calls: Math.max(answers, cached) } : undefined;
}

/**
 * Issues the suite certificate when every run has one and none was issued; one caller wins the claim. Returns
 * the certificate written, or `null` when it is not time (or another caller issues it).
 */
export async function issueSuiteCertificate(services: Services, record: SuiteRecord, view: Omit<SuiteView, 'certificate'>, runs: Map<string, RunRecord>): Promise<Certificate | null> {
  const { store } = services;
  if (await store.has(suiteKeys.certificate(record.suite_id))) return null;
  const certificates = await readRunCertificates(services, record);
  if (certificateBlocker(record, certificates, runs)) return null;
  if (!(await claimIssuing(store, record.suite_id))) return null;
  try {
    return await signSuite(services, record, view, runs, certificates);
  } catch (error) {
    // Given up, so that the next read tries again: a store without TTLs (memory, fs) would keep the claim for
    // ever, and the suite would say `pending` for ever with it (issue 36).
    await store.remove(suiteKeys.claim(record.suite_id)).catch(() => undefined);
    throw error;
  } finally {
    issuingHere(store).delete(record.suite_id);
  }
}

/** The suites whose certificate this process is issuing, per store. */
const issuing = new WeakMap<Services['store'], Set<string>>();
const issuingHere = (store: Services['store']) => issuing.get(store) ?? issuing.set(store, new Set()).get(store)!;

/**
 * Claims the issuing of a suite's certificate: one caller in this process (marked before anything is awaited),
 * and one instance across a shared store (`setIfAbsent`, expiring after 300 s on Redis). On memory and fs, which
 * keep a claim for ever and which only this process writes, a claim this process is not holding was left by one
 * that stopped while issuing (a crash, a restart): it is taken over, or the suite said `pending` for ever (issue 36).
 */
async function claimIssuing(store: Services['store'], suiteId: string): Promise<boolean> {
  const here = issuingHere(store);
  if (here.has(suiteId)) return false;
  here.add(suiteId);
  if ((await store.setIfAbsent(suiteKeys.claim(suiteId), 'issuing', 300)) || storeIsProcessLocal(store)) return true;
  here.delete(suiteId);
  return false;
}

/** Builds, signs and writes the suite certificate (the caller holds the claim). */
async function signSuite(services: Services, record: SuiteRecord, view: Omit<SuiteView, 'certificate'>, runs: Map<string, RunRecord>, certificates: Map<string, Certificate>): Promise<Certificate> {
  const { store } = services;
  const factory = sha3Factory(services.capabilities);
  const manifest = manifestBytes(view, certificates, factory);
  const ledger = Object.fromEntries([...certificates].map(([runId, certificate]) => [`${runId}.certificate.json`, certificateDigest(certificate, factory)]));
  const body = buildCertificateBody({
    runId: record.suite_id,
    harnessVersion: HARNESS_VERSION,
    traceHash: sha3Hex(manifest, factory),
    traceFile: MANIFEST_FILE,
    compliance: suiteCompliance([...runs.values()], certificates),
    evidenceLedger: ledger,
    governanceTtlDays: services.config.governanceTtlDays,
    cache: suiteCache(certificates, runs),
  });
  const certificate = await appendProvenance(body, {
    signer: selectSigner(services.signers, services.config), identity: PRODUCT_NAME, role: 'Evaluator',
    timestamp: new Date(services.now()).toISOString(), requiredRoles: ['Evaluator'], factory,
  });
  const errors = validateCertificate(certificate);
  if (errors.length) throw new Error(`the certificate of suite ${record.suite_id} would not validate: ${describeErrors(errors, errors.length)}`);
  // The certificate's runs are held before it exists: retention's keep_runs never deletes them.
  await holdSuiteRuns(store, record);
  await store.setBytes(suiteKeys.manifest(record.suite_id), manifest);
  await store.setJson(suiteKeys.certificate(record.suite_id), certificate);
  services.telemetry.increment('suites.certified');
  return certificate;
}

/** Holds every run of a suite (core/domain/run-holds.ts), as its certificate relies on them. */
export async function holdSuiteRuns(store: Services['store'], record: SuiteRecord): Promise<void> {
  const ids = record.entries.map((entry) => entry.run_id).filter((id): id is string => id !== null);
  for (let start = 0; start < ids.length; start += 64) await Promise.all(ids.slice(start, start + 64).map((id) => holdRun(store, id, `suite-${record.suite_id}`)));
}

/** Marks that the suites certified before suites held their runs were given their holds. */
const HELD_MARKER = 'suites-runs-held';

/** Holds the runs of every suite certified by an earlier version (once per store; run at start). */
export async function holdCertifiedSuites(store: Services['store']): Promise<void> {
  if (await store.has(HELD_MARKER)) return;
  for (const key of await store.keys('suites-index')) {
    const suiteId = key.slice(key.lastIndexOf('/') + 1);
    if (!isSuiteId(suiteId) || !(await store.has(suiteKeys.certificate(suiteId)))) continue;
    const record = await readSuite(store, suiteId);
    if (record) await holdSuiteRuns(store, record);
  }
  await store.setJson(HELD_MARKER, { at: new Date().toISOString() });
}

/**
 * An evidence file of a suite certificate: `manifest.json`, or `<run_id>.certificate.json` (the RFC 8785 form
 * of that run's certificate without its chain, whose SHA3-256 is the ledger's digest). `null` when missing.
 */
export async function suiteEvidence(services: Services, suiteId: string, file: string): Promise<Uint8Array | null> {
  if (file === MANIFEST_FILE) return services.store.getBytes(suiteKeys.manifest(suiteId));
  const match = RUN_CERTIFICATE.exec(file);
  if (!match) return null;
  const certificate = await services.store.getJson<Certificate>(suiteKeys.certificate(suiteId));
  if (!certificate?.evidence_ledger?.[file]) return null;
  const run = await services.store.getJson<Certificate>(keys.certificate(match[1]!)).catch(() => null);
  return run ? encoder.encode(canonicalJson(certificateBody(run))) : null;
}

/** Verifies a stored suite certificate against its manifest, its runs' certificates and the published keys. */
export async function verifySuite(services: Services, suiteId: string, published: Parameters<typeof verifyCertificate>[1]['keys']): Promise<{ certificate: unknown; result: VerificationResult } | null> {
  const certificate = await services.store.getJson<unknown>(suiteKeys.certificate(suiteId)).catch(() => null);
  if (certificate === null) return null;
  const factory = sha3Factory(services.capabilities);
  const result = await verifyCertificate(certificate, {
    keys: published,
    now: services.now(),
    factory,
    source: {
      trace: async (file) => (file === MANIFEST_FILE ? services.store.getBytes(suiteKeys.manifest(suiteId)) : null),
      sidecar: (file) => suiteEvidence(services, suiteId, file),
    },
  });
  const named = (certificate as Certificate | null)?.run_id;
  if (named !== suiteId) {
    result.checks.push({ id: 'run_id', ok: false, detail: `the certificate names ${String(named)}` });
    result.valid = false;
    result.status = 'invalid';
  }
  return { certificate, result };
}
