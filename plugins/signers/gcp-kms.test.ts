import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { generateKeyPairSync, sign as nodeSign, createHash, type KeyObject } from 'node:crypto';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { p256 } from '@noble/curves/nist.js';
import { decodeProtectedHeader } from 'jose';
import { gcpKmsConfig, gcpKmsKey } from './gcp-kms.ts';
import { createRemoteSigner } from './remote-signing.ts';
import { testSigner } from '../../testing/index.ts';
import { testApp } from '../../test/helpers.ts';
import { finishFixtureRun } from '../../test/certification-fixtures.ts';

const TOKEN = 'ya29.test-access-token';
const VERSION = (key: string, version = 1) => `projects/aeh/locations/europe-west1/keyRings/certs/cryptoKeys/${key}/cryptoKeyVersions/${version}`;

type CloudKey = { algorithm: 'EC_SIGN_P256_SHA256' | 'EC_SIGN_ED25519'; privateKey: KeyObject; pem: string; scalar?: Uint8Array };
const cloudKeys = new Map<string, CloudKey>();
function addKey(name: string, algorithm: CloudKey['algorithm']): void {
  const pair = algorithm === 'EC_SIGN_P256_SHA256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const d = pair.privateKey.export({ format: 'jwk' }).d!;
  cloudKeys.set(name, { algorithm, privateKey: pair.privateKey, pem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string, scalar: Buffer.from(d, 'base64url') });
}
const requests: Array<{ method: string; path: string; body?: unknown }> = [];

const notFound = (name: string) => HttpResponse.json({ error: { code: 404, message: `CryptoKeyVersion ${name} not found.`, status: 'NOT_FOUND' } }, { status: 404 });

// Cloud KMS v1 REST as documented: cryptoKeyVersions.getPublicKey and cryptoKeyVersions.asymmetricSign.
const server = setupServer(
  http.all('https://cloudkms.googleapis.com/v1/*', async ({ request }) => {
    if (request.headers.get('authorization') !== `Bearer ${TOKEN}`) {
      return HttpResponse.json({ error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } }, { status: 401 });
    }
    const path = decodeURIComponent(new URL(request.url).pathname).replace(/^\/v1\//, '');
    const sign = path.endsWith(':asymmetricSign');
    const name = path.replace(/(:asymmetricSign|\/publicKey)$/, '');
    const body = sign ? ((await request.json()) as { digest?: { sha256?: string }; data?: string }) : undefined;
    requests.push({ method: request.method, path, body });
    const key = cloudKeys.get(name);
    if (!key) return notFound(name);
    if (request.method === 'GET' && path.endsWith('/publicKey')) {
      return HttpResponse.json({ pem: key.pem, algorithm: key.algorithm, pemCrc32c: '0', name, protectionLevel: 'HSM' });
    }
    if (request.method === 'POST' && sign) {
      let signature: Uint8Array;
      if (key.algorithm === 'EC_SIGN_ED25519') {
        if (!body?.data || body.digest) return HttpResponse.json({ error: { code: 400, message: 'data is required for EC_SIGN_ED25519', status: 'INVALID_ARGUMENT' } }, { status: 400 });
        signature = nodeSign(null, Buffer.from(body.data, 'base64'), key.privateKey);
      } else {
        const digest = Buffer.from(body?.digest?.sha256 ?? '', 'base64');
        if (digest.length !== 32) return HttpResponse.json({ error: { code: 400, message: 'digest.sha256 must be 32 bytes', status: 'INVALID_ARGUMENT' } }, { status: 400 });
        // Cloud KMS signs the digest it is given (no second hash) and returns DER.
        signature = p256.sign(digest, key.scalar!, { prehash: false, format: 'der' });
      }
      return HttpResponse.json({ signature: Buffer.from(signature).toString('base64'), verifiedDigestCrc32c: false, name, protectionLevel: 'HSM' });
    }
    return HttpResponse.json({ error: { code: 404, message: 'unknown method', status: 'NOT_FOUND' } }, { status: 404 });
  }),
);

beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
  addKey(VERSION('p256', 2), 'EC_SIGN_P256_SHA256');
  addKey(VERSION('p256', 1), 'EC_SIGN_P256_SHA256');
  addKey(VERSION('ed25519'), 'EC_SIGN_ED25519');
});
afterAll(() => server.close());

function signerFor(version: string, retired: string[] = [], token = TOKEN) {
  const config = gcpKmsConfig({ AEH_GCP_KMS_KEY_VERSION: version, AEH_GCP_KMS_RETIRED_KEY_VERSIONS: retired.join(','), AEH_GCP_ACCESS_TOKEN: token })!;
  const key = (name: string) => gcpKmsKey(config, name, () => fetch);
  return createRemoteSigner({ name: 'gcp-kms', current: key(config.keyVersion), retired: config.retiredKeyVersions.map(key) });
}

testSigner('gcp-kms (EC_SIGN_P256_SHA256, ES256)', () => signerFor(VERSION('p256', 2), [VERSION('p256', 1)]));
testSigner('gcp-kms (EC_SIGN_ED25519, EdDSA)', () => signerFor(VERSION('ed25519')));

describe('signer: gcp-kms', () => {
  it('sends the SHA-256 digest for P-256 keys and the data itself for Ed25519 keys', async () => {
    requests.length = 0;
    const input = new TextEncoder().encode('payload');
    const p256Jws = await signerFor(VERSION('p256', 2)).sign(input, { typ: 't' });
    const edJws = await signerFor(VERSION('ed25519')).sign(input, { typ: 't' });
    const signs = requests.filter((entry) => entry.path.endsWith(':asymmetricSign'));
    const signingInput = (jws: string) => jws.split('.').slice(0, 2).join('.');
    expect(signs[0]!.body).toEqual({ digest: { sha256: createHash('sha256').update(signingInput(p256Jws)).digest('base64') } });
    expect(signs[1]!.body).toEqual({ data: Buffer.from(signingInput(edJws)).toString('base64') });
  });

  it('reports the service error status and refuses malformed key names', async () => {
    await expect(signerFor(VERSION('p256', 2), [], 'wrong').currentKey()).rejects.toThrow(/UNAUTHENTICATED/);
    await expect(signerFor(VERSION('missing')).currentKey()).rejects.toThrow(/NOT_FOUND/);
    expect(() => gcpKmsConfig({ AEH_GCP_KMS_KEY_VERSION: 'projects/x/keys/y', AEH_GCP_ACCESS_TOKEN: TOKEN })).toThrow(/not a Cloud KMS key version name/);
    expect(() => gcpKmsConfig({ AEH_GCP_KMS_KEY_VERSION: VERSION('p256') })).toThrow(/AEH_GCP_ACCESS_TOKEN is not/);
  });

  it('signs certificates in the service (EdDSA) and they verify', async () => {
    const t = await testApp({ env: { AEH_GCP_KMS_KEY_VERSION: VERSION('ed25519'), AEH_GCP_ACCESS_TOKEN: TOKEN, AEH_VERIFY_CACHE_MS: '0' } });
    const runId = await finishFixtureRun(t);
    const cert = await t.json('GET', `/v1/certificates/${runId}`, { key: null });
    expect(decodeProtectedHeader(cert.body.provenance_chain[0].signature)).toMatchObject({ alg: 'EdDSA' });
    expect((await t.json('POST', `/api/v1/runs/${runId}/sign`)).status).toBe(200);
    expect((await t.json('GET', `/api/v1/verify/${runId}`, { key: null })).body).toMatchObject({ valid: true, status: 'valid' });
  });
});
