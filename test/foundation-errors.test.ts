import { describe, it, expect, beforeAll } from 'vitest';
import { testApp, TEST_KEY, type TestApp } from './helpers.ts';
import { BOOM_MESSAGE, VIEWER_TOKEN, captureLogger, testRoutesPlugin, viewerAuthPlugin } from './foundation-fixtures.ts';
import { PROBLEM_CATALOGUE } from '../core/problems.ts';
import { parseConfig } from '../core/config.ts';
import { createApp } from '../core/app.ts';
import type { PluginHost } from '../core/plugin-host.ts';
import { silentLogger } from '../core/capabilities.ts';
import { nodePlugins } from '../runtime/node/plugins.ts';

const LIMIT = 256;
const logger = captureLogger();
let t: TestApp;
beforeAll(async () => {
  t = await testApp({ env: { AEH_MAX_BODY_BYTES: String(LIMIT) }, plugins: [viewerAuthPlugin, testRoutesPlugin], capabilities: { logger } });
});

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Checks the RFC 9457 shape every error shares and returns the body. */
async function expectProblem(response: Response, status: number, code: string): Promise<Record<string, any>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
  const body = await response.json();
  expect(body).toMatchObject({ type: `https://aeh.dev/problems/${code}`, status, code, request_id: requestId });
  expect(body.title).toBe(PROBLEM_CATALOGUE[code as keyof typeof PROBLEM_CATALOGUE].title);
  expect(body.detail).toBeTypeOf('string');
  expect(body.detail.length).toBeGreaterThan(0);
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  return body;
}

