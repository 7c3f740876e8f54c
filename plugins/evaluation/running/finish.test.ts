/**
 * How a run ends (finish.ts): `run.finished` carries the final run record, and `run.json` is written once, after
 * the handlers (certification) returned. Pins issue 36's change: the record is no longer stored first with the
 * results (status `running`) only to be read back by certification and rewritten.
 */
import { describe, it, expect } from 'vitest';
import type { Plugin } from '../../../core/plugin.ts';
import type { RunRecord } from '../../../core/domain/runs.ts';
import { readRun } from '../../../core/domain/run-record.ts';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from '../../../test/evaluation-fixtures.ts';

interface Seen {
  record?: RunRecord;
  stored: RunRecord | null;
  file: boolean;
  api: Record<string, any>;
  certified: boolean;
}

/** A plugin whose `run.finished` handler (registered after certification's) notes what a reader sees then. */
function observer(seen: Seen[], app: () => TestApp): Plugin {
  return {
    name: 'finish-observer',
    setup(host) {
      host.on('run.finished', async ({ run_id, record }, services) => {
        seen.push({
          record,
          stored: await readRun(services.store, run_id),
          file: await services.store.has(`runs/${run_id}/run.json`),
          api: (await app().json('GET', `/api/v1/runs/${run_id}`)).body,
          certified: await services.store.has(`runs/${run_id}/certificate.json`),
        });
      });
    },
  };
}

describe('evaluation: finishing a run', () => {
  it('hands the final record to run.finished and stores run.json only after the certificate, while a reader sees the run still running', async () => {
    const seen: Seen[] = [];
    let t: TestApp;
    t = await testApp({ plugins: [testMetrics, observer(seen, () => t)] });
    const { run } = await evaluate(t, { scenario: scriptedScenario('finish') });
    expect(run.status).toBe('succeeded');
    expect(seen).toHaveLength(1);
    const [during] = seen;
    // Certification ran first, from the record in the payload: the certificate exists before the final status.
    expect(during!.certified).toBe(true);
    expect(during!.record).toMatchObject({ run_id: run.run_id, status: 'succeeded', index: run.index, compliance: run.compliance, dimensions: run.dimensions });
    // No run.json is stored yet (issue 36); readers get the submitted record, rebuilt from the plan and the task
    // (core/domain/run-record.ts); the API folds in the task's live status (a short idempotent run
    // stores no `running` task record before it ends: runner.ts), never a final one before the certificate.
    expect(during!.file).toBe(false);
    expect(during!.stored).toMatchObject({ status: 'queued', dimensions: null, index: null });
    expect(['queued', 'running']).toContain(during!.api.status);
    expect(during!.api.index).toBeNull();
    // What is stored in the end is the record the handlers were given.
    const stored = (await t.json('GET', `/api/v1/runs/${run.run_id}`)).body;
    expect(stored).toEqual(JSON.parse(JSON.stringify(during!.record)));
    // The certificate signed the compliance of that record, and verifies against the evidence stored.
    const certificate = (await t.json('GET', `/v1/certificates/${run.run_id}`)).body;
    expect(certificate.compliance).toMatchObject({ status: run.compliance.status, score: run.compliance.score });
    const verified = (await t.json('GET', `/api/v1/verify/${run.run_id}`)).body;
    expect(verified.checks.length).toBeGreaterThan(0);
    expect(verified.checks.filter((check: { ok: boolean }) => !check.ok)).toEqual([]);
  });
});
