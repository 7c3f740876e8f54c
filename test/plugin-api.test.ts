/**
 * Plugin API v2 through the HTTP surface: one-function metrics, declared failure codes, settings, dependencies,
 * claim mappers and the owner of what a plugin registers.
 */
import { describe, it, expect } from 'vitest';
import { testApp, TEST_KEY } from './helpers.ts';
import { definePlugin, type Plugin, type OverrideThis } from '../core/plugin.ts';
import { defineMetric, fail } from '../core/metric.ts';
import { metricContext } from '../testing/metric.ts';
import type { AuthManagerInstance } from '../core/auth-manager.ts';
import claimsBearer from './fixtures/claims-bearer-auth.ts';
import { evaluate, scriptedScenario } from './evaluation-fixtures.ts';

const noApologies = defineMetric('no_apologies', (output) => !/\bsorry\b/i.test(output));

async function startFails(plugins: Plugin[], env: Record<string, string> = {}, settings?: Record<string, Record<string, unknown>>): Promise<string> {
  try {
    await testApp({ plugins, env, settings });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the app started');
}

describe('plugin API v2: a metric is one function', () => {
  it('defineMetric fills in the rest: dimension, description, version, a declared failure code', () => {
    expect(noApologies).toMatchObject({ id: 'no_apologies', dimension: 'reliability', version: '1.0.0' });
    expect(noApologies.failureCodes).toEqual([expect.objectContaining({ code: 'RELIABILITY.NO_APOLOGIES', parent: 'RELIABILITY' })]);
  });

  it('turns booleans, scores, null and results into verdicts', async () => {
    const scored = defineMetric({ id: 'length_score', dimension: 'explainability', threshold: 0.8, check: (output) => Math.min(1, output.length / 10) });
    const undecided = defineMetric('undecided', () => null);
    const broken = defineMetric('broken_score', () => 7);
    const full = defineMetric('full_result', () => fail('LOGIC.TASK_FAILED', 'nope'));
    expect(await noApologies.score(metricContext('no_apologies', { output: 'Here it is.' }))).toEqual({ score: 1, failures: [] });
    const failed = await noApologies.score(metricContext('no_apologies', { output: 'Sorry, no.' }));
    expect(failed.score).toBe(0);
    expect(failed.failures[0]).toMatchObject({ code: 'RELIABILITY.NO_APOLOGIES', severity: 'medium', event_index: 2 });
    expect((await scored.score(metricContext('length_score', { output: 'x'.repeat(5) }))).failures[0]).toMatchObject({ code: 'TRANSPARENCY.LENGTH_SCORE' });
    expect((await scored.score(metricContext('length_score', { output: 'x'.repeat(9) }))).score).toBe(0.9);
    expect(await undecided.score(metricContext('undecided'))).toMatchObject({ score: null, note: 'undecided could not decide' });
    expect((await broken.score(metricContext('broken_score'))).score).toBeNull();
    expect((await full.score(metricContext('full_result'))).failures[0].code).toBe('LOGIC.TASK_FAILED');
  });

  it('a plugin that lists it is enough: the metric scores a run and its code is in the taxonomy', async () => {
    const t = await testApp({ plugins: [definePlugin({ name: 'house-rules', metrics: [noApologies] })] });
    const listed = await t.json('GET', '/api/v1/metrics');
    expect(listed.body.items.find((item: { id: string }) => item.id === 'no_apologies')).toMatchObject({ plugin: 'house-rules' });
    const taxonomy = await t.json('GET', '/api/v1/taxonomy?within=RELIABILITY');
    expect(taxonomy.body.items.find((item: { code: string }) => item.code === 'RELIABILITY.NO_APOLOGIES')).toMatchObject({ plugin: 'house-rules', parent: 'RELIABILITY' });
    const scenario = scriptedScenario('apologetic', { tasks: [{ id: 't1', input: 'hi', metrics: [{ id: 'no_apologies' }] }], agent: { adapter: 'scripted', replies: { t1: 'Sorry, I cannot.' } } });
    const { task, traceText } = await evaluate(t, { scenario });
    expect(task.status).toBe('succeeded');
    expect(traceText).toContain('RELIABILITY.NO_APOLOGIES');
  });

  it('refuses a code whose parent nobody declares, and a code declared twice, naming the plugins', async () => {
    const orphan = await startFails([definePlugin({ name: 'orphans', failureCodes: [{ code: 'HOUSE.RULE', name: 'Rule', dimension: 'reliability', description: 'x', parent: 'HOUSE' }] })]);
    expect(orphan).toMatch(/plugin "orphans".*HOUSE\.RULE names the parent HOUSE/);
    const twice = await startFails([definePlugin({ name: 'again', failureCodes: [{ code: 'LOGIC.TASK_FAILED', name: 'x', dimension: 'reliability', description: 'x', parent: 'LOGIC' }] })]);
    expect(twice).toMatch(/failure code "LOGIC.TASK_FAILED" is registered twice \(by metrics and again\)/);
    expect(() => definePlugin({ name: 'bad-code', failureCodes: [{ code: 'lower.case', name: 'x', dimension: 'reliability', description: 'x' }] })).toThrow(/upper snake case/);
  });
});

describe('plugin API v2: settings', () => {
  const seen: Array<Readonly<Record<string, unknown>>> = [];
  const reports = definePlugin({
    name: 'team-reports',
    settings: {
      type: 'object',
      required: ['TEAM_REPORTS_URL'],
      properties: {
        TEAM_REPORTS_URL: { type: 'string', format: 'uri' },
        TEAM_REPORTS_TIMEOUT_MS: { type: 'integer', minimum: 1, default: 5000 },
        TEAM_REPORTS_ENABLED: { type: 'boolean', default: true },
        TEAM_REPORTS_TEAMS: { type: 'array', items: { type: 'string' } },
      },
    },
    setup(host) {
      // Typed from the schema: a string, a number (defaulted), a boolean and a list.
      const url: string = host.settings.TEAM_REPORTS_URL;
      const timeout: number | undefined = host.settings.TEAM_REPORTS_TIMEOUT_MS;
      seen.push({ ...host.settings, TEAM_REPORTS_URL: url, TEAM_REPORTS_TIMEOUT_MS: timeout });
      expect(Object.isFrozen(host.settings)).toBe(true);
      expect((host.config as { env?: unknown }).env).toBeUndefined();
    },
  });

  it('reads only the declared settings, as their types, with defaults', async () => {
    seen.length = 0;
    await testApp({ plugins: [reports], env: { TEAM_REPORTS_URL: 'https://reports.example/v1', TEAM_REPORTS_TEAMS: 'qa, sre', TEAM_REPORTS_ENABLED: 'false', OTHER_SECRET: 's3cret' } });
    expect(seen[0]).toEqual({ TEAM_REPORTS_URL: 'https://reports.example/v1', TEAM_REPORTS_TIMEOUT_MS: 5000, TEAM_REPORTS_ENABLED: false, TEAM_REPORTS_TEAMS: ['qa', 'sre'] });
  });

  it('config-file settings win over the environment', async () => {
    seen.length = 0;
    await testApp({ plugins: [reports], env: { TEAM_REPORTS_URL: 'https://env.example' }, settings: { 'team-reports': { TEAM_REPORTS_URL: 'https://file.example', TEAM_REPORTS_TIMEOUT_MS: 10 } } });
    expect(seen[0]).toMatchObject({ TEAM_REPORTS_URL: 'https://file.example', TEAM_REPORTS_TIMEOUT_MS: 10 });
  });

  it('a bad or missing setting stops the start naming the setting, never its value', async () => {
    const missing = await startFails([reports]);
    expect(missing).toMatch(/plugin "team-reports": could not be configured: settings: .*TEAM_REPORTS_URL/);
    const wrong = await startFails([reports], { TEAM_REPORTS_URL: 'https://x.example', TEAM_REPORTS_TIMEOUT_MS: 'soon-ish-secret' });
    expect(wrong).toMatch(/"TEAM_REPORTS_TIMEOUT_MS" must be a whole number/);
    expect(wrong).not.toContain('soon-ish-secret');
    const unknown = await startFails([reports], { TEAM_REPORTS_URL: 'https://x.example' }, { 'team-reports': { TEAM_REPORTS_COLOR: 'red' } });
    expect(unknown).toMatch(/"TEAM_REPORTS_COLOR" not declared/);
  });
});

describe('plugin API v2: dependencies', () => {
  it('denying a plugin another depends on stops the start', async () => {
    await expect(testApp({ deny: ['evaluation'] })).rejects.toThrow(/plugin "(schedules|explain|evidence|console|certification)": depends on (.*)"evaluation"(.*), which is disabled or denied/);
  });

  it('a missing dependency stops the start', async () => {
    const message = await startFails([definePlugin({ name: 'needs-crm', dependencies: ['crm'] })]);
    expect(message).toMatch(/plugin "needs-crm": depends on "crm", which is not loaded/);
  });
});

describe('plugin API v2: claim mappers and overrides', () => {
  const groups = definePlugin({
    name: 'groups',
    mapClaims: (claims, next, { permissionsOfRole }) => [...next(claims), ...((claims.groups as string[] | undefined)?.includes('qa') ? permissionsOfRole('operator') ?? [] : [])],
  });
  const audited = definePlugin({ name: 'no-deletes', mapClaims: (claims, next) => next(claims).filter((node) => node !== 'evaluations:launch' || claims.sub !== 'intern') });

  it('compose around the built-in mapping in load order', async () => {
    const t = await testApp({ plugins: [claimsBearer, groups, audited] });
    const services = await t.app.ready;
    expect(services.auth.permissionsFromClaims({ sub: 'ann', groups: ['qa'] })).toContain('evaluations:launch');
    expect(services.auth.permissionsFromClaims({ sub: 'intern', groups: ['qa'] })).not.toContain('evaluations:launch');
    expect(services.auth.permissionsFromClaims({ sub: 'bob' })).not.toContain('evaluations:launch');
  });

  it('an async override reads __super__ after an await and still calls the original on its own instance', async () => {
    const calls: string[] = [];
    const slow = definePlugin({
      name: 'slow-override',
      overrides: {
        AuthManager: {
          async describe(this: OverrideThis<AuthManagerInstance & { describe(tag: string): Promise<string>; tag?: string }>, tag: string) {
            await new Promise((resolve) => setTimeout(resolve, tag === 'a' ? 20 : 1));
            return this.__super__.describe(tag);
          },
        },
      },
    });
    const original = definePlugin({
      name: 'describes',
      setup(host) {
        (host.AuthManager.prototype as unknown as { describe(tag: string): Promise<string> }).describe = async function (this: { tag?: string }, tag: string) {
          calls.push(`${tag}:${this.tag}`);
          return `${tag}:${this.tag}`;
        };
      },
    });
    const t = await testApp({ only: [(await import('../plugins/storage/memory.ts')).default, original, slow] });
    const Manager = t.app.host.AuthManager as unknown as new (options: object) => { tag?: string; describe(tag: string): Promise<string> };
    const first = Object.assign(new Manager({}), { tag: 'first' });
    const second = Object.assign(new Manager({}), { tag: 'second' });
    expect(await Promise.all([first.describe('a'), second.describe('b')])).toEqual(['a:first', 'b:second']);
    expect(calls).toEqual(['b:second', 'a:first']);
  });
});

describe('plugin API v2: owners', () => {
  it('records the plugin as the owner of what it registers without it saying its name', async () => {
    const t = await testApp({ plugins: [definePlugin({ name: 'owner-test', setup: (host) => void host.metrics.register(defineMetric('owned_metric', () => true)) })] });
    const services = await t.app.ready;
    expect(services.metrics.ownerOf('owned_metric')).toBe('owner-test');
    expect(services.failureCodes.ownerOf('RELIABILITY.OWNED_METRIC')).toBe('owner-test');
    expect(TEST_KEY).toHaveLength(64);
  });
});

describe('plugin API v2: params typed from their JSON Schema', () => {
  it('gives the check its params with the types the schema declares', async () => {
    const budget = defineMetric({
      id: 'typed_budget',
      params: { type: 'object', properties: { max_words: { type: 'integer', minimum: 1 }, strict: { type: 'boolean' } }, additionalProperties: false },
      check: (output, { params }) => {
        // Compile-time: max_words is number | undefined and strict boolean | undefined; a wrong use fails `npm run typecheck`.
        const limit: number = params.max_words ?? 3;
        const strict: boolean | undefined = params.strict;
        // @ts-expect-error a property the schema does not declare
        void params.colour;
        return output.split(/\s+/).length <= limit || (strict ? false : null);
      },
    });
    expect((await budget.score(metricContext('typed_budget', { output: 'one two', params: { max_words: 2 } }))).score).toBe(1);
    expect((await budget.score(metricContext('typed_budget', { output: 'one two three', params: { max_words: 2, strict: true } }))).score).toBe(0);
    expect(budget.params).toMatchObject({ properties: { max_words: { type: 'integer' } } });
  });
});
