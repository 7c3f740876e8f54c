import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, TEST_KEY } from '../helpers.ts';
import { startNodeService } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import type { RuntimeCapabilities } from '../../core/capabilities.ts';
import { probePlugin } from './kit.ts';

/** Lets a test say which address a request comes from, as a socket would. */
const addressFromTestHeader: Partial<RuntimeCapabilities> = { clientAddress: (request) => request.headers.get('x-test-peer') ?? undefined };
const from = (address: string) => ({ 'x-test-peer': address });

describe('hostile: rate limits', () => {
  it('limits public routes per client address with 429 and Retry-After', async () => {
    const t = await testApp({ env: { AEH_PUBLIC_RATE_LIMIT_PER_MINUTE: '3' }, capabilities: addressFromTestHeader });
    for (let index = 0; index < 3; index++) expect((await t.request('GET', '/api/openapi.json', { key: null, headers: from('198.51.100.1') })).status).toBe(200);
    const limited = await t.json('GET', '/api/openapi.json', { key: null, headers: from('198.51.100.1') });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect((await t.request('GET', '/api/openapi.json', { key: null, headers: from('198.51.100.2') })).status).toBe(200);
    // The liveness probe is exempt: orchestrators poll it.
    expect((await t.request('GET', '/healthz', { key: null, headers: from('198.51.100.1') })).status).toBe(200);
  });

  it('limits protected routes per principal, whatever the address', async () => {
    const t = await testApp({ env: { AEH_RATE_LIMIT_PER_MINUTE: '4' }, capabilities: addressFromTestHeader });
    for (let index = 0; index < 4; index++) expect((await t.request('GET', '/api/info', { headers: from(`203.0.113.${index}`) })).status).toBe(200);
    const limited = await t.json('GET', '/api/info', { headers: from('203.0.113.99') });
    expect(limited.status).toBe(429);
    // One token every 15 s: the wait is at most that, less whatever time the four requests took.
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(15);
    // The refusal is answered without a throw: the request id is stamped once and matches the body's.
    expect(limited.headers.get('x-request-id')).toMatch(/^[0-9a-f]{16}-/);
    expect(limited.body.request_id).toBe(limited.headers.get('x-request-id'));
    expect(limited.body.retry_after_s).toBe(Number(limited.headers.get('retry-after')));
  });

  it('locks out an address after repeated failed authentications, valid key included, and not others', async () => {
    const t = await testApp({ env: { AEH_AUTH_FAILURES_PER_MINUTE: '5' }, capabilities: addressFromTestHeader });
    for (let index = 0; index < 5; index++) {
      expect((await t.json('GET', '/api/info', { key: `guess-${index}-${'0'.repeat(40)}`, headers: from('192.0.2.66') })).status).toBe(401);
    }
    const locked = await t.json('GET', '/api/info', { key: TEST_KEY, headers: from('192.0.2.66') });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('rate_limited');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(12);
    expect((await t.json('GET', '/api/info', { key: TEST_KEY, headers: from('192.0.2.67') })).status).toBe(200);
    const audit = await t.json('GET', '/api/v1/audit?limit=500');
    const refusals = audit.body.items.filter((entry: { status: number }) => entry.status === 429);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ client: '192.0.2.66', outcome: 'refused', detail: 'rate_limited:failed authentications from this address' });
    expect(audit.body.items.filter((entry: { status: number; client: string }) => entry.status === 401 && entry.client === '192.0.2.66')).toHaveLength(5);
  });

  it('uses the trusted proxy header when AEH_CLIENT_IP_HEADER names one', async () => {
    const t = await testApp({ env: { AEH_AUTH_FAILURES_PER_MINUTE: '1', AEH_CLIENT_IP_HEADER: 'X-Forwarded-For' } });
    expect((await t.json('GET', '/api/info', { key: null, headers: { 'x-forwarded-for': '1.2.3.4, 198.51.100.7' } })).status).toBe(401);
    expect((await t.json('GET', '/api/info', { key: null, headers: { 'x-forwarded-for': '9.9.9.9, 198.51.100.7' } })).status).toBe(429);
    expect((await t.json('GET', '/api/info', { key: null, headers: { 'x-forwarded-for': '198.51.100.8' } })).status).toBe(401);
  });
});

