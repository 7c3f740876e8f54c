/**
 * Hostile (issue 25 item 13): a change to the role table never reached an OIDC token already seen — its
 * permissions were remembered with the verified token until the key set was fetched again (up to an hour), on
 * every instance. The verification is remembered, not the permissions: a PBAC change reaches a token already
 * seen within AEH_PBAC_REFRESH_MS, on another instance too, while the token is still not verified again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { JWKS_URL, jwksOf, makeKeys, mint, oidcEnv, type SigningKey } from '../../test/hostile/kit.ts';

let keys: SigningKey[];
let keySetFetches = 0;
const idp = setupServer();
beforeAll(async () => {
  keys = await makeKeys();
  idp.listen({ onUnhandledRequest: 'error' });
  idp.use(http.get(JWKS_URL, () => {
    keySetFetches++;
    return HttpResponse.json(jwksOf(keys));
  }));
});
afterAll(() => idp.close());

/** Polls until `request` answers `status` (at most 60 s, a hang guard); the last status seen. */
async function eventually(request: () => Promise<number>, status: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  let seen = await request();
  while (seen !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen = await request();
  }
  return seen;
}

describe('hostile: PBAC changes reach OIDC tokens already seen (issue 25 item 13)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const env = oidcEnv({ AEH_STORAGE: 'fs', AEH_DATA_DIR: mkdtempSync(join(tmpdir(), 'aeh-oidc-pbac-')), AEH_PBAC_REFRESH_MS: '50' });
    [a, b] = [await testApp({ env }), await testApp({ env })];
  });
  afterAll(async () => {
    await a?.app.close();
    await b?.app.close();
  });

  it('a role losing a node takes it from a token already seen, on every instance, within the refresh interval', async () => {
    for (const key of keys) {
      const token = await mint({ key, claims: { sub: `ops-${key.kid}`, roles: ['operator'] } });
      const doctor = async (app: TestApp) => (await app.request('GET', '/api/v1/doctor', { key: null, headers: { authorization: `Bearer ${token}` } })).status;
      expect(await doctor(a)).toBe(200);
      expect(await doctor(b)).toBe(200);
      const operator = (await a.json('GET', '/api/v1/roles/operator')).body.permissions as string[];
      expect((await a.json('PUT', '/api/v1/roles/operator', { body: { permissions: operator.filter((node) => node !== 'doctor:read') } })).status).toBe(200);
      expect(await eventually(() => doctor(b), 403)).toBe(403);
      expect(await eventually(() => doctor(a), 403)).toBe(403);
      expect((await a.json('PUT', '/api/v1/roles/operator', { body: { permissions: operator } })).status).toBe(200);
      expect(await eventually(() => doctor(b), 200)).toBe(200);
    }
  });

  it('a group mapping taken away stops a token already seen', async () => {
    const token = await mint({ key: keys[0], claims: { sub: 'qa-1', groups: ['qa'] } });
    const launch = async () => (await b.request('POST', '/api/evaluate', { key: null, headers: { authorization: `Bearer ${token}` }, body: {} })).status;
    expect(await launch()).toBe(403);
    expect((await a.json('PUT', '/api/v1/roles-claims', { body: { groups: { qa: 'operator' } } })).status).toBe(200);
    expect(await eventually(launch, 400)).toBe(400); // allowed now: the empty body is what is wrong
    const fetchesBefore = keySetFetches;
    expect((await a.json('PUT', '/api/v1/roles-claims', { body: { groups: {} } })).status).toBe(200);
    expect(await eventually(launch, 403)).toBe(403);
    // The key set was not fetched again for it: only the permissions were looked up again.
    expect(keySetFetches).toBe(fetchesBefore);
  });
});
