/**
 * Everything a report of one run shows, read once: the run record, its scores and failures sidecars, the
 * scenario as run, the transcript (redacted), the certificate and what the public verification says of it now.
 */
import { keys, SIDECARS, type RunFailure, type RunRecord } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import type { Certificate } from '../../core/domain/certificate.ts';
import type { Scenario } from '../../core/domain/scenario.ts';
import { readTraceEvents } from '../../core/domain/trace-lines.ts';
import type { Services } from '../../core/services.ts';
import { notFound } from '../../core/problems.ts';
import { HARNESS_VERSION } from '../../core/version.ts';
import { buildTranscript, type Transcript } from './transcript.ts';
import type { TrialsSummary } from '../../core/domain/verdict.ts';
import { readEvidenceJson } from '../../core/domain/packed-evidence.ts';

export interface Verification {
  status: string;
  checks: Array<{ id: string; ok: boolean; detail: string }>;
  expires_at?: string;
  checked_at?: string;
}

/** What `scores.json` holds, as far as a report reads it. */
export interface ScoresSidecar {
  per_metric?: Record<string, { dimension?: string; mean?: number | null; count?: number }>;
  per_task?: Array<{ task_id: string; variant?: string; trial?: number; scores?: Record<string, number | null>; passed?: boolean; latency_ms?: number }>;
  floor_applied?: boolean;
  trials?: TrialsSummary;
  /** Every original task's verdict over its attempts (the run record lists only those that did not pass every one). */
  verdict?: { tasks?: Array<{ task_id: string; attempts: number; passed: number; status: string }> };
}

export interface ReportData {
  run: RunRecord;
  scenario?: Scenario;
  scores: ScoresSidecar | null;
  /** Redacted failures (original tasks and variants). */
  failures: RunFailure[];
  transcript: Transcript;
  certificate: Certificate | null;
  verification: Verification | null;
  /** Absolute base URL of the service when `AEH_PUBLIC_URL` is set (links and commands use it). */
  publicUrl?: string;
  generatedAt: string;
  harnessVersion: string;
}

/** The scenario of a stored plan (`{scenario, variants, …}`) or a bare scenario. */
function scenarioOfPlan(stored: unknown): Scenario | undefined {
  const candidate = stored && typeof stored === 'object' && 'scenario' in stored ? (stored as { scenario: unknown }).scenario : stored;
  return candidate && typeof candidate === 'object' && Array.isArray((candidate as Scenario).tasks) ? (candidate as Scenario) : undefined;
}

/** The public verification of a certificate as it stands now (`path`: `/api/v1/verify/<run_id>` or `/api/v1/verify/suite/<suite_id>`). */
export async function verificationOf(services: Services, path: string): Promise<Verification | null> {
  try {
    const response = await services.dispatch(new Request(`http://reports.internal${path}`));
    if (response.status !== 200) return null;
    const body = (await response.json()) as Verification;
    return { status: body.status, checks: body.checks ?? [], expires_at: body.expires_at, checked_at: body.checked_at };
  } catch {
    return null;
  }
}

/**
 * Reads a run's report data; 404 when there is no such run. `verify: false` skips the public verification (a
 * suite's report verifies the suite, which verifies each run).
 */
export async function loadReportData(services: Services, runId: string, publicUrl?: string, { verify = true }: { verify?: boolean } = {}): Promise<ReportData> {
  const { store } = services;
  const run = await readRun(store, runId);
  if (!run) throw notFound(`run ${runId.slice(0, 128)}`);
  const [plan, scores, storedFailures, certificate, events] = await Promise.all([
    readEvidenceJson<unknown>(store, runId, SIDECARS.scenario),
    readEvidenceJson<ScoresSidecar>(store, runId, SIDECARS.scores),
    readEvidenceJson<RunFailure[]>(store, runId, SIDECARS.failures),
    store.getJson<Certificate>(keys.certificate(runId)),
    readTraceEvents(store, runId),
  ]);
  const scenario = scenarioOfPlan(plan);
  const redactor = services.use('redactor');
  const scope = { scenario };
  const failures = (Array.isArray(storedFailures) ? storedFailures : run.failures ?? []).map((failure) => ({
    ...failure,
    message: redactor.text(String(failure.message ?? ''), scope),
    ...(failure.evidence !== undefined ? { evidence: redactor.value(failure.evidence, scope) } : {}),
  }));
  return {
    run: run.error ? { ...run, error: { ...run.error, message: redactor.text(String(run.error.message ?? ''), scope) } } : run,
    scenario,
    scores,
    failures,
    transcript: buildTranscript(events, { redactor, scenario }),
    certificate,
    verification: certificate && verify ? await verificationOf(services, `/api/v1/verify/${encodeURIComponent(runId)}`) : null,
    publicUrl,
    generatedAt: new Date(services.now()).toISOString(),
    harnessVersion: certificate?.harness_version ?? HARNESS_VERSION,
  };
}
