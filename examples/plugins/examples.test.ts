/**
 * The example plugins, loaded the way a user loads them: an `aeh.config.ts` / `aeh.config.js` in a fresh
 * PROJECT_ROOT, or module paths in `AEH_PLUGINS`, through the Node entry's `buildNodeApp`.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildNodeApp } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import type { MetricContext } from '../../core/metric.ts';
import { TEST_KEY } from '../../test/helpers.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const WORD_BUDGET = join(here, 'word-budget-metric.ts');
const GROUPS_MAPPING = join(here, 'groups-auth-mapping.ts');
const CLAIMS_BEARER = join(here, '..', '..', 'test', 'fixtures', 'claims-bearer-auth.ts');

function projectWith(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'aeh-user-plugins-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

function start(root: string, env: Record<string, string> = {}) {
  return buildNodeApp({ DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory', PROJECT_ROOT: root, ...env }, root, silentLogger);
}

/** The loaded plugins as `GET /api/plugins` lists them (name, version, source). */
async function pluginsOf(app: Awaited<ReturnType<typeof start>>['app']) {
  const response = await app.request('/api/plugins', { headers: { 'X-API-Key': TEST_KEY } });
  return response.json() as Promise<{ plugins: Array<{ name: string; source: string }> }>;
}

function contextFor(output: string, params: Record<string, unknown> = {}): MetricContext {
  return {
    scenario: { id: 's', title: 's', tasks: [] } as unknown as MetricContext['scenario'],
    task: { id: 't1', input: 'hi', metrics: [] } as unknown as MetricContext['task'],
    ref: { id: 'word_budget', params },
    params,
    output,
    outputEvent: 3,
    events: [],
    latencyMs: 1,
  };
}

describe('example plugin: word_budget metric', () => {
  // PROJECT_ROOT has no package.json, so tsx loads the config as CommonJS: everything the examples import from
  // core/ must be require()-able (regression: an import-only dependency in core/validate.ts broke this).
  it('loads from aeh.config.ts in PROJECT_ROOT as a user plugin', async () => {
    const root = projectWith({
      'aeh.config.ts': `import wordBudget from ${JSON.stringify(pathToFileURL(WORD_BUDGET).href)};\nexport default { plugins: [wordBudget] };\n`,
    });
    const { app } = await start(root);
    const services = await app.ready;
    expect(services.metrics.ownerOf('word_budget')).toBe('example-word-budget');
    const info = await pluginsOf(app);
    expect(info.plugins).toContainEqual(expect.objectContaining({ name: 'example-word-budget', source: 'user' }));
    expect(info.plugins.find((plugin) => plugin.name === 'system')?.source).toBe('bundled');
    await app.close();
  });

  it('scores answers against the word budget', async () => {
    const { app } = await start(projectWith({}), { AEH_PLUGINS: WORD_BUDGET });
    const metric = (await app.ready).metrics.get('word_budget')!;
    expect(await metric.score(contextFor('Short and sweet.', { max_words: 5 }))).toEqual({ score: 1, failures: [] });
    const long = await metric.score(contextFor('one two three four five six seven eight nine ten', { max_words: 5 }));
    expect(long.score).toBe(0);
    expect(long.failures[0]).toMatchObject({ code: 'RELIABILITY.OUTPUT_TOO_LONG', event_index: 3, evidence: { words: 10, budget: 5 } });
    const slightly = await metric.score(contextFor('one two three four five six', { max_words: 5 }));
    expect(slightly.score).toBeCloseTo(0.8);
    expect((await metric.score(contextFor('word '.repeat(120)))).score).toBe(1); // default budget 120
    expect(metric.params).toMatchObject({ properties: { max_words: { type: 'integer' } } });
  });

  it('loads the shipped aeh.config.example.ts with both examples', async () => {
    const root = projectWith({
      'aeh.config.ts': `export { default } from ${JSON.stringify(pathToFileURL(join(here, 'aeh.config.example.ts')).href)};\n`,
    });
    const { app } = await start(root);
    const names = (await pluginsOf(app)).plugins.filter((plugin) => plugin.source === 'user').map((plugin) => plugin.name);
    expect(names).toEqual(['example-word-budget', 'example-groups-auth-mapping']);
  });
});

