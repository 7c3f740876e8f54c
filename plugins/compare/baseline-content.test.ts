/**
 * Issue 32 item 7, baselines: a run of another document under a scenario's id was accepted as that scenario's
 * pinned baseline, and `latest` picked it. Baselines and `latest` now match on the scenario's content hash as
 * well as its id, and `PUT /api/v1/baselines/:id` refuses, for a catalog id, a run of other content.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { evaluate, scriptedScenario } from '../../test/evaluation-fixtures.ts';

const CATALOG_ID = 'sec-phishing-triage';
const agent = { adapter: 'scripted', replies: { '*': 'phishing' } };
const trivial = (id: string, input = 'Say phishing.') => ({
  ...scriptedScenario(id, { agent }), tasks: [{ id: 'classify', input, expected: { equals: 'phishing' }, metrics: [{ id: 'task_success' }] }],
});

const pin = (t: TestApp, scenarioId: string, runId: string) => t.json('PUT', `/api/v1/baselines/${scenarioId}`, { body: { run_id: runId } });

describe('baselines: a scenario is its id and its content (issue 32 item 7)', () => {
  it("refuses to pin, as a catalog scenario's baseline, a run of another document under its id", async () => {
    const t = await testApp();
    writeFileSync(join(t.root, 'impostor.json'), JSON.stringify(trivial(CATALOG_ID)));
    const impostor = (await evaluate(t, { path: 'impostor.json' })).run;
    expect(impostor.compliance.status).toBe('pass');
    const refused = await pin(t, CATALOG_ID, impostor.run_id);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.detail).toMatch(/other content .*than the catalog's scenario/);
    expect(refused.body).toMatchObject({ scenario_hash: impostor.scenario_hash, catalog_scenario_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await t.json('GET', `/api/v1/baselines/${CATALOG_ID}`)).body.items).toEqual([]);
    const real = (await evaluate(t, { scenario_id: CATALOG_ID })).run;
    const pinned = await pin(t, CATALOG_ID, real.run_id);
    expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
    expect(pinned.body.scenario_hash).toBe(real.scenario_hash);
  });

  it('serves a pinned baseline and latest only to runs of the same content', async () => {
    const t = await testApp();
    const first = (await evaluate(t, { scenario: trivial('drill') })).run;
    expect((await pin(t, 'drill', first.run_id)).status).toBe(200);
    // Another document under the same id (not a catalog id: accepted, but another scenario).
    const changed = (await evaluate(t, { scenario: trivial('drill', 'Say phishing, please.') })).run;
    expect(changed.scenario_hash).not.toBe(first.scenario_hash);
    const againstPinned = await t.json('GET', `/api/v1/compare?base=baseline&head=${changed.run_id}`);
    expect(againstPinned.status).toBe(404);
    expect(againstPinned.body).toMatchObject({ code: 'not_found', baseline_missing: true });
    expect(againstPinned.body.detail).toMatch(/ran other content/);
    const againstLatest = await t.json('GET', `/api/v1/compare?base=latest&head=${changed.run_id}`);
    expect(againstLatest.status).toBe(404);
    expect(againstLatest.body.baseline_missing).toBe(true);
    // Runs of the first content still find their baseline and their latest.
    const again = (await evaluate(t, { scenario: trivial('drill') })).run;
    expect((await t.json('GET', `/api/v1/compare?base=baseline&head=${again.run_id}`)).body.base.run_id).toBe(first.run_id);
    const latest = (await t.json('GET', `/api/v1/compare?base=latest&head=${again.run_id}`)).body;
    expect(latest.base).toMatchObject({ run_id: first.run_id, scenario_hash: first.scenario_hash });
    expect(latest.same_scenario).toBe(true);
    // Compared by run id, the two documents are not the same scenario.
    expect((await t.json('GET', `/api/v1/compare?base=${first.run_id}&head=${changed.run_id}`)).body.same_scenario).toBe(false);
  });
});
