/**
 * Hostile (issue 25 item 3): a suite's background launches, and a launch resumed after a restart, went on as
 * the creator after the creator's key was revoked. Each launch now asks who the creator is now; once they may
 * no longer launch, the entries left are refused with the reason, visible in the suite.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { testMetrics } from '../../test/evaluation-fixtures.ts';
import { launchGate, suiteCatalog } from '../../test/suite-fixtures.ts';

const SCENARIOS = 20;

async function waitLaunched(t: TestApp, suiteId: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { body } = await t.json('GET', `/api/v1/suites/${suiteId}`);
    if (body.status !== 'launching' || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function suiteAsKey(t: TestApp): Promise<{ keyId: string; suiteId: string }> {
  const key = (await t.json('POST', '/api/v1/keys', { body: { name: 'suite-runner', permissions: ['evaluations:launch', 'runs:read'] } })).body;
  const accepted = await t.json('POST', '/api/v1/suites', { key: key.secret, body: { scenarios: Array.from({ length: SCENARIOS }, (_, index) => `revoke-s${index}`) } });
  expect(accepted.status).toBe(202);
  return { keyId: key.id, suiteId: accepted.body.suite_id };
}

describe('hostile: a suite stops launching as a revoked creator (issue 25 item 3)', () => {
  it('refuses the entries not launched when the key is revoked mid-launch, and says why', async () => {
    const gate = launchGate(2);
    const t = await testApp({ plugins: [testMetrics, gate.plugin], env: { AEH_CATALOG_DIRS: suiteCatalog(SCENARIOS, 'revoke-s') } });
    const { keyId, suiteId } = await suiteAsKey(t);
    await gate.reached(3); // the first launches answered; the launcher's next ones are held
    expect((await t.json('DELETE', `/api/v1/keys/${keyId}`)).status).toBe(200);
    gate.open();
    const suite = await waitLaunched(t, suiteId);
    const refused = suite.runs.filter((run: any) => run.status === 'refused');
    const launched = suite.runs.filter((run: any) => run.run_id !== null);
    // Launches already past authentication when the key was revoked complete; none starts after.
    expect(launched.length).toBe(gate.seen.length);
    expect(launched.length).toBeLessThan(SCENARIOS);
    expect(refused.length).toBe(SCENARIOS - launched.length);
    for (const run of refused) expect(run.error.detail).toMatch(/not launched: the API key "suite-runner" was revoked/);
    await t.app.close();
  });

  it('refuses the rest of an interrupted launch at the next start when the key was revoked meanwhile', async () => {
    const env = { AEH_STORAGE: 'fs', AEH_DATA_DIR: mkdtempSync(join(tmpdir(), 'aeh-suite-revoke-fs-')), AEH_CATALOG_DIRS: suiteCatalog(SCENARIOS, 'revoke-s') };
    const gate = launchGate(2);
    const first = await testApp({ plugins: [testMetrics, gate.plugin], env });
    const { keyId, suiteId } = await suiteAsKey(first);
    await gate.reached(3);
    // Revoked while the launcher is held, before the stop: an app started on the same data to revoke it would
    // resume the launch at its own start, and on a busy machine did so before the revocation (its launches then
    // went out as the still-valid key, and nothing was left for the restart to refuse).
    expect((await first.json('DELETE', `/api/v1/keys/${keyId}`)).status).toBe(200);
    await first.app.close();
    const second = await testApp({ plugins: [testMetrics], env });
    const suite = await waitLaunched(second, suiteId);
    expect(suite.status).not.toBe('launching');
    const refused = suite.runs.filter((run: any) => run.status === 'refused');
    expect(refused.length).toBeGreaterThan(0);
    for (const run of refused) expect(run.error.detail).toMatch(/the API key "suite-runner" was revoked/);
    // Only the runs queued before the stop exist; the restart queued none as the revoked key.
    expect((await second.json('GET', '/api/v1/runs?limit=100')).body.items.length).toBe(gate.seen.length);
    await second.app.close();
  });
});
