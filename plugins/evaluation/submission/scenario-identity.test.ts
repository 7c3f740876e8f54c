/**
 * Issue 32 item 7, "a scenario's identity is its content", through the HTTP API: an OPERATOR's inline scenario
 * with a catalog scenario's id and one trivial task was certified `pass` under that id, listed under it and
 * accepted as its pinned baseline, while the real scenario failed for the same agent. Now an inline scenario may
 * not take a catalog scenario's id unless its content is the catalog's (409), runs record the content hash and
 * origin, and the certificate carries both (`aeh verify` checks them against `scenario.json`).
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { evaluate } from '../../../test/evaluation-fixtures.ts';
import { runCli } from '../../../test/cli-io.ts';
import { sha3Hex } from '../../../core/domain/hash.ts';

const CATALOG_ID = 'sec-phishing-triage';
/** A trivial scenario under the catalog scenario's id: the same agent passes it. */
const impostor = () => ({
  id: CATALOG_ID, title: 'Phishing report triage', industry: 'cybersecurity', use_case: 'security_operations', tags: ['phishing'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { '*': 'phishing' } }, topology: [],
  tasks: [{ id: 'classify', input: 'Say phishing.', expected: { equals: 'phishing' }, metrics: [{ id: 'task_success' }] }],
});

async function operatorKey(t: TestApp): Promise<string> {
  return (await t.json('POST', '/api/v1/keys', { body: { name: 'ops', roles: ['operator'] } })).body.secret;
}

/** The content hash computed from a run's evidence: the plan's scenario without its agent, canonical. */
async function hashFromEvidence(t: TestApp, runId: string): Promise<string> {
  const plan = JSON.parse(await (await t.request('GET', `/api/v1/runs/${runId}/evidence/scenario.json`)).text());
  const { agent: _agent, ...content } = plan.scenario;
  return sha3Hex(canonicalize(content)!);
}

