import { describe, it, expect } from 'vitest';
import { testApp, TEST_KEY } from './helpers.ts';

describe('foundation: system routes', () => {
  it('serves /healthz publicly with a request id', async () => {
    const t = await testApp();
    const res = await t.request('GET', '/healthz', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('answers /api/info with the key and 401 without', async () => {
    const t = await testApp();
    const ok = await t.json('GET', '/api/info');
    expect(ok.status).toBe(200);
    expect(ok.body.storage.driver).toBe('memory');
    const refused = await t.json('GET', '/api/info', { key: null });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');
    expect(refused.headers.get('www-authenticate')).toContain('Bearer');
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(refused.body)).not.toContain(TEST_KEY);
  });
});
