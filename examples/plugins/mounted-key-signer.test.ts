/**
 * The mounted-key example passes the signer conformance suite with both key types, and signs the certificates
 * of real runs when loaded from an `aeh.config.ts` the way a user loads it; a bad key file stops the start.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exportJWK, generateKeyPair, decodeProtectedHeader } from 'jose';
import { testSigner } from '../../testing/index.ts';
import { buildNodeApp } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { TEST_KEY } from '../../test/helpers.ts';
import { createMountedKeySigner } from './mounted-key-signer.ts';

/** A fresh private JWK in a file of a fresh folder, as a secret mount would hold it. */
async function keyFile(alg: 'EdDSA' | 'ES256'): Promise<{ dir: string; path: string; jwk: Record<string, unknown> }> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const jwk = (await exportJWK(privateKey)) as Record<string, unknown>;
  const dir = mkdtempSync(join(tmpdir(), 'aeh-example-signer-'));
  const path = join(dir, 'signing.jwk');
  writeFileSync(path, JSON.stringify(jwk), { mode: 0o600 });
  return { dir, path, jwk };
}

testSigner('example mounted-key (Ed25519)', async () => {
  const { path } = await keyFile('EdDSA');
  return createMountedKeySigner({ readKey: () => readFile(path, 'utf8') });
});
testSigner('example mounted-key (P-256)', async () => {
  const { path } = await keyFile('ES256');
  return createMountedKeySigner({ readKey: () => readFile(path, 'utf8') });
});

const EXAMPLE = pathToFileURL(join(fileURLToPath(new URL('.', import.meta.url)), 'mounted-key-signer.ts')).href;

/** Starts the service with an aeh.config.ts that loads the signer for the key at `keyPath`. */
async function startWithSigner(root: string, keyPath: string) {
  writeFileSync(join(root, 'aeh.config.ts'), `import { mountedKeySigner } from ${JSON.stringify(EXAMPLE)};\nexport default { plugins: [mountedKeySigner({ path: ${JSON.stringify(keyPath)} })] };\n`);
  const { app } = await buildNodeApp({ DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory', PROJECT_ROOT: root }, root, silentLogger);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await app.request(path, { method, headers: { 'X-API-Key': TEST_KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
  return { app, call };
}

describe('example plugin: mounted-key signer', () => {
  it('signs the certificate of a run with the mounted key, which public verification accepts', async () => {
    const { dir, path } = await keyFile('EdDSA');
    const { app, call } = await startWithSigner(dir, path);
    const kid = (await createMountedKeySigner({ readKey: () => readFile(path, 'utf8') }).currentKey()).kid;
    expect((await call('GET', '/.well-known/jwks.json')).body.keys.map((key: { kid: string }) => key.kid)).toContain(kid);
    const scenario = {
      id: 'signed-support', title: 'Signed support', industry: 'Fintech', use_case: 'Customer support', tags: ['example'], policy_ref: 'NIST AI 100-1',
      agent: { adapter: 'scripted', replies: { t1: 'Your balance is 42 EUR.' } },
      topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
      tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] }],
    };
    const accepted = await call('POST', '/api/evaluate', { scenario });
    let certificate: any;
    for (let polls = 0; polls < 500 && !certificate?.provenance_chain; polls++) {
      certificate = (await call('GET', `/v1/certificates/${accepted.body.run_id}`)).body;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(decodeProtectedHeader(certificate.provenance_chain[0].signature).kid).toBe(kid);
    const verified = await call('GET', `/api/v1/verify/${accepted.body.run_id}`);
    expect(verified.body).toMatchObject({ valid: true });
    await app.close();
  });

  it('stops the start naming the key file when it is missing or not a key, never repeating its content', async () => {
    const { dir, jwk } = await keyFile('EdDSA');
    await expect(startWithSigner(dir, join(dir, 'missing.jwk'))).rejects.toThrow(/missing\.jwk: the key file cannot be read/);
    const broken = join(dir, 'broken.jwk');
    writeFileSync(broken, JSON.stringify(jwk).slice(0, -5));
    const failure = await startWithSigner(dir, broken).then(() => undefined, (error: Error) => error);
    expect(failure?.message).toMatch(/broken\.jwk: the key file is not JSON/);
    expect(failure?.message).not.toContain(String(jwk.d));
  });
});
