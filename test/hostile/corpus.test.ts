/**
 * The whole hostile corpus against ONE app whose identity provider is a real local HTTP server (127.0.0.1,
 * RS256 and ES256 keys), then a check that the service is still healthy: liveness, the static key, both JWT
 * algorithms, and a heap that did not balloon.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIMB_TO_ETC_PASSWD, testApp, TEST_KEY, type TestApp } from '../helpers.ts';
import { AUDIENCE, ISSUER, b64url, jwksOf, makeKeys, mint, probePlugin, type SigningKey } from './kit.ts';

let idp: Server;
let jwksHits = 0;
let keys: SigningKey[];
let t: TestApp;

interface Vector {
  name: string;
  send(): Promise<{ status: number; body: any }>;
  status: number;
  code?: string;
}

beforeAll(async () => {
  keys = await makeKeys();
  idp = createServer((request, response) => {
    jwksHits++;
    response.writeHead(request.url === '/jwks.json' ? 200 : 404, { 'content-type': 'application/json' });
    response.end(request.url === '/jwks.json' ? JSON.stringify(jwksOf(keys)) : '{}');
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  const { port } = idp.address() as AddressInfo;
  // The JWKS URL is operator-set, hence trusted: no AEH_ALLOW_HOSTS entry is needed for 127.0.0.1.
  t = await testApp({
    env: { OIDC_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`, OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: AUDIENCE, AEH_AUTH_FAILURES_PER_MINUTE: '100000', AEH_MAX_BODY_BYTES: '65536' },
    plugins: [probePlugin],
  });
  mkdirSync(join(t.root, 'scenarios'));
  writeFileSync(join(t.root, 'scenarios', 'ok.json'), '{}');
});
afterAll(() => new Promise<void>((resolve) => idp.close(() => resolve())));

const bearer = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });

async function vectors(): Promise<Vector[]> {
  const [rsa, ec] = keys;
  const viewer = { roles: ['viewer'] };
  const valid = await mint({ key: ec, claims: viewer });
  const [header, payload] = valid.split('.');
  const none = `${b64url(JSON.stringify({ alg: 'none' }))}.${b64url(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, exp: 9e9, roles: ['SUPERVISOR'] }))}.`;
  const jwt = (name: string, token: string, status = 401, code = 'unauthorized'): Vector => ({ name, send: () => t.json('GET', '/api/info', bearer(token)), status, code });
  const fetchUrl = (url: string): Vector => ({ name: `ssrf ${url}`, send: () => t.json('POST', '/test/fetch', { body: { url } }), status: 400, code: 'ssrf_blocked' });
  const read = (path: string, status = 403, code = 'path_outside_jail'): Vector => ({ name: `jail ${JSON.stringify(path).slice(0, 40)}`, send: () => t.json('POST', '/test/read', { body: { path } }), status, code });
  return [
    jwt('alg none', none),
    jwt('HS256', `${b64url(JSON.stringify({ alg: 'HS256', kid: rsa.kid }))}.${payload}.${b64url('x'.repeat(32))}`),
    jwt('expired', await mint({ key: rsa, claims: viewer, expiresIn: -3600 })),
    jwt('not yet valid', await mint({ key: rsa, claims: { ...viewer, nbf: Math.floor(Date.now() / 1000) + 3600 } })),
    jwt('no exp', await mint({ key: rsa, claims: viewer, expiresIn: null })),
    jwt('wrong iss', await mint({ key: rsa, claims: { ...viewer, iss: 'https://evil.test/' } })),
    jwt('wrong aud', await mint({ key: ec, claims: { ...viewer, aud: 'other' } })),
    jwt('unknown kid', await mint({ key: { ...rsa, kid: 'nope' }, claims: viewer })),
    jwt('jwk header', await mint({ key: rsa, claims: viewer, header: { jwk: rsa.publicJwk } })),
    jwt('jku header', await mint({ key: rsa, claims: viewer, header: { jku: 'http://169.254.169.254/jwks' } })),
    jwt('x5u header', await mint({ key: rsa, claims: viewer, header: { x5u: 'http://127.0.0.1/cert' } })),
    jwt('x5c header', await mint({ key: rsa, claims: viewer, header: { x5c: ['AAAA'] } })),
    jwt('tampered', `${header}.${b64url(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, exp: 9e9, roles: ['SUPERVISOR'] }))}.${valid.split('.')[2]}`),
    jwt('zero ECDSA signature', `${header}.${payload}.${b64url(new Uint8Array(64))}`),
    jwt('garbage', 'not-a-token'),
    jwt('oversized', `${header}.${'A'.repeat(9000)}.AAAA`),
    { name: 'viewer launching', send: () => t.json('POST', '/test/fetch', { ...bearer(valid), body: { url: 'http://example.com/' } }), status: 403, code: 'forbidden' },
    { name: 'two credentials', send: () => t.json('GET', '/api/info', { key: TEST_KEY, headers: { authorization: `Bearer ${valid}` } }), status: 401, code: 'unauthorized' },
    { name: 'basic auth', send: () => t.json('GET', '/api/info', { key: null, headers: { authorization: `Basic ${btoa('admin:admin')}` } }), status: 401, code: 'unauthorized' },
    fetchUrl('http://169.254.169.254/latest/meta-data/'), fetchUrl('http://[::ffff:127.0.0.1]/'), fetchUrl('http://0x7f.1/'),
    fetchUrl('http://metadata.google.internal/'), fetchUrl('file:///etc/passwd'), fetchUrl('http://[fd00:ec2::254]/'), fetchUrl('http://168.63.129.16/'),
    read(CLIMB_TO_ETC_PASSWD), read('/proc/self/environ'), read('%2e%2e/x'), read('．．/x'), read('..\\x'), read('C:/x'),
    read('a\u0000b', 400, 'bad_request'), read('x'.repeat(5000), 400, 'bad_request'), read('scenarios/missing.json', 404, 'not_found'),
    { name: 'huge body', send: () => t.json('POST', '/test/read', { body: { path: 'x'.repeat(70_000) } }), status: 413, code: 'payload_too_large' },
    { name: 'broken JSON', send: async () => { const r = await t.request('POST', '/test/read', { raw: '{"path":', headers: { 'content-type': 'application/json' } }); return { status: r.status, body: await r.json() }; }, status: 400, code: 'invalid_json' },
    { name: 'deep JSON', send: async () => { const r = await t.request('POST', '/test/read', { raw: '['.repeat(30_000) + ']'.repeat(30_000), headers: { 'content-type': 'application/json' } }); return { status: r.status, body: await r.json() }; }, status: 400, code: 'validation_failed' },
    { name: 'wrong media type', send: async () => { const r = await t.request('POST', '/test/read', { raw: 'path=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }); return { status: r.status, body: await r.json() }; }, status: 415, code: 'unsupported_media_type' },
  ];
}

describe('hostile: the whole corpus against one app', () => {
  it('answers every vector with its exact status and code, then stays healthy', async () => {
    const corpus = await vectors();
    for (let round = 0; round < 3; round++) {
      for (const vector of corpus) {
        const response = await vector.send();
        expect(response.status, vector.name).toBe(vector.status);
        if (vector.code) expect(response.body.code, vector.name).toBe(vector.code);
        expect(typeof response.body.request_id, vector.name).toBe('string');
      }
    }
    const heapBefore = process.memoryUsage().heapUsed;
    await Promise.all(Array.from({ length: 3 }, () => Promise.all(corpus.map((vector) => vector.send()))));
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);

    expect((await t.json('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await t.json('GET', '/api/info')).status).toBe(200);
    for (const key of keys) expect((await t.json('GET', '/api/info', bearer(await mint({ key, claims: { roles: ['viewer'] } })))).status, key.alg).toBe(200);
    // One fetch of the key set, one refresh for the unknown kid at most; never one per request.
    expect(jwksHits).toBeLessThanOrEqual(2);
    const audit = await t.json('GET', '/api/v1/audit?limit=500');
    expect(audit.status).toBe(200);
    expect(audit.body.items.length).toBeGreaterThan(50);
    expect(JSON.stringify(audit.body)).not.toMatch(/eyJ|aaaaaaaaaaaaaaaa/);
  });
});
