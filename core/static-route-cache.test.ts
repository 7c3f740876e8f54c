import { describe, it, expect } from 'vitest';
import { Hono } from 'hono';
import { createStaticRouteCache } from './static-route-cache.ts';
import { testApp } from '../test/helpers.ts';

describe('static route cache', () => {
  it('answers fixed and parameter routes as hono does, again and again, beside a pair the RegExpRouter refuses', async () => {
    const app = new Hono({ router: createStaticRouteCache() });
    app.get('/api/v1/verify/:run_id', (c) => c.text(`run ${c.req.param('run_id')}`));
    app.get('/api/v1/verify/suite/:suite_id', (c) => c.text(`suite ${c.req.param('suite_id')}`));
    app.get('/api/info', (c) => c.text('info'));
    app.post('/api/info', (c) => c.text('posted'));
    for (let round = 0; round < 3; round++) {
      expect(await (await app.request('/api/info')).text()).toBe('info');
      expect(await (await app.request('/api/info', { method: 'POST' })).text()).toBe('posted');
      expect((await app.request('/api/info', { method: 'DELETE' })).status).toBe(404);
      expect(await (await app.request('/api/v1/verify/r1')).text()).toBe('run r1');
      expect(await (await app.request('/api/v1/verify/suite/s1')).text()).toBe('suite s1');
      expect(await (await app.request('/api/v1/verify/suite')).text()).toBe('run suite');
    }
  });

  it('serves the service: a fixed route, its alias and a parameter route through the fetch handler', async () => {
    const t = await testApp();
    for (let round = 0; round < 2; round++) {
      expect((await t.json('GET', '/api/info')).status).toBe(200);
      expect((await t.json('GET', '/api/v1/info')).status).toBe(200);
      expect((await t.json('GET', '/api/v1/verify/no-such-run', { key: null })).status).toBe(404);
      expect((await t.json('DELETE', '/api/info')).status).toBe(404);
    }
  });
});
