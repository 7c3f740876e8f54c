import { describe, it, expect, beforeAll, afterAll, afterEach, vi } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { SignJWT, exportSPKI, importJWK } from 'jose';
import { createPublicKey, createHmac } from 'node:crypto';
import { testApp, TEST_KEY, type TestApp } from '../helpers.ts';
import { AUDIENCE, JWKS_URL, b64url, jwksOf, makeKeys, mint, oidcEnv, probePlugin, type SigningKey } from './kit.ts';

let keys: SigningKey[];
let rsa: SigningKey;
let ec: SigningKey;
let jwksFetches = 0;
let jwksUp = true;
const server = setupServer();

beforeAll(async () => {
  keys = await makeKeys();
  [rsa, ec] = keys;
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(() => server.close());

function serveJwks(document: () => { keys: object[] } = () => jwksOf(keys)) {
  jwksFetches = 0;
  jwksUp = true;
  server.use(http.get(JWKS_URL, () => {
    jwksFetches++;
    return jwksUp ? HttpResponse.json(document()) : new HttpResponse('down', { status: 503 });
  }));
}

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  return testApp({ env: oidcEnv(env), plugins: [probePlugin] });
}

async function withToken(t: TestApp, token: string, path = '/api/info') {
  return t.json('GET', path, { key: null, headers: { authorization: `Bearer ${token}` } });
}

async function expect401(t: TestApp, token: string, detail?: string | RegExp) {
  const response = await withToken(t, token);
  expect(response.status).toBe(401);
  expect(response.body.code).toBe('unauthorized');
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
  if (detail) expect(response.body.detail).toMatch(detail);
  return response;
}

const viewer = { roles: ['VIEWER'] };

describe('hostile: OIDC bearer tokens', () => {
  it('accepts RS256 and ES256 tokens from the configured key set', async () => {
    serveJwks();
    const t = await app();
    for (const key of [rsa, ec]) {
      const response = await withToken(t, await mint({ key, claims: viewer }));
      expect(response.status, key.alg).toBe(200);
    }
  });

  it('fetches the key set once and reuses it across requests', async () => {
    serveJwks();
    const t = await app();
    const token = await mint({ key: rsa, claims: viewer });
    for (let index = 0; index < 20; index++) expect((await withToken(t, token)).status).toBe(200);
    expect((await withToken(t, await mint({ key: ec, claims: viewer }))).status).toBe(200);
    expect(jwksFetches).toBe(1);
  });

  it('refuses alg "none"', async () => {
    serveJwks();
    const t = await app();
    const token = `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify({ iss: 'https://idp.test/', aud: AUDIENCE, sub: 'x', exp: 9e9, roles: ['SUPERVISOR'] }))}.`;
    await expect401(t, token);
    await expect401(t, `${token}AAAA`, /algorithm "none"/);
  });

  it('refuses HMAC algorithms, including HS256 keyed with the RSA public key', async () => {
    serveJwks();
    const t = await app();
    const publicPem = await exportSPKI(await importJWK(rsa.publicJwk, 'RS256') as CryptoKey);
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: rsa.kid }));
    const payload = b64url(JSON.stringify({ iss: 'https://idp.test/', aud: AUDIENCE, sub: 'x', exp: Math.floor(Date.now() / 1000) + 600, roles: ['SUPERVISOR'] }));
    for (const secret of [publicPem, JSON.stringify(rsa.publicJwk), createPublicKey(publicPem).export({ format: 'der', type: 'spki' })]) {
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
      await expect401(t, `${header}.${payload}.${signature}`, /HS256/);
    }
    const hs512 = await new SignJWT({ sub: 'x', aud: AUDIENCE, iss: 'https://idp.test/', exp: 9e9 }).setProtectedHeader({ alg: 'HS512' }).sign(new Uint8Array(64));
    await expect401(t, hs512, /HS512/);
  });

  it('refuses PS256 even though the key set could verify it', async () => {
    serveJwks();
    const t = await app();
    const header = b64url(JSON.stringify({ alg: 'PS256', kid: rsa.kid }));
    await expect401(t, `${header}.${b64url('{}')}.${b64url('sig')}`, /PS256/);
  });

  it('applies the 10 s leeway to exp and nbf, and requires exp', async () => {
    serveJwks();
    const t = await app();
    expect((await withToken(t, await mint({ key: rsa, claims: viewer, expiresIn: -5 }))).status).toBe(200);
    await expect401(t, await mint({ key: rsa, claims: viewer, expiresIn: -60 }), /exp/);
    const now = Math.floor(Date.now() / 1000);
    expect((await withToken(t, await mint({ key: rsa, claims: { ...viewer, nbf: now + 5 } }))).status).toBe(200);
    await expect401(t, await mint({ key: rsa, claims: { ...viewer, nbf: now + 120 } }), /nbf/);
    await expect401(t, await mint({ key: rsa, claims: viewer, expiresIn: null }), /exp/);
  });

  it('refuses the wrong issuer or audience', async () => {
    serveJwks();
    const t = await app();
    await expect401(t, await mint({ key: rsa, claims: { ...viewer, iss: 'https://evil.test/' } }), /iss/);
    await expect401(t, await mint({ key: ec, claims: { ...viewer, aud: 'another-service' } }), /aud/);
    await expect401(t, await mint({ key: ec, claims: { ...viewer, aud: undefined } }), /aud/);
  });

  it('refuses an unknown kid after at most one refresh, then stays in cooldown', async () => {
    serveJwks();
    const t = await app();
    expect((await withToken(t, await mint({ key: rsa, claims: viewer }))).status).toBe(200);
    expect(jwksFetches).toBe(1);
    const stranger = (await makeKeys())[0];
    for (let index = 0; index < 5; index++) {
      await expect401(t, await mint({ key: { ...stranger, kid: `unknown-${index}` }, claims: viewer }), /no applicable key|matching key/i);
    }
    // The first unknown kid came within the 30 s cooldown of the first fetch: no refresh at all.
    expect(jwksFetches).toBe(1);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    await expect401(t, await mint({ key: { ...stranger, kid: 'unknown-late' }, claims: viewer }));
    await expect401(t, await mint({ key: { ...stranger, kid: 'unknown-later' }, claims: viewer }));
    expect(jwksFetches).toBe(2);
  });

  it('picks up a rotated key through the one refresh', async () => {
    const rotated = (await makeKeys())[1];
    let published = [rsa];
    serveJwks(() => jwksOf(published));
    const t = await app();
    expect((await withToken(t, await mint({ key: rsa, claims: viewer }))).status).toBe(200);
    published = [rsa, { ...rotated, kid: 'ec-2', publicJwk: { ...rotated.publicJwk, kid: 'ec-2' } }];
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    expect((await withToken(t, await mint({ key: { ...rotated, kid: 'ec-2' }, claims: viewer }))).status).toBe(200);
    expect(jwksFetches).toBe(2);
  });

  it.each(['jwk', 'jku', 'x5u', 'x5c'])('refuses a key named or embedded in the header (%s), without fetching it', async (name) => {
    serveJwks();
    const t = await app();
    const values: Record<string, unknown> = { jwk: rsa.publicJwk, jku: 'https://evil.test/jwks.json', x5u: 'https://evil.test/cert.pem', x5c: ['MIIB'] };
    await expect401(t, await mint({ key: rsa, claims: viewer, header: { [name]: values[name] } }), new RegExp(name));
    expect(jwksFetches).toBe(0);
  });

  it('refuses tampered payloads and signatures', async () => {
    serveJwks();
    const t = await app();
    for (const key of [rsa, ec]) {
      const [header, payload, signature] = (await mint({ key, claims: viewer })).split('.');
      const elevated = b64url(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), roles: ['SUPERVISOR'] }));
      await expect401(t, `${header}.${elevated}.${signature}`, /signature/);
      const flipped = Buffer.from(signature, 'base64url');
      flipped[4] ^= 1;
      await expect401(t, `${header}.${payload}.${flipped.toString('base64url')}`, /signature/);
      await expect401(t, `${header}.${payload}.`);
    }
  });

  it('refuses all-zero ECDSA signatures (CVE-2022-21449 "psychic signatures")', async () => {
    serveJwks();
    const t = await app();
    const [header, payload] = (await mint({ key: ec, claims: { roles: ['SUPERVISOR'] } })).split('.');
    await expect401(t, `${header}.${payload}.${b64url(new Uint8Array(64))}`, /signature/);
    await expect401(t, `${header}.${payload}.${b64url(new Uint8Array(72))}`);
  });

  it('refuses garbage, JWE-shaped and oversized tokens', async () => {
    serveJwks();
    const t = await app();
    for (const garbage of ['x', 'a.b', 'a.b.c', '...', 'eyJhbGciOiJSUzI1NiJ9.e30', '%%%.%%%.%%%', `${b64url('{')}.${b64url('{}')}.AAAA`, 'a.b.c.d.e', '\u00e9.\u00e9.\u00e9']) {
      await expect401(t, garbage);
    }
    const big = await mint({ key: rsa, claims: { ...viewer, padding: 'p'.repeat(9000) } });
    await expect401(t, big, /8192 bytes/);
    expect(jwksFetches).toBe(0);
  });

  it('refuses two different credentials in one request', async () => {
    serveJwks();
    const t = await app();
    const token = await mint({ key: rsa, claims: { roles: ['SUPERVISOR'] } });
    const response = await t.json('GET', '/api/info', { key: TEST_KEY, headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(401);
    expect(response.body.detail).toMatch(/conflicting credentials/);
    const same = await t.json('GET', '/api/info', { key: TEST_KEY, headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(same.status).toBe(200);
  });

  it('looks for JWTs in Authorization only', async () => {
    serveJwks();
    const t = await app();
    const token = await mint({ key: rsa, claims: viewer });
    expect((await t.json('GET', '/api/info', { key: token })).status).toBe(401);
    expect((await t.json('GET', `/api/info?apiKey=${token}`, { key: null })).status).toBe(401);
    expect(jwksFetches).toBe(0);
  });

  it('keys the principal on iss|sub, never the token', async () => {
    serveJwks();
    const t = await app();
    await withToken(t, await mint({ key: rsa, claims: { roles: ['AUDITOR'] } }));
    await withToken(t, await mint({ key: rsa, claims: { roles: ['AUDITOR'] } }), '/test/perm/evaluations/launch');
    const audit = await t.json('GET', '/api/v1/audit');
    const refused = audit.body.items.find((entry: { path: string }) => entry.path === '/test/perm/evaluations/launch');
    expect(refused).toMatchObject({ principal: 'https://idp.test/|user-1', outcome: 'refused', status: 403 });
    expect(JSON.stringify(audit.body)).not.toMatch(/eyJ/);
  });
});

describe('hostile: remembered verifications', () => {
  it('stops accepting a remembered token once its key is withdrawn from the key set', async () => {
    let published = [rsa, ec];
    serveJwks(() => jwksOf(published));
    const t = await app();
    const token = await mint({ key: ec, claims: viewer });
    expect((await withToken(t, token)).status).toBe(200);
    expect((await withToken(t, token)).status).toBe(200);
    published = [rsa];
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    // An unknown kid makes the service refresh the key set: a new generation.
    await expect401(t, await mint({ key: { ...ec, kid: 'unknown' }, claims: viewer }));
    await expect401(t, token, /no applicable key|matching key/i);
  });

  it('re-checks expiry on every use of a remembered token', async () => {
    serveJwks();
    const t = await app();
    const token = await mint({ key: rsa, claims: viewer, expiresIn: 20 });
    expect((await withToken(t, token)).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 25_000 });
    expect((await withToken(t, token)).status).toBe(200);
    vi.setSystemTime(Date.now() + 10_000);
    await expect401(t, token, /exp/);
  });

  it('never lets a different spelling or signature ride on a remembered token', async () => {
    serveJwks();
    const t = await app();
    const token = await mint({ key: ec, claims: { ...viewer, jti: 'fixed-jti' } });
    expect((await withToken(t, token)).status).toBe(200);
    const [header, payload, signature] = token.split('.');
    const forged = await mint({ key: { ...(await makeKeys())[1], kid: ec.kid }, claims: { roles: ['SUPERVISOR'], jti: 'fixed-jti' } });
    await expect401(t, forged, /signature/);
    const zero = `${header}.${payload}.${b64url(new Uint8Array(64))}`;
    await expect401(t, zero, /signature/);
    const padded = `${header}.${payload}.${signature.slice(0, -2)}${signature.slice(-2).split('').reverse().join('')}`;
    if (padded !== token) await expect401(t, padded);
    const off = await testApp({ env: oidcEnv({ OIDC_VERIFIED_CACHE_SIZE: '0' }) });
    expect((await withToken(off, token)).status).toBe(200);
  });
});

describe('hostile: OIDC key server outages', () => {
  it('answers 503 unavailable when no key was ever fetched and the key server is down', async () => {
    serveJwks();
    jwksUp = false;
    const t = await app();
    const response = await withToken(t, await mint({ key: rsa, claims: viewer }));
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('unavailable');
    expect(response.headers.get('retry-after')).toBe('5');
    const health = await t.json('GET', '/healthz', { key: null });
    expect(health.status).toBe(200);
    const doctor = await t.json('GET', '/api/v1/doctor');
    expect(doctor.body.checks.find((check: { id: string }) => check.id === 'oidc')).toMatchObject({ status: 'fail' });
  });

  it('backs off while the key server fails instead of fetching per request', async () => {
    serveJwks();
    jwksUp = false;
    const t = await app();
    for (let index = 0; index < 10; index++) expect((await withToken(t, await mint({ key: rsa, claims: viewer }))).status).toBe(503);
    expect(jwksFetches).toBe(1);
  });

  it('keeps verifying with cached keys while the server is down, then refuses with 401 after the TTL', async () => {
    serveJwks();
    const t = await app({ OIDC_JWKS_CACHE_TTL: '600' });
    const token = await mint({ key: ec, claims: viewer, expiresIn: 7200 });
    expect((await withToken(t, token)).status).toBe(200);
    jwksUp = false;
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 300_000 });
    expect((await withToken(t, token)).status).toBe(200);
    const warm = await t.json('GET', '/api/v1/doctor');
    expect(warm.body.checks.find((check: { id: string }) => check.id === 'oidc')).toMatchObject({ status: 'warn' });
    vi.setSystemTime(Date.now() + 600_000);
    await expect401(t, token, /key server/);
    jwksUp = true;
    vi.setSystemTime(Date.now() + 10_000);
    expect((await withToken(t, token)).status).toBe(200);
  });

  it('warns at start and in the doctor when OIDC_ISSUER or OIDC_AUDIENCE is unset', async () => {
    serveJwks();
    const warnings: string[] = [];
    const logger = { info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
    const t = await testApp({ env: oidcEnv({ OIDC_ISSUER: '', OIDC_AUDIENCE: '' }), capabilities: { logger } });
    expect(warnings.some((message) => /OIDC_ISSUER and OIDC_AUDIENCE are unset/.test(message))).toBe(true);
    const doctor = await t.json('GET', '/api/v1/doctor');
    const check = doctor.body.checks.find((item: { id: string }) => item.id === 'oidc');
    expect(check.status).toBe('warn');
    expect(check.message).toMatch(/OIDC_ISSUER is unset/);
    // Without the checks any issuer and audience verify: the warning is about a real exposure.
    expect((await withToken(t, await mint({ key: rsa, claims: { ...viewer, iss: 'https://other-tenant.test/', aud: 'other' } }))).status).toBe(200);
  });

  it('reports ok in the doctor when fully configured and reachable', async () => {
    serveJwks();
    const t = await app();
    const doctor = await t.json('GET', '/api/v1/doctor');
    expect(doctor.body.checks.find((item: { id: string }) => item.id === 'oidc')).toMatchObject({ status: 'ok' });
  });
});
