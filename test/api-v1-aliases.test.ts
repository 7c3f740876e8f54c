/**
 * issue 18 item 4: the core functions under /api/v1/ answer exactly as their unversioned forms (one handler,
 * both paths), and both paths are in the OpenAPI document.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { testApp, type TestApp } from './helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ plugins: [testMetrics] });
});

describe('/api/v1 aliases', () => {
  it('GET /api/v1/info and /api/v1/scenarios answer as /api/info and /api/scenarios', async () => {
    const [info, infoV1] = [await t.json('GET', '/api/info'), await t.json('GET', '/api/v1/info')];
    expect(infoV1.status).toBe(200);
    expect(Object.keys(infoV1.body).sort()).toEqual(Object.keys(info.body).sort());
    expect(infoV1.body.plugins).toEqual(info.body.plugins);
    const [search, searchV1] = [await t.json('GET', '/api/scenarios?limit=3'), await t.json('GET', '/api/v1/scenarios?limit=3')];
    expect(searchV1.body).toEqual(search.body);
    const id = search.body.items[0].id;
    expect((await t.json('GET', `/api/v1/scenarios/${id}`)).body).toEqual((await t.json('GET', `/api/scenarios/${id}`)).body);
    expect((await t.json('GET', '/api/v1/scenarios/no-such-id')).status).toBe(404);
  });

  it('POST /api/v1/evaluate runs a scenario, and /api/v1/certificates/:id serves the same bytes as /v1/certificates/:id', async () => {
    const accepted = await t.json('POST', '/api/v1/evaluate', { body: { scenario: scriptedScenario('aliases') } });
    expect(accepted.status).toBe(202);
    const { run } = await evaluate(t, { scenario: scriptedScenario('aliases-2') });
    const runId = run.run_id;
    for (let i = 0; i < 6_000 && (await t.request('GET', `/v1/certificates/${runId}`, { key: null })).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const [plain, versioned] = [await t.request('GET', `/v1/certificates/${runId}`, { key: null }), await t.request('GET', `/api/v1/certificates/${runId}`, { key: null })];
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get('etag')).toBe(plain.headers.get('etag'));
    expect(await versioned.text()).toBe(await plain.text());
    expect((await t.json('POST', '/api/v1/evaluate', { body: {} })).status).toBe(400);
  });

  it('lists both forms of each path in the OpenAPI document, with distinct operation ids', async () => {
    const { body } = await t.json('GET', '/api/openapi.json', { key: null });
    for (const [plain, versioned, method] of [['/api/evaluate', '/api/v1/evaluate', 'post'], ['/api/info', '/api/v1/info', 'get'], ['/api/scenarios', '/api/v1/scenarios', 'get'], ['/api/scenarios/{id}', '/api/v1/scenarios/{id}', 'get'], ['/v1/certificates/{run_id}', '/api/v1/certificates/{run_id}', 'get']]) {
      expect(body.paths[plain]?.[method], plain).toBeDefined();
      expect(body.paths[versioned]?.[method], versioned).toBeDefined();
      expect(body.paths[versioned][method].operationId).not.toBe(body.paths[plain][method].operationId);
      expect(body.paths[versioned][method]['x-permission']).toBe(body.paths[plain][method]['x-permission']);
    }
  });
});

describe('/api/v1 aliases: collisions', () => {
  it('a route on a path another route serves as an alias stops the start, naming both plugins', async () => {
    const clash = { name: 'clash', setup: (host: import('../core/plugin-host.ts').PluginHost) => host.routes.register({ method: 'GET', path: '/api/v1/info', permission: null, summary: 'x', handler: (c) => c.text('x') }) };
    await expect(testApp({ plugins: [clash] })).rejects.toThrow(/route GET \/api\/v1\/info is served twice \(by system and clash\)/);
  });
});
