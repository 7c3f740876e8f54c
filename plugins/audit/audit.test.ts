import { describe, it, expect } from 'vitest';
import { testApp, TEST_KEY } from '../../test/helpers.ts';
import type { Plugin } from '../../core/plugin.ts';

/** Mutation routes shaped like the real ones: one names its audit action, one does not. */
const mutations: Plugin = {
  name: 'test-mutations',
  setup(host) {
    host.routes.register({
      method: 'POST', path: '/test/evaluate', permission: 'evaluations:launch', summary: 'named action', audit: 'evaluate',
      body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
      handler: (c) => c.json({ ok: true }, 202),
    }, 'test-mutations');
    host.routes.register({ method: 'DELETE', path: '/test/things/:id', permission: 'registry:admin', summary: 'unnamed action', handler: (c) => c.body(null, 204) }, 'test-mutations');
    host.routes.register({ method: 'POST', path: '/test/fail', permission: 'evaluations:launch', summary: 'crashes', handler() { throw new Error('nope'); } }, 'test-mutations');
  },
};

describe('plugin: audit', () => {
  it('records authenticated mutations, named or not, malformed attempts and crashes included', async () => {
    const t = await testApp({ plugins: [mutations] });
    expect((await t.json('POST', '/test/evaluate', { body: { n: 1 } })).status).toBe(202);
    expect((await t.json('POST', '/test/evaluate', { body: { n: 'x' } })).status).toBe(400);
    expect((await t.request('DELETE', '/test/things/42')).status).toBe(204);
    expect((await t.json('POST', '/test/fail')).status).toBe(500);
    const { status, body } = await t.json('GET', '/api/v1/audit');
    expect(status).toBe(200);
    expect(body.items.map((entry: { action: string; status: number; outcome: string }) => [entry.action, entry.status, entry.outcome])).toEqual([
      ['POST /test/fail', 500, 'error'],
      ['DELETE /test/things/:id', 204, 'ok'],
      ['evaluate', 400, 'error'],
      ['evaluate', 202, 'ok'],
    ]);
    for (const entry of body.items) {
      expect(entry).toMatchObject({ principal: 'static-key', client: 'unknown', id: expect.any(String), request_id: expect.any(String) });
      expect(Date.parse(entry.at)).not.toBeNaN();
    }
    expect(JSON.stringify(body)).not.toContain(TEST_KEY);
  });

  it('records refused requests: no credential, wrong credential, missing permission', async () => {
    const t = await testApp({ plugins: [mutations] });
    await t.json('POST', '/test/evaluate', { key: null, body: { n: 1 } });
    await t.json('POST', '/test/evaluate', { key: `wrong-${'x'.repeat(40)}`, body: { n: 1 } });
    const entries = (await t.json('GET', '/api/v1/audit')).body.items;
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(entry).toMatchObject({ path: '/test/evaluate', outcome: 'refused', status: 401, detail: 'unauthorized' });
    expect(entries[0].principal).toBeUndefined();
    expect(JSON.stringify(entries)).not.toContain('x'.repeat(40));
  });

  it('pages newest first with a cursor, and validates limit and cursor', async () => {
    const t = await testApp({ plugins: [mutations] });
    for (let n = 0; n < 7; n++) await t.json('POST', '/test/evaluate', { body: { n }, headers: { 'x-request-id': `request-${n}-abcdefgh` } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: Array<{ request_id: string }>; next_cursor: string | null } } = await t.json('GET', `/api/v1/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.items.map((entry) => entry.request_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0].map((n) => `request-${n}-abcdefgh`));
    for (const query of ['limit=0', 'limit=501', 'limit=abc', 'cursor=%%%', 'cursor=bm90LWEtY3Vyc29y']) {
      const bad = await t.json('GET', `/api/v1/audit?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.code, query).toBe('validation_failed');
    }
  });

  it('is readable with audit:read only', async () => {
    const t = await testApp();
    expect((await t.json('GET', '/api/v1/audit', { key: null })).status).toBe(401);
  });
});
