import { describe, it, expect } from 'vitest';
import { createApp } from '../core/app.ts';
import { parseConfig } from '../core/config.ts';
import { PluginError, type Plugin } from '../core/plugin.ts';
import type { PluginHost } from '../core/plugin-host.ts';
import { silentLogger } from '../core/capabilities.ts';
import { nodePlugins } from '../runtime/node/plugins.ts';
import { testApp, TEST_KEY } from './helpers.ts';

const config = parseConfig({ DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory' });
const capabilities = { runtime: { name: 'test', version: '0' }, logger: silentLogger };
const build = (...extra: Plugin[]) => createApp(config, [...nodePlugins(), ...extra], capabilities);

function startFailure(...extra: Plugin[]): PluginError {
  try {
    build(...extra);
  } catch (error) {
    return error as PluginError;
  }
  throw new Error('the start did not fail');
}

describe('foundation: plugins that fail the start', () => {
  it('refuses a plugin named like a bundled one', () => {
    const error = startFailure({ name: 'auth-static-key' });
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toBe('plugin "auth-static-key": the name is used by two plugins; rename one');
  });

  it('refuses a missing dependency', () => {
    expect(startFailure({ name: 'team-reports', dependencies: ['storage-s3'] }).message).toBe('plugin "team-reports": depends on "storage-s3", which is not loaded');
  });

  it('refuses circular dependencies', () => {
    expect(startFailure({ name: 'a', dependencies: ['b'] }, { name: 'b', dependencies: ['a'] }).message).toMatch(/circular dependency: a -> b -> a/);
  });

  it('names a plugin whose setup throws', () => {
    const error = startFailure({ name: 'team-metrics', setup() { throw new Error('TEAM_TOKEN is not set'); } });
    expect(error.plugin).toBe('team-metrics');
    expect(error.message).toBe('plugin "team-metrics": setup failed: TEAM_TOKEN is not set');
  });

  it('names a plugin that registers a route twice', () => {
    const route = { method: 'GET' as const, path: '/api/info', permission: null, summary: 'clash', handler: () => new Response('x') };
    const error = startFailure({ name: 'clasher', setup: (host) => void host.routes.register(route, 'clasher') });
    expect(error.message).toContain('plugin "clasher"');
    expect(error.message).toContain('route "GET /api/info" is registered twice (by system and clasher)');
  });

  it('names a plugin whose start hook fails', async () => {
    const app = build({ name: 'warmup', setup: (host) => host.onStart(async () => { throw new Error('cache cold'); }) });
    await expect(app.ready).rejects.toThrow('plugin "warmup": start hook failed: cache cold');
  });
});

describe('foundation: registering after start', () => {
  it('throws for every registry and hook once the app is built', async () => {
    const t = await testApp();
    const host = t.app.host;
    const route = { method: 'GET' as const, path: '/late', permission: null, summary: 'late', handler: () => new Response('late') };
    expect(() => host.routes.register(route, 'late')).toThrow('cannot register route "GET /late" after the service started');
    expect(() => host.metrics.register({ id: 'late_metric' } as never)).toThrow('after the service started');
    expect(() => host.authProviders.register({ name: 'late', authenticate: async () => null })).toThrow('after the service started');
    expect(() => host.onStart(() => undefined)).toThrow('after the service started');
    expect(() => host.on('audit', () => undefined)).toThrow('after the service started');
    expect((await t.request('GET', '/late')).status).toBe(404);
  });

  it('runs ready hooks after every start hook, whatever the plugin order, and names a plugin whose ready hook fails', async () => {
    const order: string[] = [];
    const early: Plugin = { name: 'early', setup: (host) => { host.onReady(() => void order.push('early ready')); host.onStart(() => void order.push('early start')); } };
    const late: Plugin = { name: 'late', setup: (host) => host.onStart(() => void order.push('late start')) };
    await build(early, late).ready;
    expect(order).toEqual(['early start', 'late start', 'early ready']);
    const failing = build({ name: 'resumer', setup: (host) => host.onReady(async () => { throw new Error('store gone'); }) });
    await expect(failing.ready).rejects.toThrow('plugin "resumer": ready hook failed: store gone');
  });

  it('fails the start of a plugin that tries to register from a start hook', async () => {
    let saved: PluginHost | undefined;
    const app = build({
      name: 'sneaky',
      setup(host) {
        saved = host;
        host.onStart(() => void saved!.metrics.register({ id: 'sneaky_metric' } as never, 'sneaky'));
      },
    });
    await expect(app.ready).rejects.toThrow(/plugin "sneaky": start hook failed: cannot register metric "sneaky_metric" after the service started/);
  });
});

describe('foundation: what plugins add is served', () => {
  const extension: Plugin = {
    name: 'team-extension',
    version: '2.1.0',
    setup(host) {
      host.schemas.register({ name: 'TeamThing', schema: { type: 'object', properties: { id: { type: 'string' } } } }, 'team-extension');
      host.routes.register({
        method: 'POST',
        path: '/api/v1/team/things/:thing_id',
        permission: 'registry:admin',
        summary: 'Stores a team thing',
        body: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        handler: (c) => c.json({ thing: c.req.param('thing_id') }, 201),
      }, 'team-extension');
    },
  };

  it('names every plugin in /api/info and describes each in /api/plugins', async () => {
    const t = await testApp({ plugins: [extension], userPlugins: ['team-extension'] });
    const { body } = await t.json('GET', '/api/info');
    expect(body.plugins).toContain('team-extension');
    expect(body.plugins).toContain('auth-static-key');
    expect(body.counts.plugins).toBe(body.plugins.length);
    expect(body.telemetry['http.requests']).toBeGreaterThanOrEqual(1);
    const listed = await t.json('GET', '/api/plugins');
    expect(listed.status).toBe(200);
    expect(listed.body.plugins).toContainEqual({ name: 'team-extension', version: '2.1.0', source: 'user' });
    expect(listed.body.plugins).toContainEqual(expect.objectContaining({ name: 'auth-static-key', source: 'bundled' }));
    // The same plugins in the same order as /api/info's names.
    expect(listed.body.plugins.map((plugin: { name: string }) => plugin.name)).toEqual(body.plugins);
    expect((await t.json('GET', '/api/v1/plugins')).body).toEqual(listed.body);
  });

  it('answers /api/plugins only with system:read', async () => {
    const t = await testApp({ plugins: [extension] });
    expect((await t.json('GET', '/api/plugins', { key: null })).status).toBe(401);
    const { body: doc } = await t.json('GET', '/api/openapi.json', { key: null });
    expect(doc.paths['/api/plugins'].get['x-permission']).toBe('system:read');
  });

  it('puts plugin routes and schemas into the OpenAPI document, body schema included', async () => {
    const t = await testApp({ plugins: [extension] });
    const { body: doc } = await t.json('GET', '/api/openapi.json', { key: null });
    const operation = doc.paths['/api/v1/team/things/{thing_id}'].post;
    expect(operation['x-permission']).toBe('registry:admin');
    expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'thing_id', in: 'path', required: true }));
    expect(operation.requestBody.content['application/json'].schema).toMatchObject({ required: ['id'] });
    expect(doc.components.schemas.TeamThing).toBeDefined();
  });

  it('applies the same permission and body rules to plugin routes', async () => {
    const t = await testApp({ plugins: [extension] });
    expect((await t.json('POST', '/api/v1/team/things/x', { body: { id: 'x' }, key: null })).status).toBe(401);
    expect((await t.json('POST', '/api/v1/team/things/x', { body: {} })).body.code).toBe('validation_failed');
    expect((await t.json('POST', '/api/v1/team/things/x', { body: { id: 'x' } })).body).toEqual({ thing: 'x' });
  });
});
