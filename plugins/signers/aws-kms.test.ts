import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { createHash, createHmac, generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { decodeProtectedHeader } from 'jose';
import { awsKmsConfig, awsKmsKey, signSigV4, amzDate } from './aws-kms.ts';
import { createRemoteSigner } from './remote-signing.ts';
import { testSigner } from '../../testing/index.ts';
import { testApp } from '../../test/helpers.ts';
import { finishFixtureRun } from '../../test/certification-fixtures.ts';

const ENDPOINT = 'https://kms.eu-west-1.amazonaws.com/';
const CREDENTIALS = { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', AWS_SESSION_TOKEN: 'session-token' };
const ARN = (id: string) => `arn:aws:kms:eu-west-1:111122223333:key/${id}`;

type KmsKey = { spec: 'ECC_NIST_P256' | 'ECC_NIST_EDWARDS25519'; privateKey: KeyObject; spki: Buffer };
const kmsKeys = new Map<string, KmsKey>();
function addKey(id: string, spec: KmsKey['spec']): void {
  const pair = spec === 'ECC_NIST_P256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  kmsKeys.set(id, { spec, privateKey: pair.privateKey, spki: pair.publicKey.export({ type: 'spki', format: 'der' }) });
}
const calls: string[] = [];
let outage = false;

/** Checks SigV4 independently of our implementation (node:crypto HMAC), per the AWS documentation. */
function sigV4Valid(request: Request, body: string): boolean {
  const authorization = request.headers.get('authorization') ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return false;
  const [, accessKey, date, region, service, signedHeaders, signature] = match;
  if (accessKey !== CREDENTIALS.AWS_ACCESS_KEY_ID || region !== 'eu-west-1' || service !== 'kms') return false;
  const names = signedHeaders!.split(';');
  for (const required of ['host', 'x-amz-date', 'x-amz-target', 'content-type', 'x-amz-security-token']) if (!names.includes(required)) return false;
  const url = new URL(request.url);
  const canonicalHeaders = names.map((name) => `${name}:${name === 'host' ? url.host : request.headers.get(name)}\n`).join('');
  const canonical = ['POST', '/', '', canonicalHeaders, signedHeaders, createHash('sha256').update(body).digest('hex')].join('\n');
  const amz = request.headers.get('x-amz-date')!;
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amz, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${CREDENTIALS.AWS_SECRET_ACCESS_KEY}`).update(date!).digest();
  for (const part of [region!, service!, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex') === signature;
}

const error = (type: string, message: string, status = 400) => HttpResponse.json({ __type: type, message }, { status, headers: { 'content-type': 'application/x-amz-json-1.1' } });

// The KMS JSON API (TrentService) as documented: GetPublicKey and Sign.
const server = setupServer(
  http.post(ENDPOINT, async ({ request }) => {
    if (outage) return error('KMSInternalException', 'internal', 500);
    const text = await request.text();
    if (request.headers.get('content-type') !== 'application/x-amz-json-1.1') return error('SerializationException', 'bad content type');
    if (!sigV4Valid(request, text) || request.headers.get('x-amz-security-token') !== CREDENTIALS.AWS_SESSION_TOKEN) return error('InvalidSignatureException', 'The request signature we calculated does not match', 400);
    const body = JSON.parse(text) as { KeyId: string; Message?: string; MessageType?: string; SigningAlgorithm?: string };
    const target = request.headers.get('x-amz-target');
    calls.push(`${target} ${body.KeyId}`);
    const key = kmsKeys.get(body.KeyId);
    if (!key) return error('NotFoundException', `Key '${ARN(body.KeyId)}' does not exist`);
    if (target === 'TrentService.GetPublicKey') {
      const algorithms = key.spec === 'ECC_NIST_P256' ? ['ECDSA_SHA_256'] : ['ED25519_SHA_512', 'ED25519_PH_SHA_512'];
      return HttpResponse.json({ KeyId: ARN(body.KeyId), KeySpec: key.spec, KeyUsage: 'SIGN_VERIFY', PublicKey: key.spki.toString('base64'), SigningAlgorithms: algorithms });
    }
    if (target === 'TrentService.Sign') {
      const message = Buffer.from(body.Message!, 'base64');
      if (body.MessageType !== 'RAW') return error('ValidationException', 'expected RAW in this test');
      if (message.length > 4096) return error('ValidationException', 'Message too long');
      const expected = key.spec === 'ECC_NIST_P256' ? 'ECDSA_SHA_256' : 'ED25519_SHA_512';
      if (body.SigningAlgorithm !== expected) return error('InvalidKeyUsageException', `${body.SigningAlgorithm} is not valid for ${key.spec}`);
      const signature = key.spec === 'ECC_NIST_P256' ? nodeSign('sha256', message, { key: key.privateKey, dsaEncoding: 'der' }) : nodeSign(null, message, key.privateKey);
      return HttpResponse.json({ KeyId: ARN(body.KeyId), Signature: signature.toString('base64'), SigningAlgorithm: body.SigningAlgorithm });
    }
    return error('UnknownOperationException', String(target));
  }),
);

beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
  addKey('p256-current', 'ECC_NIST_P256');
  addKey('p256-retired', 'ECC_NIST_P256');
  addKey('ed25519', 'ECC_NIST_EDWARDS25519');
});
afterEach(() => {
  outage = false;
});
afterAll(() => server.close());

function signerFor(keyId: string, retired: string[] = []) {
  const config = awsKmsConfig({ ...CREDENTIALS, AEH_AWS_KMS_KEY_ID: keyId, AEH_AWS_KMS_RETIRED_KEY_IDS: retired.join(',') })!;
  const key = (id: string) => awsKmsKey(config, id, () => fetch, Date.now);
  return createRemoteSigner({ name: 'aws-kms', current: key(config.keyId), retired: config.retiredKeyIds.map(key) });
}

testSigner('aws-kms (ECC_NIST_P256, ES256)', () => signerFor('p256-current', ['p256-retired']));
testSigner('aws-kms (ECC_NIST_EDWARDS25519, EdDSA)', () => signerFor('ed25519'));

describe('signer: aws-kms', () => {
  it('signs requests with SigV4 exactly as the AWS test suite (get-vanilla, post-vanilla)', () => {
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
    const base = { url: new URL('https://example.amazonaws.com/'), headers: {}, body: '', region: 'us-east-1', service: 'service', amzDate: '20150830T123600Z' };
    expect(signSigV4({ ...base, method: 'GET' }, credentials).authorization).toBe('AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
    expect(signSigV4({ ...base, method: 'POST' }, credentials).authorization).toBe('AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b');
    expect(amzDate(Date.parse('2015-08-30T12:36:00.123Z'))).toBe('20150830T123600Z');
  });

  it('publishes retired keys and asks KMS for each public key once', async () => {
    calls.length = 0;
    const signer = signerFor('p256-current', ['p256-retired']);
    const current = await signer.currentKey();
    const published = await signer.publicKeys();
    expect(published).toHaveLength(2);
    expect(published[0]!.kid).toBe(current.kid);
    await signer.sign(new Uint8Array([1]), { typ: 't' });
    await signer.publicKeys();
    expect(calls.filter((call) => call.startsWith('TrentService.GetPublicKey'))).toEqual(['TrentService.GetPublicKey p256-current', 'TrentService.GetPublicKey p256-retired']);
  });

  it('reports KMS errors by type, without credentials, and recovers after an outage', async () => {
    const missing = signerFor('no-such-key');
    await expect(missing.currentKey()).rejects.toThrow(/NotFoundException/);
    const signer = signerFor('p256-current');
    outage = true;
    await expect(signer.currentKey()).rejects.toThrow(/KMSInternalException/);
    expect((await signer.health!()).ok).toBe(false);
    outage = false;
    expect((await signer.health!()).ok).toBe(true);
    try {
      await missing.currentKey();
    } catch (failure) {
      expect(String(failure)).not.toContain(CREDENTIALS.AWS_SECRET_ACCESS_KEY);
    }
  });

  it('needs region and credentials when a key id is set', () => {
    expect(awsKmsConfig({})).toBeNull();
    expect(() => awsKmsConfig({ AEH_AWS_KMS_KEY_ID: 'k' })).toThrow(/AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY are not/);
  });

  it('signs certificates in the service (ES256), publishes only KMS keys, and verifies', async () => {
    const t = await testApp({ env: { ...CREDENTIALS, AEH_AWS_KMS_KEY_ID: 'p256-current', AEH_AWS_KMS_RETIRED_KEY_IDS: 'p256-retired', AEH_VERIFY_CACHE_MS: '0' } });
    const runId = await finishFixtureRun(t);
    const cert = await t.json('GET', `/v1/certificates/${runId}`, { key: null });
    expect(cert.status).toBe(200);
    expect(decodeProtectedHeader(cert.body.provenance_chain[0].signature)).toMatchObject({ alg: 'ES256', typ: 'aeh-provenance+jws' });
    const jwks = await t.json('GET', '/.well-known/jwks.json', { key: null });
    expect(jwks.body.keys).toHaveLength(2);
    expect(jwks.body.keys.every((key: { kty: string }) => key.kty === 'EC')).toBe(true);
    expect((await t.json('GET', `/api/v1/verify/${runId}`, { key: null })).body.valid).toBe(true);
    const doctor = await t.json('GET', '/api/v1/doctor');
    expect(doctor.body.checks.find((check: { id: string }) => check.id === 'certification.signer')).toMatchObject({ status: 'ok' });
    outage = true;
    const refused = await t.json('POST', `/api/v1/runs/${runId}/sign`);
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('unavailable');
  });
});
