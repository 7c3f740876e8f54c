import { describe, it, expect } from 'vitest';
import { testApp, TEST_KEY } from './helpers.ts';
import { HARNESS_VERSION } from '../core/version.ts';

describe('foundation: system routes', () => {
  it('serves /healthz publicly with a request id', async () => {
    const t = await testApp();
    const res = await t.request('GET', '/healthz', { key: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
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

  it('reports every field of the contract in /api/info', async () => {
    const t = await testApp();
    const { body } = await t.json('GET', '/api/info');
    expect(body).toMatchObject({
      name: expect.any(String),
      version: HARNESS_VERSION,
      harness_version: HARNESS_VERSION,
      runtime: { name: 'node', version: process.versions.node },
      uptime_s: expect.any(Number),
      storage: { driver: 'memory' },
      counts: expect.objectContaining({ plugins: expect.any(Number), metrics: expect.any(Number) }),
      telemetry: expect.any(Object),
    });
    expect(body.plugins).toEqual(expect.arrayContaining(['storage-fs', 'storage-memory', 'auth-static-key', 'system']));
    expect(body.uptime_s).toBeGreaterThanOrEqual(0);
  });

  it('counts requests and refusals in the telemetry', async () => {
    const t = await testApp();
    await t.request('GET', '/api/info', { key: null });
    await t.request('GET', '/healthz', { key: null });
    const { body } = await t.json('GET', '/api/info');
    expect(body.telemetry['http.requests']).toBe(3);
    expect(body.telemetry['http.refused']).toBe(1);
  });
});

/** The contract's route → permission table (api-contract.md, "Authentication and permissions"). */
const CONTRACT_PERMISSIONS: Record<string, string | null> = {
  'GET /healthz': null,
  'GET /api/v1/verify/:run_id': null,
  'GET /v1/certificates/:run_id': null,
  'GET /.well-known/jwks.json': null,
  'GET /api/openapi.json': null,
  'GET /api/info': 'system:read',
  'GET /api/scenarios': 'scenarios:read',
  'GET /api/scenarios/:id': 'scenarios:read',
  'GET /api/v1/metrics': 'metrics:read',
  'GET /api/v1/taxonomy': 'taxonomy:read',
  'GET /api/v1/mutators': 'scenarios:read',
  'POST /api/evaluate': 'evaluations:launch',
  'GET /api/v1/tasks/:task_id': 'runs:read',
  'GET /api/v1/runs': 'runs:read',
  'GET /api/v1/runs/:run_id': 'runs:read',
  'GET /api/v1/explain/:run_id': 'runs:read',
  'GET /api/v1/runs/:run_id/trace': 'runs:export',
  'POST /api/v1/runs/:run_id/sign': 'runs:sign',
  'POST /api/v1/mutate': 'scenarios:mutate',
  'POST /api/v1/spec-to-eval': 'specs:convert',
  'GET /api/v1/doctor': 'doctor:read',
};

describe('foundation: the contract permission table', () => {
  it('guards every contract route that exists with the contract permission', async () => {
    const t = await testApp();
    const mounted = new Map(t.app.host.routes.list().map((route) => [`${route.method} ${route.path}`, route.permission]));
    for (const [route, permission] of Object.entries(CONTRACT_PERMISSIONS)) {
      if (mounted.has(route)) expect(mounted.get(route), route).toBe(permission);
    }
  });

  it('refuses an anonymous caller on every protected contract route that exists', async () => {
    const t = await testApp();
    for (const route of t.app.host.routes.list()) {
      const key = `${route.method} ${route.path}`;
      if (!CONTRACT_PERMISSIONS[key]) continue;
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, 'x');
      const response = await t.request(route.method, path, { key: null, headers: { 'content-type': 'application/json' }, raw: route.method === 'GET' ? undefined : '{}' });
      expect(response.status, key).toBe(401);
    }
  });
});

describe('foundation: OpenAPI document', () => {
  it('is public OpenAPI 3.1 describing every mounted route with its permission', async () => {
    const t = await testApp();
    const response = await t.request('GET', '/api/openapi.json', { key: null });
    expect(response.headers.get('content-type')).toContain('application/json');
    const doc = await response.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(HARNESS_VERSION);
    for (const route of t.app.host.routes.list()) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const operation = doc.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation['x-permission']).toBe(route.permission ?? 'public');
    }
    expect(doc.paths['/healthz'].get['x-permission']).toBe('public');
    expect(doc.paths['/api/info'].get['x-permission']).toBe('system:read');
    expect(doc.components.schemas.Problem.required).toEqual(['type', 'title', 'status', 'detail', 'code', 'request_id']);
  });

  it('uses unique operation ids', async () => {
    const t = await testApp();
    const doc = (await t.json('GET', '/api/openapi.json', { key: null })).body;
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
