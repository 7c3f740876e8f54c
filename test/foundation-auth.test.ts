import { describe, it, expect, beforeAll } from 'vitest';
import { testApp, TEST_KEY, type TestApp } from './helpers.ts';
import { VIEWER_TOKEN, viewerAuthPlugin, testRoutesPlugin } from './foundation-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ plugins: [viewerAuthPlugin, testRoutesPlugin] });
});

const info = (headers: Record<string, string>, query = '') => t.json('GET', `/api/info${query}`, { key: null, headers });

function expectUnauthorized(response: { status: number; body: any; headers: Headers }) {
  expect(response.status).toBe(401);
  expect(response.body.code).toBe('unauthorized');
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="aeh"/);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(JSON.stringify(response.body)).not.toContain(TEST_KEY);
}

describe('foundation: credential extraction', () => {
  it.each([
    ['Authorization: Bearer', { Authorization: `Bearer ${TEST_KEY}` }],
    ['authorization: bearer (lower-case scheme)', { authorization: `bearer ${TEST_KEY}` }],
    ['AUTHORIZATION: BEARER with extra spaces', { AUTHORIZATION: `BEARER   ${TEST_KEY}  ` }],
    ['X-AES-API-KEY', { 'X-AES-API-KEY': TEST_KEY }],
    ['x-aes-api-key', { 'x-aes-api-key': TEST_KEY }],
    ['X-API-Key', { 'X-API-Key': TEST_KEY }],
    ['X-Api-Key', { 'X-Api-Key': TEST_KEY }],
    ['x-api-key', { 'x-api-key': TEST_KEY }],
  ])('accepts the static key in %s', async (_, headers) => {
    const response = await info(headers);
    expect(response.status).toBe(200);
    expect(response.body.name).toBeTypeOf('string');
  });

  it('accepts the static key in the apiKey query parameter', async () => {
    const response = await info({}, `?apiKey=${TEST_KEY}`);
    expect(response.status).toBe(200);
  });

  it('reads only the exact name apiKey (issue 13 item 9): apikey and APIKEY are not credentials', async () => {
    for (const name of ['apikey', 'APIKEY', 'ApiKey', 'api_key']) expectUnauthorized(await info({}, `?${name}=${TEST_KEY}`));
  });

  it('accepts the same key sent in two places', async () => {
    const response = await info({ 'X-API-Key': TEST_KEY }, `?apiKey=${TEST_KEY}`);
    expect(response.status).toBe(200);
  });

  it('refuses the apiKey query parameter when AEH_ALLOW_QUERY_KEY=0', async () => {
    const strict = await testApp({ env: { AEH_ALLOW_QUERY_KEY: '0' } });
    const response = await strict.json('GET', `/api/info?apiKey=${TEST_KEY}`, { key: null });
    expectUnauthorized(response);
    expect(response.body.detail).toContain('AEH_ALLOW_QUERY_KEY');
  });
});