describe("scenario identity: an inline scenario may not take a catalog scenario's id (issue 32 item 7)", () => {
  it('refuses an inline scenario under a catalog id with other content: 409 naming /scenario/id, nothing queued', async () => {
    const t = await testApp();
    const key = await operatorKey(t);
    const refused = await t.json('POST', '/api/evaluate', { key, body: { scenario: impostor() } });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'conflict', scenario_id: CATALOG_ID, errors: [{ path: '/scenario/id' }] });
    expect(refused.body.detail).toMatch(/catalog has a scenario "sec-phishing-triage" with other content/);
    expect((await t.json('GET', `/api/v1/runs?scenario_id=${CATALOG_ID}`)).body.items).toEqual([]);
    // The same document under an id of its own runs.
    expect((await t.json('POST', '/api/evaluate', { key, body: { scenario: { ...impostor(), id: 'my-phishing-drill' } } })).status).toBe(202);
  });

  it("accepts the catalog's own content sent inline, and records the same content hash as a run by scenario_id", async () => {
    const t = await testApp();
    const catalogCopy = (await t.json('GET', `/api/scenarios/${CATALOG_ID}`)).body;
    const inline = await evaluate(t, { scenario: catalogCopy });
    const byId = await evaluate(t, { scenario_id: CATALOG_ID });
    expect(inline.run).toMatchObject({ scenario_id: CATALOG_ID, scenario_origin: 'inline' });
    expect(byId.run).toMatchObject({ scenario_id: CATALOG_ID, scenario_origin: 'catalog' });
    expect(inline.run.scenario_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(inline.run.scenario_hash).toBe(byId.run.scenario_hash);
    // Another agent is the same scenario: the hash leaves the agent out.
    const otherAgent = await evaluate(t, { scenario_id: CATALOG_ID, agent: { adapter: 'scripted', replies: { '*': 'spam' } } });
    expect(otherAgent.run.scenario_hash).toBe(byId.run.scenario_hash);
    const listed = (await t.json('GET', `/api/v1/runs?scenario_id=${CATALOG_ID}`)).body.items;
    expect(listed.map((item: any) => item.scenario_origin).sort()).toEqual(['catalog', 'catalog', 'inline']);
  });

  it('signs the content hash and origin into the certificate; it is the hash of scenario.json, and verify passes', async () => {
    const t = await testApp();
    const { run } = await evaluate(t, { scenario_id: CATALOG_ID });
    const certificate = (await t.json('GET', `/v1/certificates/${run.run_id}`, { key: null })).body;
    expect(certificate.scenario).toEqual({ id: CATALOG_ID, content_hash: run.scenario_hash, origin: 'catalog' });
    expect(certificate.scenario.content_hash).toBe(await hashFromEvidence(t, run.run_id));
    expect((await t.json('GET', `/api/v1/verify/${run.run_id}`, { key: null })).body.status).toBe('valid');
  });

  it('records a file scenario as origin file, under its own content', async () => {
    const t = await testApp();
    writeFileSync(join(t.root, 'drill.json'), JSON.stringify(impostor()));
    const { run } = await evaluate(t, { path: 'drill.json' });
    const byId = await evaluate(t, { scenario_id: CATALOG_ID });
    expect(run).toMatchObject({ scenario_id: CATALOG_ID, scenario_origin: 'file' });
    expect(run.scenario_hash).not.toBe(byId.run.scenario_hash);
    expect((await t.json('GET', `/v1/certificates/${run.run_id}`, { key: null })).body.scenario.origin).toBe('file');
  });

  it('refuses the same at the creation of a suite or a schedule, not at each launch', async () => {
    const t = await testApp();
    const key = await operatorKey(t);
    const suite = await t.json('POST', '/api/v1/suites', { key, body: { scenarios: [{ scenario: impostor() }] } });
    expect(suite.status).toBe(409);
    expect(suite.body.errors[0].path).toBe('/scenarios/0');
    const schedule = await t.json('POST', '/api/v1/schedules', { key, body: { cron: '0 9 * * 1', scenario: impostor() } });
    expect(schedule.status).toBe(409);
    expect(schedule.body.errors[0].path).toBe('/scenario/id');
    expect((await t.json('GET', '/api/v1/schedules', { key })).body.items).toEqual([]);
  });

  it('aeh verify shows the scenario, checks its hash against scenario.json, and --require-origin gates on it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-identity-'));
    const t = await testApp({ env: { AEH_STORAGE: 'fs', AEH_DATA_DIR: join(root, 'data') } });
    writeFileSync(join(root, 'jwks.json'), JSON.stringify((await t.json('GET', '/.well-known/jwks.json', { key: null })).body));
    const catalogRun = (await evaluate(t, { scenario_id: CATALOG_ID })).run;
    const drill = (await evaluate(t, { scenario: { ...impostor(), id: 'my-phishing-drill' } })).run;
    // The sidecars as the evidence route serves them (a packed plan rebuilt), the trace from the store's folder.
    const verify = (runId: string, ...extra: string[]) => {
      const dir = join(root, 'data', 'runs', runId);
      return runCli(['verify', join(dir, 'certificate.json'), '--trace', join(dir, 'trace.jsonl'), '--sidecars', join(root, runId), '--jwks', join(root, 'jwks.json'), ...extra], { cwd: root });
    };
    for (const run of [catalogRun, drill]) {
      const dir = join(root, run.run_id);
      mkdirSync(dir, { recursive: true });
      const certificate = (await t.json('GET', `/v1/certificates/${run.run_id}`, { key: null })).body;
      for (const file of Object.keys(certificate.evidence_ledger)) {
        writeFileSync(join(dir, file), new Uint8Array(await (await t.request('GET', `/api/v1/runs/${run.run_id}/evidence/${file}`)).arrayBuffer()));
      }
    }
    const ok = await verify(catalogRun.run_id, '--require-origin', 'catalog');
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/ok +scenario +"sec-phishing-triage" \(catalog\), content [0-9a-f]{16}…, as scenario\.json holds/);
    const inline = await verify(drill.run_id, '--require-origin', 'catalog');
    expect(inline.code).toBe(1);
    expect(inline.stdout).toMatch(/FAIL scenario .*the scenario is inline, not catalog/);
    expect((await verify(drill.run_id)).code).toBe(0);
    expect((await verify(drill.run_id, '--require-origin', 'nowhere')).code).toBe(3);
  });
});
