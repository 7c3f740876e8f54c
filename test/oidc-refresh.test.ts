import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { testApp } from './helpers.ts';
import { runDueJobs } from '../core/scheduler.ts';

let served: object[] = [];
let fetches = 0;
const idp = setupServer(http.get('http://idp.test/jwks', () => {
  fetches++;
  return HttpResponse.json({ keys: served });
}));
beforeAll(() => idp.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => idp.close());

async function key(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

const sign = (k: { kid: string; privateKey: CryptoKey }) => new SignJWT({ roles: ['viewer'] }).setProtectedHeader({ alg: 'ES256', kid: k.kid })
  .setIssuer('https://idp.test').setAudience('aeh').setSubject('alice').setIssuedAt().setExpirationTime('5m').sign(k.privateKey);

describe('auth-oidc: scheduled key-set refresh', () => {
  it('refetches the key set on every instance, so a rotation is picked up before the cache TTL', async () => {
    const first = await key('first');
    served = [first.jwk];
    const t = await testApp({ env: { OIDC_JWKS_URL: 'http://idp.test/jwks', OIDC_ISSUER: 'https://idp.test', OIDC_AUDIENCE: 'aeh', AEH_ALLOW_HOSTS: 'idp.test' } });
    const bearer = async (token: string) => (await t.request('GET', '/api/info', { key: null, headers: { authorization: `Bearer ${token}` } })).status;
    expect(await bearer(await sign(first))).toBe(200);
    const before = fetches;

    const second = await key('second');
    served = [first.jwk, second.jwk];
    const services = await t.app.ready;
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000 * (new Date().getUTCMinutes() % 15));
    expect(await runDueJobs(services, minute)).toContain('oidc.key-set-refresh');
    expect(fetches).toBe(before + 1);
    // Not claimed in the shared store: the same firing runs again on another instance (here: again).
    expect(await runDueJobs(services, minute)).toContain('oidc.key-set-refresh');
    expect(fetches).toBe(before + 2);
    expect(await bearer(await sign(second))).toBe(200);
    expect(fetches).toBe(before + 2); // the rotated key was already known: no refetch on the request path
  });
});