describe('foundation: refused credentials are 401', () => {
  it('refuses a request without a credential', async () => {
    const response = await info({});
    expectUnauthorized(response);
    expect(response.body.detail).toContain('X-API-Key');
  });

  it.each([
    ['a wrong key of the same length', { 'X-API-Key': 'b'.repeat(64) }],
    ['the key minus its last character', { 'X-API-Key': TEST_KEY.slice(0, -1) }],
    ['the key plus one character', { 'X-API-Key': `${TEST_KEY}a` }],
    ['the key in upper case', { 'X-API-Key': TEST_KEY.toUpperCase() }],
    ['an empty X-API-Key', { 'X-API-Key': '' }],
    ['an empty X-AES-API-KEY', { 'X-AES-API-KEY': '   ' }],
    ['a Basic Authorization header', { Authorization: `Basic ${btoa(`user:${TEST_KEY}`)}` }],
    ['a Bearer scheme without a token', { Authorization: 'Bearer' }],
    ['the key without the Bearer scheme', { Authorization: TEST_KEY }],
  ])('refuses %s', async (_, headers) => {
    expectUnauthorized(await info(headers));
  });

  it('refuses an empty apiKey query parameter', async () => {
    expectUnauthorized(await info({}, '?apiKey='));
  });

  it('refuses two different credentials even when one is the key', async () => {
    const response = await info({ 'X-API-Key': TEST_KEY, 'X-AES-API-KEY': 'c'.repeat(64) });
    expectUnauthorized(response);
    expect(response.body.detail).toMatch(/conflicting credentials in x-aes-api-key, x-api-key|conflicting credentials in x-api-key, x-aes-api-key/);
    expect(JSON.stringify(response.body)).not.toContain('c'.repeat(64));
  });

  it('refuses a repeated apiKey with two values as a conflict (issue 13 item 9), accepts it repeated with one', async () => {
    const response = await info({}, `?apiKey=${TEST_KEY}&apiKey=wrong`);
    expectUnauthorized(response);
    expect(response.body.detail).toContain('conflicting credentials in query, query');
    expectUnauthorized(await info({}, `?apiKey=wrong&apiKey=${TEST_KEY}`));
    expect((await info({}, `?apiKey=${TEST_KEY}&apiKey=${TEST_KEY}`)).status).toBe(200);
  });

  it.each([
    ['U+00A0 after the key in the query', {}, `?apiKey=${TEST_KEY}%C2%A0`],
    ['U+FEFF before the key in the query', {}, `?apiKey=%EF%BB%BF${TEST_KEY}`],
    ['U+2028 after the key in the query', {}, `?apiKey=${TEST_KEY}%E2%80%A8`],
    ['U+00A0 after the key in X-API-Key', { 'X-API-Key': `${TEST_KEY}\u00a0` }, ''],
    ['U+00A0 between Bearer and the key', { Authorization: `Bearer\u00a0${TEST_KEY}` }, ''],
  ])('does not trim non-ASCII whitespace (issue 13 item 9): %s is a wrong key', async (_, headers, query) => {
    expectUnauthorized(await info(headers as Record<string, string>, query));
  });

  it('still trims ASCII spaces and tabs around a header key', async () => {
    expect((await info({ 'X-API-Key': ` ${TEST_KEY}\t` })).status).toBe(200);
  });

  it('refuses a good bearer token next to a wrong query key', async () => {
    expectUnauthorized(await info({ Authorization: `Bearer ${TEST_KEY}` }, '?apiKey=nope'));
  });
});

describe('foundation: 401 versus 403', () => {
  it('lets a viewer read what viewers may read', async () => {
    const response = await info({ Authorization: `Bearer ${VIEWER_TOKEN}` });
    expect(response.status).toBe(200);
  });

  it('answers 403 naming the missing permission to a valid viewer credential', async () => {
    const response = await t.json('POST', '/api/test/echo', { key: null, headers: { Authorization: `Bearer ${VIEWER_TOKEN}` }, body: { message: 'hi' } });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
    expect(response.body.detail).toContain('evaluations:launch');
    expect(response.body.permission).toBe('evaluations:launch');
    expect(response.headers.get('www-authenticate')).toBeNull();
  });

  it('lets the static key (every permission) through the same route', async () => {
    const response = await t.json('POST', '/api/test/echo', { body: { message: 'hi' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ echoed: { message: 'hi' }, principal: 'static-key' });
  });

  it('checks the permission before reading the body', async () => {
    const broken = { 'content-type': 'application/json' };
    const anonymous = await t.request('POST', '/api/test/echo', { key: null, headers: broken, raw: '{nope' });
    expect(anonymous.status).toBe(401);
    const viewer = await t.request('POST', '/api/test/echo', { key: null, headers: { ...broken, Authorization: `Bearer ${VIEWER_TOKEN}` }, raw: '{nope' });
    expect(viewer.status).toBe(403);
  });

  it('keeps public routes public', async () => {
    for (const path of ['/healthz', '/api/openapi.json']) {
      const response = await t.request('GET', path, { key: null });
      expect(response.status, path).toBe(200);
    }
  });
});
