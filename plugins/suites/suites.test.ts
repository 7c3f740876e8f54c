import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { scriptedScenario, testMetrics } from '../../test/evaluation-fixtures.ts';
import { verifyCertificate } from '../../core/domain/verify-certificate.ts';
import { keys } from '../../core/domain/runs.ts';
import type { Certificate } from '../../core/domain/certificate.ts';

/** A catalog folder of `count` scripted scenarios tagged `suite` (the even ones also `pii`). */
export function suiteCatalog(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-suite-catalog-'));
  for (let index = 0; index < count; index++) {
    writeFileSync(join(dir, `s${index}.json`), JSON.stringify(scriptedScenario(`suite-s${index}`, { industry: 'Finance', tags: index % 2 ? ['suite'] : ['suite', 'pii'] })));
  }
  return dir;
}

const GOOD = { adapter: 'scripted', replies: { t1: 'Your balance is 42 EUR.', t2: "I can't help with that." } };
const BAD = { adapter: 'scripted', replies: { t1: 'No idea.', t2: "I can't help with that." } };

async function waitForSuite(t: TestApp, suiteId: string, until: (body: any) => boolean, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await t.json('GET', `/api/v1/suites/${suiteId}`);
    if (until(body) || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('suites: scenarios × agents', () => {
  let t: TestApp;
  let suite: any;
  let accepted: any;
  beforeAll(async () => {
    t = await testApp({ plugins: [testMetrics], env: { AEH_CATALOG_DIRS: suiteCatalog(4) } });
    accepted = await t.json('POST', '/api/v1/suites', { body: { name: 'nightly', query: 'industry=finance&tag=pii', agents: [GOOD, BAD] } });
    suite = await waitForSuite(t, accepted.body.suite_id, (body) => body.certificate?.status === 'issued');
  }, 30_000);
  afterAll(() => t.app.close?.());

  it('accepts with 202, a Location and one run per scenario and agent', () => {
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('location')).toBe(`/api/v1/suites/${accepted.body.suite_id}`);
    expect(accepted.body).toMatchObject({ status: 'launching', runs: 4, scenarios: 2 });
    expect(suite.scenario_ids.sort()).toEqual(['suite-s0', 'suite-s2']);
    expect(suite.query).toEqual({ industry: 'finance', tag: 'pii' });
  });

  it('aggregates per agent: index, dimensions, pass rate and failures by code', () => {
    expect(suite.status).toBe('finished');
    const [good, bad] = suite.agents;
    expect(good.agent.spec).toEqual(GOOD);
    expect(good.runs).toMatchObject({ total: 2, finished: 2, by_status: { succeeded: 2 } });
    expect(good.pass_rate).toBe(1);
    expect(good.failures_by_code).toEqual({});
    expect(good.dimensions.reliability).toBe(1);
    expect(bad.pass_rate).toBeLessThan(1);
    expect(bad.failures_by_code).toEqual({ 'LOGIC.TASK_FAILED': 2 });
    expect(bad.index).toBeLessThan(good.index);
    expect(suite.runs.every((run: any) => run.run_id && run.status === 'succeeded')).toBe(true);
  });

  it('each run keeps its certificate, and the suite certificate lists their digests', async () => {
    const certificate = (await t.json('GET', `/api/v1/suites/${suite.suite_id}/certificate`, { key: null })).body as Certificate;
    expect(certificate.run_id).toBe(suite.suite_id);
    expect(certificate.trace_file).toBe('manifest.json');
    expect(Object.keys(certificate.evidence_ledger).sort()).toEqual(suite.runs.map((run: any) => `${run.run_id}.certificate.json`).sort());
    for (const run of suite.runs) expect((await t.json('GET', `/api/v1/verify/${run.run_id}`, { key: null })).body.status).toBe('valid');
    const verified = await t.json('GET', `/api/v1/verify/suite/${suite.suite_id}`, { key: null });
    expect(verified.status).toBe(200);
    expect(verified.body.status).toBe('valid');
    expect(verified.body.checks.map((check: any) => check.id)).toEqual(expect.arrayContaining(['schema', 'trace_hash', 'evidence_ledger', 'signatures', 'expiry', 'run_certificates']));
  });

  it('verifies offline from its evidence files, as aeh verify does', async () => {
    const certificate = (await t.json('GET', `/api/v1/suites/${suite.suite_id}/certificate`)).body;
    const file = async (name: string) => new Uint8Array(await (await t.request('GET', `/api/v1/suites/${suite.suite_id}/evidence/${name}`)).arrayBuffer());
    const jwks = (await t.json('GET', '/.well-known/jwks.json')).body.keys;
    const result = await verifyCertificate(certificate, { keys: jwks, now: Date.now(), source: { trace: file, sidecar: file } });
    expect(result.status).toBe('valid');
  });

  it('stays valid when an Auditor countersigns a run, and turns invalid when a run certificate is changed', async () => {
    const [first, second] = suite.runs;
    expect((await t.json('POST', `/api/v1/runs/${first.run_id}/sign`)).status).toBe(200);
    expect((await t.json('GET', `/api/v1/verify/suite/${suite.suite_id}`, { key: null })).body.status).toBe('valid');
    const store = (await t.app.ready).store;
    const stored = (await store.getJson<Certificate>(keys.certificate(second.run_id)))!;
    await store.setJson(keys.certificate(second.run_id), { ...stored, harness_version: 'forged' });
    const verified = (await t.json('GET', `/api/v1/verify/suite/${suite.suite_id}`, { key: null })).body;
    expect(verified.status).toBe('invalid');
    const failed = verified.checks.filter((check: any) => !check.ok).map((check: any) => check.id);
    expect(failed).toEqual(expect.arrayContaining(['evidence_ledger', 'run_certificates']));
    await store.setJson(keys.certificate(second.run_id), stored);
  });

  it('serves the suite to other plugins through the suites slot, and lists suites newest first', async () => {
    const fromSlot = await (await t.app.ready).use('suites').get(suite.suite_id);
    expect(fromSlot?.agents.map((agent) => agent.index)).toEqual(suite.agents.map((agent: any) => agent.index));
    expect(await (await t.app.ready).use('suites').get('suite_nosuch')).toBeNull();
    const second = await t.json('POST', '/api/v1/suites', { body: { scenarios: ['suite-s1'] } });
    expect(second.status).toBe(202);
    const list = await t.json('GET', '/api/v1/suites?limit=1');
    expect(list.body.items.map((item: any) => item.suite_id)).toEqual([second.body.suite_id]);
    const next = await t.json('GET', `/api/v1/suites?limit=1&cursor=${list.body.next_cursor}`);
    expect(next.body.items[0]).toMatchObject({ suite_id: suite.suite_id, name: 'nightly', runs: 4, certified: true });
    const own = await waitForSuite(t, second.body.suite_id, (body) => body.status === 'finished');
    expect(own.agents[0].agent.key).toBe('scenario');
  });
});

describe('suites: scenario files and inline scenarios beside catalog ids (issue 26 item 4)', () => {
  it('runs a scenario file, an inline scenario and a catalog id, each file as it was read at creation', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { AEH_CATALOG_DIRS: suiteCatalog(1) } });
    writeFileSync(join(t.root, 'mine.json'), JSON.stringify(scriptedScenario('from-file')));
    const inline = scriptedScenario('inline-one', { verdict: { fail_on_severity: 'critical' } });
    const accepted = await t.json('POST', '/api/v1/suites', { body: { scenarios: [{ path: 'mine.json' }, { scenario: inline }, 'suite-s0'], agents: [GOOD], verdict: { min_pass_rate: 1 } } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body.scenarios).toBe(3);
    // A later edit of the file changes nothing for this suite: it runs what was read and validated.
    writeFileSync(join(t.root, 'mine.json'), JSON.stringify(scriptedScenario('from-file', { title: 'edited later' })));
    const suite = await waitForSuite(t, accepted.body.suite_id, (body) => body.status === 'finished');
    expect(suite.runs.map((run: any) => [run.scenario_id, run.status, run.compliance])).toEqual([
      ['from-file', 'succeeded', 'pass'], ['inline-one', 'succeeded', 'pass'], ['suite-s0', 'succeeded', 'pass'],
    ]);
    const fromFile = (await t.json('GET', `/api/v1/runs/${suite.runs[0].run_id}`)).body;
    expect(fromFile.scenario_title).toBe('Scenario from-file');
    // The suite's verdict fields go over each scenario's own.
    const inlineRun = (await t.json('GET', `/api/v1/runs/${suite.runs[1].run_id}`)).body;
    expect(inlineRun.compliance.policy).toMatchObject({ fail_on_severity: 'critical', min_pass_rate: 1 });
    expect(suite.agents[0].pass_rate).toBe(1);
  }, 30_000);

  it.each([
    [{ scenarios: [{ path: '../outside.json' }] }, '/scenarios/0/path'],
    [{ scenarios: [{ path: 'missing.json' }] }, '/scenarios/0/path'],
    [{ scenarios: [{ scenario: { id: 'x' } }] }, '/scenarios/0/scenario'],
    [{ scenarios: [{ scenario: scriptedScenario('twice') }, { scenario: scriptedScenario('twice') }] }, '/scenarios/1'],
    [{ scenarios: [{ nothing: true }] }, '/scenarios/0'],
  ])('refuses %j naming %s', async (body, path) => {
    const t = await testApp({ plugins: [testMetrics] });
    const answer = await t.json('POST', '/api/v1/suites', { body });
    expect(answer.status).toBe(400);
    expect(answer.body.errors.map((error: any) => error.path).some((found: string) => found.startsWith(path)), JSON.stringify(answer.body.errors)).toBe(true);
  });
});

