import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { CompactSign, exportJWK, generateKeyPair, importJWK, base64url, type JWK } from 'jose';
import { testApp, type TestApp } from './helpers.ts';
import { finishFixtureRun } from './certification-fixtures.ts';
import { keys, SIDECARS } from '../core/domain/runs.ts';
import type { Certificate } from '../core/domain/certificate.ts';
import type { Services } from '../core/services.ts';

type Verify = { valid: boolean; status: string; checks: Array<{ id: string; ok: boolean; detail: string }> };

const encoder = new TextEncoder();
const outbound: string[] = [];
const server = setupServer(http.all('*', ({ request }) => {
  outbound.push(request.url);
  return HttpResponse.json({ keys: [] });
}));

let t: TestApp;
let services: Services;

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'bypass' });
  t = await testApp();
  services = await t.app.ready;
});
afterAll(() => server.close());

/** A run certified with the chain Evaluator, Agent, Agent, Auditor. */
async function certifiedRun(): Promise<{ runId: string; cert: Certificate }> {
  const runId = await finishFixtureRun(t, {
    agentSignatures: [
      { identity: 'agent:router', jws: 'eyJhbGciOiJFZERTQSJ9.eyJ0IjoxfQ.c2ln', task_id: 't1', verified: true },
      { identity: 'agent:support', jws: 'eyJhbGciOiJFZERTQSJ9.eyJ0IjoyfQ.c2ln', task_id: 't1', verified: true },
    ],
  });
  const signed = await t.json<Certificate>('POST', `/api/v1/runs/${runId}/sign`);
  expect(signed.status).toBe(200);
  return { runId, cert: signed.body };
}

async function verify(runId: string): Promise<Verify> {
  const res = await t.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null });
  expect(res.status).toBe(200);
  return res.body;
}

const failing = (report: Verify) => report.checks.filter((check) => !check.ok).map((check) => check.id).sort();
const detailOf = (report: Verify, id: string) => report.checks.find((check) => check.id === id)?.detail ?? '';

async function flipByte(key: string, at = 5): Promise<void> {
  const bytes = new Uint8Array((await services.store.getBytes(key))!);
  bytes[at] = bytes[at]! ^ 0x01;
  await services.store.setBytes(key, bytes);
}

async function writeCertificate(runId: string, edit: (cert: Certificate) => unknown): Promise<void> {
  const cert = (await services.store.getJson<Certificate>(keys.certificate(runId)))!;
  await services.store.setJson(keys.certificate(runId), edit(structuredClone(cert)));
}

/** The local signer's private key (kept in the memory store here): lets tests sign well-formed forgeries. */
async function ourPrivateKey(): Promise<JWK> {
  return (await services.store.getJson<{ current: JWK }>('keys/local-signer.json'))!.current;
}

