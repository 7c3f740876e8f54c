/**
 * The signer conformance suite: every signer, bundled or from a plugin, runs it. It pins what certificates rely
 * on (core/signer.ts, core/domain/provenance.ts): the current key is published with its RFC 7638 thumbprint as `kid`
 * and no private member; `sign` yields a compact JWS whose protected header is exactly `{alg, kid, typ}` and
 * which verifies with the published key; a provenance chain it signs verifies against its published keys and
 * against nothing else.
 */
import { describe, it, expect } from 'vitest';
import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Signer } from '../core/signer.ts';
import { appendProvenance, verifyProvenance } from '../core/domain/provenance.ts';
import { buildCertificateBody, type Certificate } from '../core/domain/certificate.ts';

const encoder = new TextEncoder();

function body() {
  return buildCertificateBody({
    runId: 'run_conformance',
    harnessVersion: '0.0.0',
    traceHash: 'ab'.repeat(32),
    traceFile: 'trace.jsonl',
    compliance: { status: 'pass', score: 0.9, policy_ref: 'NIST AI 100-1' },
    evidenceLedger: { 'summary.json': 'cd'.repeat(32) },
    governanceTtlDays: 90,
  });
}

/** Runs the conformance suite against a signer built by `make` (called once per test). */
export function testSigner(label: string, make: () => Promise<Signer> | Signer): void {
  describe(`signer conformance: ${label}`, () => {
    it('publishes its current key with a thumbprint kid, alg and use, and no private member', async () => {
      const signer = await make();
      const key = await signer.currentKey();
      expect(['EdDSA', 'ES256']).toContain(key.alg);
      expect(key.kid).toBe(await calculateJwkThumbprint(key.jwk, 'sha256'));
      expect(key.jwk).toMatchObject({ kid: key.kid, alg: key.alg, use: 'sig' });
      const published = await signer.publicKeys();
      expect(published.map((jwk) => jwk.kid)).toContain(key.kid);
      for (const jwk of published) {
        for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(jwk, `${jwk.kid} publishes "${secret}"`).not.toHaveProperty(secret);
      }
    });

    it('signs a compact JWS with header {alg, kid, typ} that verifies with the published key', async () => {
      const signer = await make();
      const key = await signer.currentKey();
      for (const message of ['', 'hello', '{"a":1}', 'x'.repeat(2000)]) {
        const jws = await signer.sign(encoder.encode(message), { typ: 'conformance+jws' });
        expect(jws.split('.')).toHaveLength(3);
        expect(decodeProtectedHeader(jws)).toEqual({ alg: key.alg, kid: key.kid, typ: 'conformance+jws' });
        const { payload } = await compactVerify(jws, await importJWK(key.jwk, key.alg), { algorithms: [key.alg] });
        expect(new TextDecoder().decode(payload)).toBe(message);
      }
    });

    it('signs provenance chains that verify against its published keys and no others', async () => {
      const signer = await make();
      let cert: Certificate = { ...body(), provenance_chain: [] };
      cert = await appendProvenance(cert, { signer, identity: 'evaluator', role: 'Evaluator', timestamp: '2026-04-01T00:00:00.000Z', requiredRoles: ['Evaluator'] });
      cert = await appendProvenance(cert, { signer, identity: 'auditor', role: 'Auditor', timestamp: '2026-04-01T00:01:00.000Z', requiredRoles: ['Evaluator', 'Auditor'] });
      const published = await signer.publicKeys();
      expect(await verifyProvenance(cert, published)).toMatchObject({ ok: true });
      const other: JWK[] = published.map((jwk) => ({ ...jwk, kid: `${jwk.kid}-other` }));
      expect((await verifyProvenance(cert, other)).ok).toBe(false);
    });
  });
}
