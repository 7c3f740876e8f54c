/**
 * Fixture runs for certification tests: a trace, the four sidecars and run.json written straight into storage,
 * exactly as the engine leaves them (integration.md item 1), then the `run.finished` hook emitted.
 */
import { keys, SIDECARS, TRACE_FILE, type RunRecord } from '../core/domain/runs.ts';
import type { Services } from '../core/services.ts';
import type { TestApp } from './helpers.ts';

const encoder = new TextEncoder();

export interface FixtureRunOptions {
  runId?: string;
  /** Trace bytes; default a few JSON lines. */
  trace?: Uint8Array;
  compliance?: RunRecord['compliance'];
  /** As the engine records them; only `verified: true` ones (checked against a pinned key) become Agent entries. */
  agentSignatures?: Array<{ identity: string; jws: string; task_id: string; verified?: boolean }>;
  status?: RunRecord['status'];
}

let counter = 0;

/** Writes a finished run into storage (no certificate yet); returns its id. */
export async function writeFixtureRun(services: Services, options: FixtureRunOptions = {}): Promise<string> {
  const runId = options.runId ?? `run_fixture_${Date.now().toString(36)}_${counter++}`;
  const compliance = options.compliance === undefined ? { status: 'pass' as const, score: 0.91, policy_ref: 'NIST AI 100-1' } : options.compliance;
  const trace = options.trace ?? encoder.encode(
    [
      { seq: 0, type: 'run_start', ts: '2026-04-01T10:00:00.000Z', run_id: runId, data: {} },
      { seq: 1, type: 'input', ts: '2026-04-01T10:00:00.010Z', run_id: runId, task_id: 't1', data: { input: 'What is my balance?' } },
      { seq: 2, type: 'agent_output', ts: '2026-04-01T10:00:00.020Z', run_id: runId, task_id: 't1', data: { output: 'Your balance is 42 EUR.' } },
      { seq: 3, type: 'run_end', ts: '2026-04-01T10:00:00.030Z', run_id: runId, data: {} },
    ].map((event) => JSON.stringify(event)).join('\n') + '\n',
  );
  await services.store.setBytes(keys.trace(runId), trace);
  await services.store.setJson(keys.sidecar(runId, SIDECARS.scenario), { id: 'fixture', title: 'Fixture', tasks: [{ id: 't1', input: 'What is my balance?' }] });
  await services.store.setJson(keys.sidecar(runId, SIDECARS.scores), { dimensions: { reliability: 0.91 }, index: 0.91 });
  await services.store.setJson(keys.sidecar(runId, SIDECARS.failures), []);
  await services.store.setJson(keys.sidecar(runId, SIDECARS.summary), {
    run_id: runId,
    scenario_id: 'fixture',
    status: options.status ?? 'succeeded',
    compliance,
    agent_signatures: options.agentSignatures ?? [],
  });
  const record: RunRecord = {
    run_id: runId,
    task_id: `task_${runId}`,
    scenario_id: 'fixture',
    status: options.status ?? 'succeeded',
    created_at: '2026-04-01T10:00:00.000Z',
    started_at: '2026-04-01T10:00:00.000Z',
    finished_at: '2026-04-01T10:00:00.030Z',
    dimensions: null,
    index: compliance?.score ?? null,
    compliance,
    failures: [],
    trace_file: TRACE_FILE,
    certificate_url: `/v1/certificates/${runId}`,
    verify_url: `/api/v1/verify/${runId}`,
  };
  await services.store.setJson(keys.run(runId), record);
  return runId;
}

/** Writes a fixture run and emits `run.finished`, as the engine does; returns the run id. */
export async function finishFixtureRun(t: TestApp, options: FixtureRunOptions = {}): Promise<string> {
  const services = await t.app.ready;
  const runId = await writeFixtureRun(services, options);
  await services.hooks.emit('run.finished', { run_id: runId });
  return runId;
}
