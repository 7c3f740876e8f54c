import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { p256 } from '@noble/curves/nist.js';
import { decodeProtectedHeader } from 'jose';
import { azureKeyVaultConfig, azureKey } from './azure-keyvault.ts';
import { createRemoteSigner } from './remote-signing.ts';
import { testSigner } from '../../testing/index.ts';
import { testApp } from '../../test/helpers.ts';
import { finishFixtureRun } from '../../test/certification-fixtures.ts';

const TOKEN = 'eyJ0eXAiOiJKV1QifQ.azure.token';
const VAULT = 'https://aeh-vault.vault.azure.net';
const KEY_ID = (version: string) => `${VAULT}/keys/certificates/${version}`;

type VaultKey = { jwk: { kty: string; crv: string; x: string; y: string }; scalar: Uint8Array };
const vaultKeys = new Map<string, VaultKey>();
function addKey(version: string, kty = 'EC-HSM', crv = 'P-256'): void {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  vaultKeys.set(version, { jwk: { kty, crv, x: jwk.x!, y: jwk.y! }, scalar: Buffer.from(jwk.d!, 'base64url') });
}
const apiVersions: string[] = [];

// Key Vault REST as documented: GET {vault}/keys/{name}/{version} and POST .../sign, api-version 7.4.
const server = setupServer(
  http.get(`${VAULT}/keys/certificates/:version`, ({ request, params }) => {
    if (request.headers.get('authorization') !== `Bearer ${TOKEN}`) return HttpResponse.json({ error: { code: 'Unauthorized', message: 'AKV10000: Request is missing a Bearer or PoP token.' } }, { status: 401 });
    apiVersions.push(new URL(request.url).searchParams.get('api-version') ?? '');
    const key = vaultKeys.get(String(params.version));
    if (!key) return HttpResponse.json({ error: { code: 'KeyNotFound', message: `A key with (name/id) certificates/${params.version} was not found in this key vault.` } }, { status: 404 });
    return HttpResponse.json({ key: { kid: KEY_ID(String(params.version)), ...key.jwk, key_ops: ['sign', 'verify'] }, attributes: { enabled: true, created: 1735689600, updated: 1735689600, recoveryLevel: 'Recoverable+Purgeable' } });
  }),
  http.post(`${VAULT}/keys/certificates/:version/sign`, async ({ request, params }) => {
    if (request.headers.get('authorization') !== `Bearer ${TOKEN}`) return HttpResponse.json({ error: { code: 'Unauthorized', message: 'missing token' } }, { status: 401 });
    const key = vaultKeys.get(String(params.version));
    if (!key) return HttpResponse.json({ error: { code: 'KeyNotFound', message: 'not found' } }, { status: 404 });
    const body = (await request.json()) as { alg?: string; value?: string };
    const digest = Buffer.from(body.value ?? '', 'base64url');
    if (body.alg !== 'ES256' || digest.length !== 32) return HttpResponse.json({ error: { code: 'BadParameter', message: 'Invalid digest length for ES256' } }, { status: 400 });
    // Key Vault signs the digest it is given and returns the JOSE r||s form, base64url.
    const signature = p256.sign(digest, key.scalar, { prehash: false, format: 'compact' });
    return HttpResponse.json({ kid: KEY_ID(String(params.version)), value: Buffer.from(signature).toString('base64url') });
  }),
);

beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
  addKey('v2');
  addKey('v1', 'EC');
  addKey('rsa', 'RSA', 'none');
});
afterAll(() => server.close());

function signerFor(version: string, retired: string[] = []) {
  const config = azureKeyVaultConfig({ AEH_AZURE_KEY_ID: KEY_ID(version), AEH_AZURE_RETIRED_KEY_IDS: retired.map(KEY_ID).join(','), AEH_AZURE_ACCESS_TOKEN: TOKEN })!;
  const key = (id: string) => azureKey(config, id, () => fetch);
  return createRemoteSigner({ name: 'azure-keyvault', current: key(config.keyId), retired: config.retiredKeyIds.map(key) });
}

testSigner('azure-keyvault (EC-HSM P-256, ES256)', () => signerFor('v2', ['v1']));

describe('signer: azure-keyvault', () => {
  it('uses api-version 7.4 and refuses keys that are not EC P-256', async () => {
    apiVersions.length = 0;
    await signerFor('v2').currentKey();
    expect(apiVersions).toEqual(['7.4']);
    await expect(signerFor('rsa').currentKey()).rejects.toThrow(/EC P-256 key is needed/);
    await expect(signerFor('v9').currentKey()).rejects.toThrow(/KeyNotFound/);
  });

  it('accepts only versioned https key identifiers', () => {
    expect(azureKeyVaultConfig({})).toBeNull();
    expect(() => azureKeyVaultConfig({ AEH_AZURE_KEY_ID: `${VAULT}/keys/certificates`, AEH_AZURE_ACCESS_TOKEN: TOKEN })).toThrow(/versioned/);
    expect(() => azureKeyVaultConfig({ AEH_AZURE_KEY_ID: 'http://aeh-vault.vault.azure.net/keys/a/b', AEH_AZURE_ACCESS_TOKEN: TOKEN })).toThrow(/versioned/);
    expect(() => azureKeyVaultConfig({ AEH_AZURE_KEY_ID: KEY_ID('v2') })).toThrow(/AEH_AZURE_ACCESS_TOKEN is not/);
  });

  it('signs certificates in the service (ES256) and they verify, old key included', async () => {
    const t = await testApp({ env: { AEH_AZURE_KEY_ID: KEY_ID('v2'), AEH_AZURE_RETIRED_KEY_IDS: KEY_ID('v1'), AEH_AZURE_ACCESS_TOKEN: TOKEN, AEH_VERIFY_CACHE_MS: '0' } });
    const runId = await finishFixtureRun(t);
    const cert = await t.json('GET', `/v1/certificates/${runId}`, { key: null });
    expect(decodeProtectedHeader(cert.body.provenance_chain[0].signature)).toMatchObject({ alg: 'ES256' });
    expect((await t.json('GET', '/.well-known/jwks.json', { key: null })).body.keys).toHaveLength(2);
    expect((await t.json('GET', `/api/v1/verify/${runId}`, { key: null })).body.valid).toBe(true);
  });
});