describe('foundation: request ids', () => {
  it('puts X-Request-Id on successes, errors and 404s', async () => {
    const responses = [
      await t.request('GET', '/healthz', { key: null }),
      await t.request('GET', '/api/info'),
      await t.request('GET', '/api/info', { key: null }),
      await t.request('GET', '/no/such/route'),
      await t.request('POST', '/api/test/echo', { headers: JSON_HEADERS, raw: '{' }),
      await t.request('GET', '/api/test/boom'),
      await t.request('GET', '/api/test/boom-later'),
      await t.request('GET', '/api/test/redirect', { key: null }),
    ];
    const ids = responses.map((response) => response.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps a well-formed incoming request id and replaces a malformed one', async () => {
    const kept = await t.request('GET', '/no/such/route', { headers: { 'X-Request-Id': 'trace-1234.abcd_EF' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-1234.abcd_EF');
    expect((await kept.json()).request_id).toBe('trace-1234.abcd_EF');
    for (const hostile of ['short', 'has spaces in it', '<script>alert(1)</script>', 'x'.repeat(129)]) {
      const replaced = await t.request('GET', '/healthz', { headers: { 'X-Request-Id': hostile } });
      expect(replaced.headers.get('x-request-id')).not.toBe(hostile);
      expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
    }
  });
});

describe('foundation: problem details', () => {
  it('answers unknown routes with a 404 problem naming the route', async () => {
    const body = await expectProblem(await t.request('GET', '/api/v1/nothing-here'), 404, 'not_found');
    expect(body.detail).toContain('GET /api/v1/nothing-here');
  });

  it('answers an unknown method on a known path with a 404 problem', async () => {
    await expectProblem(await t.request('DELETE', '/api/info'), 404, 'not_found');
  });

  it('answers 401 and 403 as problems', async () => {
    await expectProblem(await t.request('GET', '/api/info', { key: 'wrong-key-wrong-key-wrong-key-wrong' }), 401, 'unauthorized');
    await expectProblem(await t.request('POST', '/api/test/echo', { key: null, headers: { ...JSON_HEADERS, 'X-API-Key': VIEWER_TOKEN }, raw: '{}' }), 403, 'forbidden');
  });

  for (const path of ['/api/test/boom', '/api/test/boom-later']) {
    it(`turns an unexpected error into a generic 500 and logs the cause with the request id (${path})`, async () => {
      const response = await t.request('GET', path);
      const requestId = response.headers.get('x-request-id');
      const body = await expectProblem(response, 500, 'internal');
      expect(JSON.stringify(body)).not.toContain('hunter2');
      expect(JSON.stringify(body)).not.toContain('TypeError');
      expect(body.detail).toContain(requestId);
      const logged = logger.lines.find((line) => line.level === 'error' && line.fields?.request_id === requestId);
      expect(logged?.fields?.error).toContain(BOOM_MESSAGE);
    });
  }

  it('stamps the request id on a handler response whose headers are immutable, keeping the rest', async () => {
    const response = await t.request('GET', '/api/test/redirect', { key: null });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://aeh.test/elsewhere');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{16}-[0-9a-z]+$/);
  });
});

describe('foundation: JSON bodies', () => {
  const echo = (raw: BodyInit, headers: Record<string, string> = JSON_HEADERS) => t.request('POST', '/api/test/echo', { headers, raw });

  it('accepts application/json, with a charset, and +json types', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
      const response = await echo('{"message":"ok"}', { 'content-type': type });
      expect(response.status, type).toBe(200);
    }
  });

  it('refuses other content types with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      const body = await expectProblem(await echo('{"message":"ok"}', { 'content-type': type }), 415, 'unsupported_media_type');
      expect(body.detail).toContain('application/json');
    }
  });

  it('refuses a body without a content type with 415', async () => {
    await expectProblem(await echo('{"message":"ok"}', {}), 415, 'unsupported_media_type');
  });

  it.each([
    ['a truncated object', '{"message":'],
    ['an empty body', ''],
    ['single quotes', "{'message':'x'}"],
    ['a trailing comma', '{"message":"x",}'],
  ])('refuses %s with 400 invalid_json', async (_, raw) => {
    await expectProblem(await echo(raw), 400, 'invalid_json');
  });

  it('refuses bytes that are not UTF-8 with 400 invalid_json', async () => {
    await expectProblem(await echo(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), 400, 'invalid_json');
  });

  it('refuses a body failing its schema with 400 validation_failed listing the paths', async () => {
    const body = await expectProblem(await echo(JSON.stringify({ message: 7, extra: true })), 400, 'validation_failed');
    expect(body.errors).toEqual(expect.arrayContaining([
      expect.objectContaining({ path: '/message' }),
      expect.objectContaining({ path: '/extra' }),
    ]));
  });

  it('refuses a body over AEH_MAX_BODY_BYTES by its Content-Length with 413', async () => {
    const raw = JSON.stringify({ message: 'x'.repeat(LIMIT) });
    const body = await expectProblem(await echo(raw, { ...JSON_HEADERS, 'content-length': String(raw.length) }), 413, 'payload_too_large');
    expect(body.detail).toContain(String(LIMIT));
  });

  it('refuses a chunked body over the limit with 413 while reading it', async () => {
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > LIMIT * 100) return controller.close();
        sent += 64;
        controller.enqueue(new TextEncoder().encode('x'.repeat(64)));
      },
    });
    const request = new Request('http://localhost/api/test/echo', {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'X-API-Key': TEST_KEY },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(request.headers.get('content-length')).toBeNull();
    await expectProblem(await t.app.request(request), 413, 'payload_too_large');
    expect(sent).toBeLessThan(LIMIT * 10); // stopped reading soon after the limit
  });

  it('accepts a body exactly at the limit', async () => {
    const raw = JSON.stringify({ message: 'x' });
    const padded = raw + ' '.repeat(LIMIT - raw.length);
    expect(padded.length).toBe(LIMIT);
    expect((await echo(padded)).status).toBe(200);
  });
});

describe('foundation: a service that failed to start', () => {
  it('answers 503 problems with a request id, and names the plugin whose start hook failed', async () => {
    const failing = { name: 'fails-at-start', setup: (host: PluginHost) => host.onStart(() => { throw new Error('database unreachable'); }) };
    const config = parseConfig({ DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory' });
    const app = createApp(config, [...nodePlugins(), failing], { runtime: { name: 'test', version: '0' }, logger: silentLogger });
    await expect(app.ready).rejects.toThrow(/plugin "fails-at-start": start hook failed: database unreachable/);
    const body = await expectProblem(await app.request('/api/info', { headers: { 'X-API-Key': TEST_KEY } }), 503, 'unavailable');
    expect(JSON.stringify(body)).not.toContain('database unreachable');
  });
});