describe('certification: tamper matrix (each artefact × each check)', () => {
  it('an untouched run verifies with every check passing', async () => {
    const { runId, cert } = await certifiedRun();
    expect(cert.provenance_chain.map((entry) => entry.role)).toEqual(['Evaluator', 'Agent', 'Agent', 'Auditor']);
    const report = await verify(runId);
    expect(failing(report)).toEqual([]);
    expect(report).toMatchObject({ valid: true, status: 'valid' });
  });

  describe('artefacts', () => {
    it('one byte of the trace changed → trace_hash', async () => {
      const { runId } = await certifiedRun();
      await flipByte(keys.trace(runId));
      const report = await verify(runId);
      expect(failing(report)).toEqual(['trace_hash']);
      expect(report.status).toBe('invalid');
      expect(detailOf(report, 'trace_hash')).toContain('trace.jsonl hashes to');
    });

    it('a byte appended to the trace → trace_hash', async () => {
      const { runId } = await certifiedRun();
      const bytes = (await services.store.getBytes(keys.trace(runId)))!;
      await services.store.setBytes(keys.trace(runId), new Uint8Array([...bytes, 0x0a]));
      expect(failing(await verify(runId))).toEqual(['trace_hash']);
    });

    it('the trace deleted → trace_hash names it missing', async () => {
      const { runId } = await certifiedRun();
      await services.store.remove(keys.trace(runId));
      const report = await verify(runId);
      expect(failing(report)).toEqual(['trace_hash']);
      expect(detailOf(report, 'trace_hash')).toContain('missing');
    });

    for (const file of Object.values(SIDECARS)) {
      it(`one byte of ${file} changed → evidence_ledger names ${file}`, async () => {
        const { runId } = await certifiedRun();
        await flipByte(keys.sidecar(runId, file), 1);
        const report = await verify(runId);
        expect(failing(report)).toEqual(['evidence_ledger']);
        expect(detailOf(report, 'evidence_ledger')).toContain(`${file} hashes to`);
      });

      it(`${file} deleted → evidence_ledger names it missing`, async () => {
        const { runId } = await certifiedRun();
        await services.store.remove(keys.sidecar(runId, file));
        const report = await verify(runId);
        expect(failing(report)).toEqual(['evidence_ledger']);
        expect(detailOf(report, 'evidence_ledger')).toContain(`${file} is missing`);
      });
    }
  });

  describe('certificate fields', () => {
    const edits: Array<[string, (cert: Certificate) => unknown, string[]]> = [
      ['compliance.score raised', (cert) => ({ ...cert, compliance: { ...cert.compliance, score: 1 } }), ['signatures']],
      ['compliance.status changed', (cert) => ({ ...cert, compliance: { ...cert.compliance, status: 'warning' } }), ['signatures']],
      ['policy_ref changed', (cert) => ({ ...cert, compliance: { ...cert.compliance, policy_ref: 'ISO 42001' } }), ['signatures']],
      ['governance_ttl extended', (cert) => ({ ...cert, governance_ttl: 36500 }), ['signatures']],
      ['harness_version changed', (cert) => ({ ...cert, harness_version: '9.9.9' }), ['signatures']],
      ['a ledger entry removed', (cert) => ({ ...cert, evidence_ledger: Object.fromEntries(Object.entries(cert.evidence_ledger).slice(1)) }), ['signatures']],
      ['an unknown field added', (cert) => ({ ...cert, note: 'approved' }), ['schema', 'signatures']],
      ['vc_version changed', (cert) => ({ ...cert, vc_version: '2.0.0' }), ['schema', 'signatures']],
      ['trace_hash malformed', (cert) => ({ ...cert, trace_hash: 'zz' }), ['schema', 'signatures', 'trace_hash']],
      ['trace_file pointed outside the run', (cert) => ({ ...cert, trace_file: '../other/trace.jsonl' }), ['schema', 'signatures', 'trace_hash']],
      ['a ledger name pointed outside the run', (cert) => ({ ...cert, evidence_ledger: { ...cert.evidence_ledger, '../../run.json': 'a'.repeat(64) } }), ['evidence_ledger', 'schema', 'signatures']],
      ['run_id changed', (cert) => ({ ...cert, run_id: 'someone_else' }), ['run_id', 'signatures']],
    ];
    for (const [name, edit, expected] of edits) {
      it(`${name} → ${expected.join(', ')}`, async () => {
        const { runId } = await certifiedRun();
        await writeCertificate(runId, edit);
        const report = await verify(runId);
        expect(failing(report)).toEqual(expected);
        expect(report.status).toBe('invalid');
      });
    }

    it('trace replaced and trace_hash rewritten to match → signatures (the hash is signed)', async () => {
      const { runId } = await certifiedRun();
      const forged = encoder.encode('{"seq":0,"type":"run_start"}\n');
      await services.store.setBytes(keys.trace(runId), forged);
      const { createHash } = await import('node:crypto');
      await writeCertificate(runId, (cert) => ({ ...cert, trace_hash: createHash('sha3-256').update(forged).digest('hex') }));
      const report = await verify(runId);
      expect(failing(report)).toEqual(['signatures']);
      expect(detailOf(report, 'signatures')).toContain('a field of the certificate was changed');
    });

    it('a certificate that is not JSON → invalid on every check', async () => {
      const { runId } = await certifiedRun();
      await services.store.setBytes(keys.certificate(runId), encoder.encode('{"vc_version": "3.0.0",'));
      const report = await verify(runId);
      expect(report.status).toBe('invalid');
      expect(failing(report)).toEqual(expect.arrayContaining(['schema', 'signatures', 'trace_hash', 'evidence_ledger']));
    });
  });

  describe('provenance chain', () => {
    const chainEdits: Array<[string, (chain: Certificate['provenance_chain']) => Certificate['provenance_chain'], string[], string]> = [
      ['two entries swapped', (chain) => [chain[0]!, chain[2]!, chain[1]!, chain[3]!], ['signatures'], 'removed or reordered'],
      ['the Evaluator entry dropped', (chain) => chain.slice(1), ['chain_anchor', 'expiry', 'signatures'], 'starts with the Evaluator'],
      ['a middle entry dropped', (chain) => [chain[0]!, chain[2]!, chain[3]!], ['chain_anchor', 'signatures'], 'removed or reordered'],
      ['the last two entries dropped', (chain) => chain.slice(0, 2), ['chain_anchor', 'signatures'], 'entries were dropped'],
      ['the last entry (Auditor) dropped', (chain) => chain.slice(0, 3), ['chain_anchor'], ''],
      ['an entry duplicated', (chain) => [...chain, chain[3]!], ['signatures'], 'removed or reordered'],
      ['a timestamp moved', (chain) => chain.map((entry, index) => (index === 1 ? { ...entry, timestamp: '2020-01-01T00:00:00.000Z' } : entry)), ['signatures'], 'timestamp differs'],
      ['an identity replaced', (chain) => chain.map((entry, index) => (index === 3 ? { ...entry, identity: 'ceo' } : entry)), ['signatures'], 'identity differs'],
      ['a role changed', (chain) => chain.map((entry, index) => (index === 3 ? { ...entry, role: 'Agent' as const } : entry)), ['signatures'], 'role differs'],
      ['a signature byte changed', (chain) => chain.map((entry, index) => (index === 2 ? { ...entry, signature: `${entry.signature.slice(0, -3)}${entry.signature.at(-3) === 'A' ? 'B' : 'A'}${entry.signature.slice(-2)}` } : entry)), ['signatures'], 'does not verify'],
      ['the chain emptied', () => [], ['chain_anchor', 'expiry', 'signatures'], 'chain is empty'],
      ['entries that are not objects', (chain) => [chain[0]!, null, 7] as unknown as Certificate['provenance_chain'], ['chain_anchor', 'expiry', 'schema', 'signatures'], 'could not be read'],
    ];
    for (const [name, edit, expected, detail] of chainEdits) {
      it(`${name} → ${expected.join(', ')}`, async () => {
        const { runId } = await certifiedRun();
        await writeCertificate(runId, (cert) => ({ ...cert, provenance_chain: edit(cert.provenance_chain) }));
        const report = await verify(runId);
        expect(failing(report)).toEqual(expected);
        expect(report.status).toBe('invalid');
        if (detail) expect(detailOf(report, 'signatures')).toContain(detail);
      });
    }

    it('a signature by a key outside our key set is refused, and the key it names is never fetched', async () => {
      const { runId, cert } = await certifiedRun();
      const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
      const payload = base64url.decode(cert.provenance_chain[3]!.signature.split('.')[1]!);
      const forged = await new CompactSign(payload)
        .setProtectedHeader({ alg: 'EdDSA', typ: 'aeh-provenance+jws', kid: 'attacker', jku: 'https://evil.test/jwks.json', jwk: await exportJWK(publicKey) })
        .sign(privateKey);
      outbound.length = 0;
      await writeCertificate(runId, (c) => ({ ...c, provenance_chain: c.provenance_chain.map((entry, index) => (index === 3 ? { ...entry, signature: forged } : entry)) }));
      const report = await verify(runId);
      expect(failing(report)).toEqual(['chain_anchor', 'signatures']);
      expect(detailOf(report, 'signatures')).toContain('kid "attacker" is not in the published key set');
      expect(outbound).toEqual([]);
    });

    it('a foreign key that reuses our kid does not verify', async () => {
      const { runId, cert } = await certifiedRun();
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      const original = cert.provenance_chain[3]!.signature.split('.');
      const header = JSON.parse(new TextDecoder().decode(base64url.decode(original[0]!)));
      const forged = await new CompactSign(base64url.decode(original[1]!)).setProtectedHeader(header).sign(privateKey);
      await writeCertificate(runId, (c) => ({ ...c, provenance_chain: c.provenance_chain.map((entry, index) => (index === 3 ? { ...entry, signature: forged } : entry)) }));
      const report = await verify(runId);
      expect(detailOf(report, 'signatures')).toContain('does not verify');
    });

    it('our own key with the wrong typ, or alg "none", is refused', async () => {
      const { runId, cert } = await certifiedRun();
      const key = await importJWK(await ourPrivateKey(), 'EdDSA');
      const original = cert.provenance_chain[3]!.signature.split('.');
      const header = JSON.parse(new TextDecoder().decode(base64url.decode(original[0]!)));
      const wrongTyp = await new CompactSign(base64url.decode(original[1]!)).setProtectedHeader({ ...header, typ: 'JWT' }).sign(key);
      await writeCertificate(runId, (c) => ({ ...c, provenance_chain: c.provenance_chain.map((entry, index) => (index === 3 ? { ...entry, signature: wrongTyp } : entry)) }));
      expect(detailOf(await verify(runId), 'signatures')).toContain('typ is "JWT"');

      const none = `${base64url.encode(JSON.stringify({ ...header, alg: 'none' }))}.${original[1]}.`;
      await writeCertificate(runId, (c) => ({ ...c, provenance_chain: c.provenance_chain.map((entry, index) => (index === 3 ? { ...entry, signature: none } : entry)) }));
      expect(detailOf(await verify(runId), 'signatures')).toContain('alg "none" is not accepted');
    });

    it('a payload re-serialised (same values, not JCS) is refused', async () => {
      const { runId, cert } = await certifiedRun();
      const key = await importJWK(await ourPrivateKey(), 'EdDSA');
      const original = cert.provenance_chain[3]!.signature.split('.');
      const header = JSON.parse(new TextDecoder().decode(base64url.decode(original[0]!)));
      const statement = JSON.parse(new TextDecoder().decode(base64url.decode(original[1]!)));
      const pretty = await new CompactSign(encoder.encode(JSON.stringify(statement, null, 2))).setProtectedHeader(header).sign(key);
      await writeCertificate(runId, (c) => ({ ...c, provenance_chain: c.provenance_chain.map((entry, index) => (index === 3 ? { ...entry, signature: pretty } : entry)) }));
      const report = await verify(runId);
      expect(detailOf(report, 'signatures')).toContain('not the canonical statement');
    });
  });
});

