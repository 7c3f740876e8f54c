/**
 * The signer conformance suite: every signer, bundled or from a plugin, runs it. It pins what certificates rely
 * on (core/signer.ts, core/domain/provenance.ts): the current key is published with its RFC 7638 thumbprint as `kid`
 * and no private member; `sign` yields a compact JWS whose protected header is exactly `{alg, kid, typ}` and
 * which verifies with the published key, for any payload (empty, binary, 2 KB, unicode) and any `typ`; a
 * changed payload or signature does not verify; signers used concurrently from their first call sign with one
 * key; a provenance chain it signs verifies against its published keys and against nothing else.
 */
import { describe, it, expect } from 'vitest';
import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Signer, SignerKey } from '../core/signer.ts';
import { appendProvenance, verifyProvenance } from '../core/domain/provenance.ts';
import { buildCertificateBody, type Certificate } from '../core/domain/certificate.ts';

const encoder = new TextEncoder();
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

const PAYLOADS: Array<[string, Uint8Array]> = [
  ['empty', new Uint8Array()],
  ['short text', encoder.encode('hello')],
  ['JSON', encoder.encode('{"a":1,"nested":{"b":[true,null]}}')],
  ['every byte value', Uint8Array.from({ length: 512 }, (_, index) => index % 256)],
  ['unicode', encoder.encode('👩‍💻 مرحبا 你好 e\u0301 \u202Eevil\u202C')],
  // Key services bound what they sign (AWS KMS: 4096 bytes of signing input); provenance statements are far smaller.
  ['2 KB', new Uint8Array(2048).fill(0x61)],
];

const TYPS = ['aeh-provenance+jws', 'conformance+jws', 'typ "with" quotes \\ and unicode ✓'];

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

async function verifies(jws: string, key: SignerKey): Promise<boolean> {
  try {
    await compactVerify(jws, await importJWK(key.jwk, key.alg), { algorithms: [key.alg] });
    return true;
  } catch {
    return false;
  }
}

/** Runs the conformance suite against a signer built by `make` (called once per test, so each starts fresh). */
export function testSigner(label: string, make: () => Promise<Signer> | Signer): void {
  describe(`signer conformance: ${label}`, () => {
    keyCases(make);
    signatureCases(make);
    provenanceCases(make);
  });
}

function keyCases(make: () => Promise<Signer> | Signer): void {
  it('publishes its current key with a thumbprint kid, alg and use, and no private member', async () => {
    const signer = await make();
    expect(signer.name).toMatch(/^[a-z][a-z0-9_-]{0,63}$/);
    const key = await signer.currentKey();
    expect(['EdDSA', 'ES256']).toContain(key.alg);
    expect(key.kid).toBe(await calculateJwkThumbprint(key.jwk, 'sha256'));
    expect(key.jwk).toMatchObject({ kid: key.kid, alg: key.alg, use: 'sig' });
    const published = await signer.publicKeys();
    expect(published.map((jwk) => jwk.kid)).toContain(key.kid);
    for (const jwk of [key.jwk, ...published]) {
      for (const secret of PRIVATE_MEMBERS) expect(jwk, `${jwk.kid} publishes "${secret}"`).not.toHaveProperty(secret);
    }
    expect((await signer.publicKeys()).map((jwk) => jwk.kid), 'the same keys on every call').toEqual(published.map((jwk) => jwk.kid));
  });

  it('signs with one key when used concurrently from its first call', async () => {
    const signer = await make();
    const payloads = Array.from({ length: 12 }, (_, index) => encoder.encode(`entry ${index}`));
    const signatures = await Promise.all(payloads.map((payload) => signer.sign(payload, { typ: 'conformance+jws' })));
    const key = await signer.currentKey();
    for (const jws of signatures) {
      expect(decodeProtectedHeader(jws).kid).toBe(key.kid);
      expect(await verifies(jws, key)).toBe(true);
    }
  });

  it('reports its health, if it does, as { ok, message }', async () => {
    const signer = await make();
    if (!signer.health) return;
    const health = await signer.health();
    expect(typeof health.ok).toBe('boolean');
    expect(typeof health.message).toBe('string');
  });
}

function signatureCases(make: () => Promise<Signer> | Signer): void {
  it.each(PAYLOADS)('signs a %s payload as a compact JWS with header {alg, kid, typ} that verifies with the published key', async (_name, payload) => {
    const signer = await make();
    const key = await signer.currentKey();
    const jws = await signer.sign(payload, { typ: 'conformance+jws' });
    expect(jws.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(jws)).toEqual({ alg: key.alg, kid: key.kid, typ: 'conformance+jws' });
    const { payload: signed } = await compactVerify(jws, await importJWK(key.jwk, key.alg), { algorithms: [key.alg] });
    expect(Buffer.from(signed).equals(Buffer.from(payload))).toBe(true);
  });

  it('carries any typ verbatim and nothing else in the header', async () => {
    const signer = await make();
    const key = await signer.currentKey();
    for (const typ of TYPS) {
      const jws = await signer.sign(encoder.encode('typed'), { typ });
      expect(decodeProtectedHeader(jws)).toEqual({ alg: key.alg, kid: key.kid, typ });
      expect(await verifies(jws, key)).toBe(true);
    }
  });

  it('gives signatures that fail to verify once the payload or the signature is changed', async () => {
    const signer = await make();
    const key = await signer.currentKey();
    const [header, payload, signature] = (await signer.sign(encoder.encode('{"score":0.91}'), { typ: 'conformance+jws' })).split('.');
    const otherPayload = Buffer.from('{"score":0.99}').toString('base64url');
    const flipped = signature!.slice(0, 10) + (signature![10] === 'A' ? 'B' : 'A') + signature!.slice(11);
    expect(await verifies(`${header}.${otherPayload}.${signature}`, key)).toBe(false);
    expect(await verifies(`${header}.${payload}.${flipped}`, key)).toBe(false);
    expect(await verifies(`${header}.${payload}.`, key)).toBe(false);
  });
}

function provenanceCases(make: () => Promise<Signer> | Signer): void {
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
}