describe('suites: refusals', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ plugins: [testMetrics], env: { AEH_CATALOG_DIRS: suiteCatalog(3) } });
  });

  it.each([
    [{}, 400, '/'],
    [{ scenarios: ['suite-s0'], query: 'tag=pii' }, 400, '/'],
    [{ query: 'colour=red' }, 400, '/query'],
    [{ query: 'tag=nothing-has-this' }, 400, '/query'],
    [{ scenarios: ['suite-s0', 'nope'] }, 404, '/scenarios/1'],
    [{ scenarios: ['suite-s0'], agents: [GOOD, { ...GOOD }] }, 400, '/agents/1'],
    [{ scenarios: ['suite-s0'], agents: [GOOD, { adapter: 'no_such_adapter' }] }, 400, '/agents/1'],
    [{ scenarios: ['../etc'] }, 400, '/scenarios/0'],
  ])('refuses %j with %i naming %s', async (body, status, path) => {
    const answer = await t.json('POST', '/api/v1/suites', { body });
    expect(answer.status).toBe(status);
    expect(answer.body.errors?.map((error: any) => error.path)).toContain(path);
  });

  it('launches nothing when an agent is refused: the first agent\'s run is cancelled', async () => {
    await t.json('POST', '/api/v1/suites', { body: { scenarios: ['suite-s0'], agents: [GOOD, { adapter: 'no_such_adapter' }] } });
    const runs = (await t.json('GET', '/api/v1/runs?limit=100')).body.items;
    expect(runs.every((run: any) => run.status === 'cancelled' || run.status === 'succeeded')).toBe(true);
    expect((await t.json('GET', '/api/v1/suites')).body.items).toEqual([]);
  });

  it('needs evaluations:launch to create and runs:read to read', async () => {
    expect((await t.json('POST', '/api/v1/suites', { body: { scenarios: ['suite-s0'] }, key: null })).status).toBe(401);
    expect((await t.json('GET', '/api/v1/suites', { key: null })).status).toBe(401);
    expect((await t.json('GET', '/api/v1/suites/suite_nosuch')).status).toBe(404);
    expect((await t.json('GET', '/api/v1/suites/..%2Fx')).status).toBe(404);
    expect((await t.json('GET', '/api/v1/verify/suite/suite_nosuch', { key: null })).status).toBe(404);
  });
});