describe('certification: expiry', () => {
  it('a certificate past governance_ttl is expired (not invalid), and the ttl is configurable', async () => {
    let clock = Date.parse('2026-04-01T00:00:00.000Z');
    const app = await testApp({ env: { AEH_GOVERNANCE_TTL_DAYS: '30' }, capabilities: { now: () => clock } });
    const runId = await finishFixtureRun(app);
    const cert = (await app.json<Certificate>('GET', `/v1/certificates/${runId}`, { key: null })).body;
    expect(cert.governance_ttl).toBe(30);
    clock += 29 * 86_400_000;
    expect((await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body).toMatchObject({ valid: true, status: 'valid' });
    clock += 2 * 86_400_000;
    const report = (await app.json<Verify & { expires_at: string }>('GET', `/api/v1/verify/${runId}`, { key: null })).body;
    expect(report).toMatchObject({ valid: false, status: 'expired', expires_at: '2026-05-01T00:00:00.000Z' });
    expect(failing(report)).toEqual(['expiry']);
    expect(detailOf(report, 'expiry')).toContain('expired at 2026-05-01T00:00:00.000Z');
    // An expired certificate is not countersigned.
    expect((await app.json('POST', `/api/v1/runs/${runId}/sign`)).status).toBe(409);
  });

  it('a tampered and expired certificate is invalid (integrity outranks expiry)', async () => {
    let clock = Date.parse('2026-04-01T00:00:00.000Z');
    const app = await testApp({ capabilities: { now: () => clock } });
    const runId = await finishFixtureRun(app);
    const appServices = await app.app.ready;
    await appServices.store.setBytes(keys.trace(runId), encoder.encode('x'));
    clock += 365 * 86_400_000;
    expect((await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body.status).toBe('invalid');
  });
});

describe('certification: public verify is never stale (issue 13)', () => {
  it('sees a trace byte edited and a sidecar deleted on the very next request (memory store: re-hashed every time)', async () => {
    const app = await testApp();
    const appServices = await app.app.ready;
    const runId = await finishFixtureRun(app);
    expect((await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body.valid).toBe(true);
    const bytes = new Uint8Array((await appServices.store.getBytes(keys.trace(runId)))!);
    bytes[3] = bytes[3]! ^ 1;
    await appServices.store.setBytes(keys.trace(runId), bytes);
    expect(failing((await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body)).toEqual(['trace_hash']);
    await appServices.store.remove(keys.sidecar(runId, SIDECARS.scores));
    const report = (await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body;
    expect(failing(report)).toEqual(['evidence_ledger', 'trace_hash']);
    expect(detailOf(report, 'evidence_ledger')).toContain('scores.json is missing');
    expect(detailOf(report, 'trace_hash')).not.toContain('ago');
  });

  it('reuses a hash on the fs store only under its change proof: an in-place edit, a same-mtime edit and a deletion are seen at once', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-verify-fs-'));
    const dataDir = join(root, '.aeh');
    const app = await testApp({ env: { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: dataDir } });
    const runId = await finishFixtureRun(app);
    const trace = join(dataDir, 'runs', runId, 'trace.jsonl');
    // Whole seconds, so the edit below can set the mtime back to exactly the same nanosecond value.
    utimesSync(trace, 1_700_000_000, 1_700_000_000);
    const get = async () => (await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body;
    // Fresh files get no proof (their timestamps could still hide a second write within the same clock tick).
    expect(detailOf(await get(), 'trace_hash')).not.toContain('change proof');
    // Past the settle window (the clock moved on, not the files), the proof lets the next request skip hashing.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    try {
      expect((await get()).valid).toBe(true);
      const reused = await get();
      expect(reused.valid).toBe(true);
      expect(detailOf(reused, 'trace_hash')).toContain("unchanged since hashed, by the store's change proof");
      expect(detailOf(reused, 'evidence_ledger')).toContain('all unchanged since hashed');
      await new Promise((resolve) => setTimeout(resolve, 25));
      // One byte changed in place (same inode, same size) and the mtime set back to what it was.
      const before = statSync(trace, { bigint: true });
      const fd = openSync(trace, 'r+');
      writeSync(fd, readFileSync(trace).subarray(5, 6).map((byte) => byte ^ 1), 0, 1, 5);
      closeSync(fd);
      utimesSync(trace, 1_700_000_000, 1_700_000_000);
      const after = statSync(trace, { bigint: true });
      expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
      expect(failing(await get())).toEqual(['trace_hash']);
      rmSync(join(dataDir, 'runs', runId, SIDECARS.summary));
      const report = await get();
      expect(failing(report)).toEqual(['evidence_ledger', 'trace_hash']);
      expect(detailOf(report, 'evidence_ledger')).toContain('summary.json is missing');
    } finally {
      vi.useRealTimers();
      await app.app.close();
    }
  });

  it('AEH_VERIFY_REHASH=always ignores the change proof; AEH_VERIFY_CACHE_MS is refused unless 0', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-verify-fs-'));
    const app = await testApp({ env: { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: join(root, '.aeh'), AEH_VERIFY_REHASH: 'always' } });
    const runId = await finishFixtureRun(app);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    try {
      for (let round = 0; round < 2; round++) {
        const report = (await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body;
        expect(report.valid).toBe(true);
        expect(detailOf(report, 'trace_hash')).not.toContain('change proof');
      }
    } finally {
      vi.useRealTimers();
      await app.app.close();
    }
    await expect(testApp({ env: { AEH_VERIFY_CACHE_MS: '1000' } })).rejects.toThrow(/AEH_VERIFY_CACHE_MS is gone/);
    await expect(testApp({ env: { AEH_VERIFY_REHASH: 'sometimes' } })).rejects.toThrow(/AEH_VERIFY_REHASH must be/);
    await (await testApp({ env: { AEH_VERIFY_CACHE_MS: '0' } })).app.close();
  });

  it('sees an edit of the certificate at once', async () => {
    const app = await testApp();
    const appServices = await app.app.ready;
    const runId = await finishFixtureRun(app);
    expect((await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body.valid).toBe(true);
    const cert = (await appServices.store.getJson<Certificate>(keys.certificate(runId)))!;
    await appServices.store.setJson(keys.certificate(runId), { ...cert, compliance: { ...cert.compliance, score: 1 } });
    expect(failing((await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body)).toEqual(['signatures']);
  });
});

describe('certification: a crash between the certificate and anchor writes (issue 13)', () => {
  /** Makes the store fail the next write of `key`, as a crash at that point would leave things. */
  function failNextWrite(store: Services['store'], key: string): void {
    const setJson = store.setJson.bind(store);
    store.setJson = async (written, value) => {
      if (written !== key) return setJson(written, value);
      store.setJson = setJson;
      throw new Error(`simulated crash before writing ${key}`);
    };
  }

  /** A countersigned run whose trace then changed, so run.finished issues a replacement chain. */
  async function reissuable(app: TestApp): Promise<{ runId: string; appServices: Services }> {
    const appServices = await app.app.ready;
    const runId = await finishFixtureRun(app);
    expect((await app.json('POST', `/api/v1/runs/${runId}/sign`)).status).toBe(200);
    await appServices.store.append(keys.trace(runId), encoder.encode('{"seq":4,"type":"note","data":{}}\n'));
    return { runId, appServices };
  }

  it('crash after the anchor announced the new chain, before the certificate: no false chain_anchor failure', async () => {
    const app = await testApp();
    const { runId, appServices } = await reissuable(app);
    failNextWrite(appServices.store, keys.certificate(runId));
    await Promise.resolve(appServices.hooks.emit('run.finished', { run_id: runId })).catch(() => undefined);
    const report = (await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body;
    // The old certificate no longer matches the changed trace (true), but its chain is the one signed.
    expect(failing(report)).toEqual(['trace_hash']);
    expect(detailOf(report, 'chain_anchor')).toContain('holds the 2 entries');
  });

  it('crash after the certificate, before the anchor was committed: the new certificate verifies', async () => {
    const app = await testApp();
    const { runId, appServices } = await reissuable(app);
    // The first anchor write (announcing the new chain) goes through; the second (the commit) never happens.
    let writes = 0;
    const original = appServices.store.setJson;
    appServices.store.setJson = async (key, value) => {
      if (key === `runs/${runId}/certificate.anchor.json` && ++writes === 2) {
        appServices.store.setJson = original;
        throw new Error('simulated crash before committing the anchor');
      }
      return original(key, value);
    };
    await Promise.resolve(appServices.hooks.emit('run.finished', { run_id: runId })).catch(() => undefined);
    const anchor = await appServices.store.getJson<{ entries: number; pending?: { entries: number } }>(`runs/${runId}/certificate.anchor.json`);
    expect(anchor).toMatchObject({ entries: 2, pending: { entries: 1 } });
    const report = (await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null })).body;
    expect(failing(report)).toEqual([]);
    expect(report.valid).toBe(true);
    // The next write commits as usual.
    expect((await app.json('POST', `/api/v1/runs/${runId}/sign`)).status).toBe(200);
    expect(await appServices.store.getJson(`runs/${runId}/certificate.anchor.json`)).not.toHaveProperty('pending');
  });
});
