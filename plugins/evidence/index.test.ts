import { describe, it, expect, beforeAll } from 'vitest';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { evaluate, scriptedScenario } from '../../test/evaluation-fixtures.ts';
import { keys } from '../../core/domain/runs.ts';

describe('plugin: evidence (GET /api/v1/runs/:run_id/evidence/:file)', () => {
  let t: TestApp;
  let runId: string;
  let ledger: Record<string, string>;

  beforeAll(async () => {
    t = await testApp();
    const scenario = scriptedScenario('evidence', {
      tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] }],
    });
    ({ run: { run_id: runId } } = await evaluate(t, { scenario }));
    ledger = (await t.json('GET', `/v1/certificates/${runId}`)).body.evidence_ledger;
  });

  it('serves every ledger file byte for byte what its hash covers', async () => {
    expect(Object.keys(ledger).sort()).toEqual(['failures.json', 'scenario.json', 'scores.json', 'summary.json']);
    for (const [file, hash] of Object.entries(ledger)) {
      const res = await t.request('GET', `/api/v1/runs/${runId}/evidence/${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(bytesToHex(sha3_256(new Uint8Array(await res.arrayBuffer())))).toBe(hash);
    }
  });

  it('needs credentials', async () => {
    const res = await t.json('GET', `/api/v1/runs/${runId}/evidence/scores.json`, { key: null });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('answers 404 for files outside the ledger, even stored ones of the same run', async () => {
    const services = await t.app.ready;
    expect(await services.store.getBytes(keys.run(runId))).not.toBeNull();
    for (const file of ['run.json', 'certificate.json', 'trace.jsonl', 'constructor', '__proto__', 'hasOwnProperty', 'nope.json']) {
      const res = await t.json('GET', `/api/v1/runs/${runId}/evidence/${file}`);
      expect(res.status, file).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('refuses traversal and odd names without a 500', async () => {
    for (const file of ['..%2Frun.json', '%2E%2E', '..', 'a%00b', '%2Fetc%2Fpasswd', 'x%3Ay', 'scores.json%2F..%2F..%2Fcertificate.json', 'a'.repeat(300)]) {
      const res = await t.json('GET', `/api/v1/runs/${runId}/evidence/${file}`);
      expect(res.status, file).toBe(404);
    }
  });

  it('answers 404 for unknown or invalid run ids', async () => {
    expect((await t.json('GET', '/api/v1/runs/run_unknown/evidence/scores.json')).status).toBe(404);
    expect((await t.json('GET', '/api/v1/runs/..%2F..%2Fx/evidence/scores.json')).status).toBe(404);
  });

  it('serves only names from a tampered ledger that are plain file names of this run', async () => {
    const services = await t.app.ready;
    const certificate = await services.store.getJson<Record<string, any>>(keys.certificate(runId));
    await services.store.setJson(keys.certificate(runId), { ...certificate, evidence_ledger: { ...certificate!.evidence_ledger, 'run.json': 'f'.repeat(64), '../../other/run.json': 'f'.repeat(64) } });
    try {
      // The ledger now names run.json: it is a plain name in the run folder, so it is served (the verify check
      // would then fail on its hash); names with separators never are.
      expect((await t.request('GET', `/api/v1/runs/${runId}/evidence/run.json`)).status).toBe(200);
      expect((await t.request('GET', `/api/v1/runs/${runId}/evidence/..%2F..%2Fother%2Frun.json`)).status).toBe(404);
    } finally {
      await services.store.setJson(keys.certificate(runId), certificate);
    }
  });
});