describe('hostile: client address on Node', () => {
  it('takes the socket peer as the client address, for the lockout and the audit log', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-limits-'));
    const service = await startNodeService({ PROJECT_ROOT: root, DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory', PORT: '0', AEH_AUTH_FAILURES_PER_MINUTE: '2' }, root, silentLogger);
    try {
      const get = (key: string) => fetch(`${service.url}/api/info`, { headers: { 'X-API-Key': key } });
      expect((await get(`wrong-${'0'.repeat(40)}`)).status).toBe(401);
      expect((await get(`wrong-${'1'.repeat(40)}`)).status).toBe(401);
      const locked = await get(TEST_KEY);
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toMatch(/^\d+$/);
      // Reading the log over HTTP would come from the locked-out address too: read it in-process.
      const services = await service.app.ready;
      const entries = new TextDecoder().decode((await services.store.getBytes(`audit/${new Date().toISOString().slice(0, 10)}.jsonl`)) ?? new Uint8Array());
      expect(entries).toContain('"client":"127.0.0.1"');
    } finally {
      await service.stop();
    }
  });
});

describe('hostile: the apiKey query parameter', () => {
  it('is accepted by default (the spec has it) and never reaches the audit log or the logs', async () => {
    const lines: string[] = [];
    const logger = { info: (m: string, f?: object) => void lines.push(m + JSON.stringify(f ?? {})), warn: (m: string, f?: object) => void lines.push(m + JSON.stringify(f ?? {})), error: (m: string, f?: object) => void lines.push(m + JSON.stringify(f ?? {})) };
    const crashing = {
      name: 'test-crash',
      setup(host: import('../../core/plugin-host.ts').PluginHost) {
        host.routes.register({ method: 'POST', path: '/test/crash', permission: 'evaluations:launch', summary: 'throws with the URL in the message', handler(c) { throw new Error(`boom at ${c.req.url} with Bearer ${TEST_KEY}`); } }, 'test-crash');
      },
    };
    const t = await testApp({ plugins: [probePlugin, crashing], capabilities: { logger } });
    expect((await t.json('GET', `/api/info?apiKey=${TEST_KEY}`, { key: null })).status).toBe(200);
    expect((await t.json('POST', `/test/crash?apiKey=${TEST_KEY}`, { key: null })).status).toBe(500);
    expect((await t.json('POST', `/test/fetch?apiKey=${TEST_KEY}`, { key: null, body: { url: 'http://127.0.0.1/' } })).status).toBe(400);
    expect((await t.json('GET', `/api/info?APIKEY=wrong-key-${'1'.repeat(40)}`, { key: null })).status).toBe(401);
    const audit = await t.json('GET', '/api/v1/audit');
    expect(audit.body.items.length).toBeGreaterThanOrEqual(3);
    const everything = JSON.stringify(audit.body) + lines.join('\n');
    expect(lines.some((line) => line.includes('boom at'))).toBe(true);
    expect(everything).not.toContain(TEST_KEY);
    expect(everything).not.toContain('1'.repeat(40));
    expect(lines.join('\n')).toContain('apiKey=[REDACTED]');
  });

  it('is refused with 401 when AEH_ALLOW_QUERY_KEY=0, even with the right key', async () => {
    const t = await testApp({ env: { AEH_ALLOW_QUERY_KEY: '0' } });
    const response = await t.json('GET', `/api/info?apiKey=${TEST_KEY}`, { key: null });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('unauthorized');
    expect(response.body.detail).toMatch(/AEH_ALLOW_QUERY_KEY=0/);
    expect(JSON.stringify(response.body)).not.toContain(TEST_KEY);
    expect((await t.json('GET', '/api/info')).status).toBe(200);
  });
});
