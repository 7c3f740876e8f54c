import { describe, it, expect, beforeAll } from 'vitest';
import { createHash } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import canonicalize from 'canonicalize';
import { testApp, type TestApp } from './helpers.ts';
import { finishFixtureRun, writeFixtureRun } from './certification-fixtures.ts';
import { keys, SIDECARS } from '../core/domain/runs.ts';
import type { Certificate } from '../core/domain/certificate.ts';
import type { Services } from '../core/services.ts';
import { referenceSchemaErrors } from './reference-certificate.ts';

const sha3 = (bytes: Uint8Array | string) => createHash('sha3-256').update(bytes).digest('hex');

type Verify = { run_id: string; valid: boolean; status: string; checks: Array<{ id: string; ok: boolean; detail: string }>; certificate: Certificate };

function failing(report: Verify): string[] {
  return report.checks.filter((check) => !check.ok).map((check) => check.id).sort();
}

describe('certification: issuing and serving certificates', () => {
  let t: TestApp;
  let services: Services;
  beforeAll(async () => {
    t = await testApp();
    services = await t.app.ready;
  });

  it('writes a 3.0.0 certificate on run.finished whose hashes are SHA3-256 of the stored bytes', async () => {
    const runId = await finishFixtureRun(t);
    const cert = await t.json<Certificate>('GET', `/v1/certificates/${runId}`, { key: null });
    expect(cert.status).toBe(200);
    expect(cert.body).toMatchObject({ vc_version: '3.0.0', run_id: runId, hash_algorithm: 'sha3_256', trace_file: 'trace.jsonl', governance_ttl: 90, compliance: { status: 'pass', score: 0.91, policy_ref: 'NIST AI 100-1' } });
    expect(cert.body.harness_version).toMatch(/^\d+\.\d+\.\d+/);
    const trace = await t.request('GET', `/api/v1/runs/${runId}/trace`);
    const traceBytes = trace.status === 200 ? new Uint8Array(await trace.arrayBuffer()) : (await services.store.getBytes(keys.trace(runId)))!;
    expect(cert.body.trace_hash).toBe(sha3(traceBytes));
    expect(Object.keys(cert.body.evidence_ledger).sort()).toEqual(Object.values(SIDECARS).sort());
    for (const file of Object.values(SIDECARS)) {
      expect(cert.body.evidence_ledger[file]).toBe(sha3((await services.store.getBytes(keys.sidecar(runId, file)))!));
    }
    expect(cert.body.provenance_chain.map((entry) => entry.role)).toEqual(['Evaluator']);
    const verify = await t.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null });
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ run_id: runId, valid: true, status: 'valid' });
    expect(verify.body.checks.map((check) => check.id)).toEqual(expect.arrayContaining(['schema', 'trace_hash', 'evidence_ledger', 'signatures', 'expiry']));
    expect(verify.body.checks.every((check) => check.ok)).toBe(true);
  });

  it('also satisfies the reference implementation schema (vc.schema.json, draft-07)', async () => {
    const runId = await finishFixtureRun(t, { agentSignatures: [{ identity: 'agent:support', jws: 'eyJhbGciOiJFZERTQSJ9.e30.c2ln', task_id: 't1', verified: true }] });
    await t.json('POST', `/api/v1/runs/${runId}/sign`);
    const cert = (await t.json<Certificate>('GET', `/v1/certificates/${runId}`, { key: null })).body;
    expect(referenceSchemaErrors(cert)).toEqual([]);
    expect(cert.provenance_chain.map((entry) => entry.role)).toEqual(['Evaluator', 'Agent', 'Auditor']);
  });

  it('serves the certificate with an ETag and answers 304 to If-None-Match', async () => {
    const runId = await finishFixtureRun(t);
    const first = await t.request('GET', `/v1/certificates/${runId}`, { key: null });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(first.headers.get('content-type')).toContain('application/json');
    const again = await t.request('GET', `/v1/certificates/${runId}`, { key: null, headers: { 'if-none-match': `W/${etag}, "other"` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    await t.json('POST', `/api/v1/runs/${runId}/sign`);
    const changed = await t.request('GET', `/v1/certificates/${runId}`, { key: null, headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('answers 404 problems for unknown runs, runs without a certificate and hostile ids', async () => {
    for (const path of ['/v1/certificates/nope', '/api/v1/verify/nope', '/v1/certificates/..%2F..%2Fetc', '/api/v1/verify/a:b']) {
      const res = await t.json('GET', path, { key: null });
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await t.json('POST', '/api/v1/runs/nope/sign')).status).toBe(404);
  });

  it('publishes the signing key with its kid, and every signature names a published kid', async () => {
    const runId = await finishFixtureRun(t);
    const jwks = await t.json<{ keys: Array<Record<string, string>> }>('GET', '/.well-known/jwks.json', { key: null });
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys.length).toBeGreaterThan(0);
    for (const key of jwks.body.keys) {
      expect(key.kid).toBeTruthy();
      expect(key.d).toBeUndefined();
    }
    const cert = (await t.json<Certificate>('GET', `/v1/certificates/${runId}`, { key: null })).body;
    const header = decodeProtectedHeader(cert.provenance_chain[0]!.signature);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'aeh-provenance+jws' });
    expect(jwks.body.keys.map((key) => key.kid)).toContain(header.kid);
  });

  it('signs exactly the documented bytes (an outside gate can reimplement the check)', async () => {
    const runId = await finishFixtureRun(t);
    const cert = (await t.json<Certificate>('GET', `/v1/certificates/${runId}`, { key: null })).body;
    const jwks = (await t.json<{ keys: Array<Record<string, string>> }>('GET', '/.well-known/jwks.json', { key: null })).body.keys;
    const entry = cert.provenance_chain[0]!;
    const { provenance_chain: _chain, ...body } = cert;
    const expected = canonicalize({
      certificate_digest: sha3(canonicalize(body)!),
      previous_digest: null,
      identity: entry.identity,
      role: entry.role,
      timestamp: entry.timestamp,
      required_roles: ['Evaluator'],
    })!;
    const kid = decodeProtectedHeader(entry.signature).kid;
    const key = await importJWK(jwks.find((jwk) => jwk.kid === kid)!, 'EdDSA');
    const { payload } = await compactVerify(entry.signature, key, { algorithms: ['EdDSA'] });
    expect(new TextDecoder().decode(payload)).toBe(expected);
  });

  it('appends an Auditor entry with permission runs:sign, refuses without it, and audits the action', async () => {
    const runId = await finishFixtureRun(t);
    expect((await t.json('POST', `/api/v1/runs/${runId}/sign`, { key: null })).status).toBe(401);
    const signed = await t.json<Certificate>('POST', `/api/v1/runs/${runId}/sign`);
    expect(signed.status).toBe(200);
    expect(signed.body.provenance_chain.map((entry) => entry.role)).toEqual(['Evaluator', 'Auditor']);
    expect(signed.body.provenance_chain[1]!.identity).toBe('static-key');
    const twice = await t.json<Certificate>('POST', `/api/v1/runs/${runId}/sign`);
    expect(twice.body.provenance_chain.map((entry) => entry.role)).toEqual(['Evaluator', 'Auditor', 'Auditor']);
    const verify = await t.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null });
    expect(verify.body.valid).toBe(true);
  });

  it('refuses to countersign a run whose evidence was tampered with (409 naming the check)', async () => {
    const runId = await finishFixtureRun(t);
    await services.store.setBytes(keys.trace(runId), new TextEncoder().encode('{"forged":true}\n'));
    const res = await t.json('POST', `/api/v1/runs/${runId}/sign`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect(res.body.detail).toContain('trace_hash');
  });

  it('does not certify cancelled runs and keeps an existing certificate when run.finished repeats', async () => {
    const cancelled = await finishFixtureRun(t, { status: 'cancelled' });
    expect((await t.json('GET', `/v1/certificates/${cancelled}`, { key: null })).status).toBe(404);
    const runId = await finishFixtureRun(t);
    const signed = (await t.json<Certificate>('POST', `/api/v1/runs/${runId}/sign`)).body;
    await services.hooks.emit('run.finished', { run_id: runId });
    expect((await t.json<Certificate>('GET', `/v1/certificates/${runId}`, { key: null })).body).toEqual(signed);
  });

  it('takes the digests the engine hands over (issue 36), the trace\'s only while the stored trace has the length they cover; verify re-hashes as stored', async () => {
    const given = async (lengthDelta: number) => {
      const runId = await writeFixtureRun(services);
      const bytes = (await services.store.size(keys.trace(runId)))!;
      const digests = { files: { [SIDECARS.scenario]: 'ab'.repeat(32) }, trace: { sha3: 'cd'.repeat(32), bytes: bytes + lengthDelta } };
      await services.hooks.emit('run.finished', { run_id: runId, digests });
      return { runId, cert: (await t.json<Certificate>('GET', `/v1/certificates/${runId}`, { key: null })).body };
    };
    const taken = await given(0);
    expect(taken.cert.evidence_ledger[SIDECARS.scenario]).toBe('ab'.repeat(32));
    expect(taken.cert.trace_hash).toBe('cd'.repeat(32));
    // Digests of bytes other than those stored are signed as given, and verification, which hashes what is stored, says so.
    expect(failing((await t.json<Verify>('GET', `/api/v1/verify/${taken.runId}`, { key: null })).body)).toEqual(['evidence_ledger', 'trace_hash']);
    // A stored trace longer than the bytes the digest covers (an append that failed half way) is hashed as stored.
    const longer = await given(-1);
    expect(longer.cert.trace_hash).toBe(sha3((await services.store.getBytes(keys.trace(longer.runId)))!));
  });

  it('certifies a failed run with compliance error', async () => {
    const runId = await finishFixtureRun(t, { status: 'failed', compliance: null });
    const cert = (await t.json<Certificate>('GET', `/v1/certificates/${runId}`, { key: null })).body;
    expect(cert.compliance).toEqual({ status: 'error', score: 0, policy_ref: 'NIST AI 100-1' });
    expect((await t.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body.valid).toBe(true);
  });

  it('reports the signer in the doctor', async () => {
    const doctor = await t.json<{ checks: Array<{ id: string; status: string; message: string }> }>('GET', '/api/v1/doctor');
    const check = doctor.body.checks.find((entry) => entry.id === 'certification.signer');
    expect(check).toMatchObject({ status: 'ok' });
    expect(check!.message).toContain('local signs with EdDSA');
  });
});