describe('example plugin: groups auth mapping', () => {
  const bearer = (claims: Record<string, unknown>) => `Bearer claims.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;

  async function appWithMapping(mapping: boolean) {
    const plugins = mapping ? [GROUPS_MAPPING, CLAIMS_BEARER] : [CLAIMS_BEARER];
    const { app } = await start(projectWith({}), { AEH_PLUGINS: plugins.join(',') });
    return app;
  }

  /** A route needing `doctor:read`, which only OPERATOR and SUPERVISOR hold. */
  const doctor = (app: Awaited<ReturnType<typeof appWithMapping>>, claims: Record<string, unknown>) =>
    app.request('/api/v1/doctor', { headers: { Authorization: bearer(claims) } });

  it('loads from AEH_PLUGINS and extends permissionsFromClaims, keeping the built-in mapping', async () => {
    const app = await appWithMapping(true);
    const auth = (await app.ready).auth;
    expect(auth.permissionsFromClaims({ groups: ['qa-engineers'] })).toContain('evaluations:launch');
    expect(auth.permissionsFromClaims({ groups: 'compliance everyone' })).toEqual(expect.arrayContaining(['runs:sign', 'runs:read']));
    expect(auth.permissionsFromClaims({ roles: ['viewer'] })).toContain('runs:read');
    expect(auth.permissionsFromClaims({ groups: ['strangers'] })).toEqual([]);
  });

  it('turns a groups claim into access over HTTP: 403 without the group, 200 with it', async () => {
    const app = await appWithMapping(true);
    const without = await doctor(app, { sub: 'ana', groups: ['everyone'] });
    expect(without.status).toBe(403);
    expect((await without.json()).detail).toContain('doctor:read');
    expect((await doctor(app, { sub: 'ana', groups: ['qa-engineers'] })).status).toBe(200);
  });

  it('changes nothing when it is not loaded', async () => {
    const app = await appWithMapping(false);
    expect((await doctor(app, { sub: 'ana', groups: ['qa-engineers'] })).status).toBe(403);
  });
});

describe('user plugins: loading and failures', () => {
  it('loads a plain JavaScript aeh.config.js and relative AEH_PLUGINS paths, after the bundled plugins', async () => {
    const root = projectWith({
      'aeh.config.js': `export default { plugins: [{ name: 'from-config', setup(host) { host.onStart(() => {}); } }] };\n`,
      'plugins/extra.mjs': `export default () => [{ name: 'from-env-a' }, { name: 'from-env-b', dependencies: ['from-config'] }];\n`,
    });
    const { app } = await start(root, { AEH_PLUGINS: './plugins/extra.mjs' });
    const plugins = (await pluginsOf(app)).plugins;
    const names = plugins.map((plugin) => plugin.name);
    expect(names.slice(-3)).toEqual(['from-config', 'from-env-a', 'from-env-b']);
    expect(names.indexOf('system')).toBeLessThan(names.indexOf('from-config'));
  });

  it('fails the start naming a plugin whose setup throws', async () => {
    const root = projectWith({ 'aeh.config.js': `export default { plugins: [{ name: 'team-broken', setup() { throw new Error('missing TEAM_TOKEN'); } }] };\n` });
    await expect(start(root)).rejects.toThrow('plugin "team-broken": setup failed: missing TEAM_TOKEN');
  });

  it('fails the start when a user plugin takes a bundled name', async () => {
    const root = projectWith({ 'aeh.config.js': `export default { plugins: [{ name: 'system' }] };\n` });
    await expect(start(root)).rejects.toThrow('plugin "system": the name is used by two plugins');
  });

  it('fails the start naming a module that cannot be loaded', async () => {
    const root = projectWith({ 'bad.mjs': 'export default {{ syntax error' });
    await expect(start(root, { AEH_PLUGINS: './missing.mjs' })).rejects.toThrow(/could not load plugin module "\.\/missing\.mjs"/);
    await expect(start(root, { AEH_PLUGINS: './bad.mjs' })).rejects.toThrow(/could not load plugin module "\.\/bad\.mjs"/);
    await expect(start(root, { AEH_PLUGINS: 'no-such-package-aeh-xyz' })).rejects.toThrow(/could not load plugin module "no-such-package-aeh-xyz"/);
  });

  it('fails the start when a module exports no plugin', async () => {
    const root = projectWith({ 'empty.mjs': 'export const nothing = 1;\n' });
    await expect(start(root, { AEH_PLUGINS: './empty.mjs' })).rejects.toThrow(/\.\/empty\.mjs does not export a plugin/);
  });
});
