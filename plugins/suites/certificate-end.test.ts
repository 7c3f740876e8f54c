/**
 * Issue 36 ("a run always ends with a verdict"): a suite's certificate is issued, or `unavailable` with the
 * reason; never `pending` for ever. A client following a suite (`aeh bench`, `aeh suite run`) waits while it is
 * `pending`, so a suite that could never leave it hung the client: a run that ended without a certificate (its
 * issuing failed, it was cancelled), or a suite certificate whose issuing failed once and left its claim behind
 * in a store without TTLs (memory, fs).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { scriptedScenario, testMetrics } from '../../test/evaluation-fixtures.ts';
import { keys, type RunRecord } from '../../core/domain/runs.ts';
import type { Certificate } from '../../core/domain/certificate.ts';
import { certificateBlocker } from './certificate.ts';
import { suiteKeys, type SuiteRecord } from './store.ts';

/** A catalog folder of two scripted scenarios tagged `suite`. */
function suiteCatalog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-suite-end-'));
  for (const index of [0, 1]) writeFileSync(join(dir, `s${index}.json`), JSON.stringify(scriptedScenario(`suite-end-s${index}`, { tags: ['suite'] })));
  return dir;
}

const GOOD = { adapter: 'scripted', replies: { t1: 'Your balance is 42 EUR.', t2: "I can't help with that." } };

/** Polls the suite until `until` holds (or 30 s passed: the test then fails on what it last saw). */
async function waitForSuite(t: TestApp, suiteId: string, until: (body: any) => boolean): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { body } = await t.json('GET', `/api/v1/suites/${suiteId}`);
    if (until(body) || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('suites: the certificate ends issued or unavailable, never pending for ever (issue 36)', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.app.close();
    t = undefined;
  });

  it('a run whose certificate could not be issued makes the finished suite unavailable, saying why', async () => {
    t = await testApp({ plugins: [testMetrics], env: { AEH_CATALOG_DIRS: suiteCatalog() } });
    const { store } = await t.app.ready;
    const setJson = store.setJson.bind(store);
    let failedRun: string | undefined;
    // The first run certificate written fails, as a signer or a disk may under load; certification logs it.
    store.setJson = async (key, value) => {
      if (!failedRun && /^runs\/[^/]+\/certificate\.json$/.test(key)) {
        failedRun = key.split('/')[1];
        throw new Error('disk full');
      }
      return setJson(key, value);
    };
    const accepted = await t.json('POST', '/api/v1/suites', { body: { query: 'tag=suite', agents: [GOOD] } });
    expect(accepted.status).toBe(202);
    const suite = await waitForSuite(t, accepted.body.suite_id, (body) => body.status === 'finished' && body.certificate.status !== 'pending');
    expect(suite.status).toBe('finished');
    expect(failedRun).toBeDefined();
    expect(await store.has(keys.certificate(failedRun!))).toBe(false);
    expect(suite.certificate).toMatchObject({ status: 'unavailable', url: null });
    expect(suite.certificate.detail).toMatch(/^1 of 2 run\(s\) ended without a certificate \(0 cancelled; .*could not be issued\), so the suite cannot be certified$/);
  });

  it('a suite certificate whose issuing failed is not claimed for ever: the read says why, and the next one issues it', async () => {
    t = await testApp({ plugins: [testMetrics], env: { AEH_CATALOG_DIRS: suiteCatalog() } });
    const { store } = await t.app.ready;
    const setBytes = store.setBytes.bind(store);
    let failing = true;
    let failures = 0;
    store.setBytes = async (key, bytes) => {
      if (failing && /^suites\/[^/]+\/manifest\.json$/.test(key)) {
        failures++;
        throw new Error('disk full');
      }
      return setBytes(key, bytes);
    };
    const accepted = await t.json('POST', '/api/v1/suites', { body: { query: 'tag=suite', agents: [GOOD] } });
    const suiteId = accepted.body.suite_id;
    const failed = await waitForSuite(t, suiteId, (body) => body.status === 'finished' && body.certificate.status !== 'pending');
    expect(failures).toBeGreaterThan(0);
    expect(failed.certificate).toMatchObject({ status: 'unavailable', url: null });
    expect(failed.certificate.detail).toMatch(/^the certificate could not be issued \(disk full\); the next read of the suite tries again$/);
    expect(await store.has(suiteKeys.claim(suiteId))).toBe(false);
    failing = false;
    const issued = (await t.json('GET', `/api/v1/suites/${suiteId}`)).body;
    expect(issued.certificate).toMatchObject({ status: 'issued', url: `/api/v1/suites/${suiteId}/certificate` });
    const verified = await t.json('GET', `/api/v1/verify/suite/${suiteId}`, { key: null });
    expect(verified.body.status).toBe('valid');
  });

  it('a claim left by a process that stopped while issuing (fs, restart) is taken over: the suite is certified', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-suite-claim-'));
    const env = { AEH_CATALOG_DIRS: suiteCatalog(), AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: join(root, '.aeh') };
    t = await testApp({ plugins: [testMetrics], env });
    const accepted = await t.json('POST', '/api/v1/suites', { body: { query: 'tag=suite', agents: [GOOD] } });
    const suiteId = accepted.body.suite_id;
    expect((await waitForSuite(t, suiteId, (body) => body.certificate.status === 'issued')).certificate.status).toBe('issued');
    // What a crash in the middle of issuing leaves: the claim (as every version wrote it), no certificate yet.
    const { store } = await t.app.ready;
    await store.remove(suiteKeys.certificate(suiteId));
    await store.remove(suiteKeys.manifest(suiteId));
    await store.setBytes(suiteKeys.claim(suiteId), new TextEncoder().encode('issuing'));
    await t.app.close();
    t = await testApp({ plugins: [testMetrics], env });
    // Before: `pending, being issued` at every read, for ever (fs keeps a claim: no TTL).
    const suite = (await t.json('GET', `/api/v1/suites/${suiteId}`)).body;
    expect(suite.certificate).toMatchObject({ status: 'issued', url: `/api/v1/suites/${suiteId}/certificate` });
    expect((await t.json('GET', `/api/v1/verify/suite/${suiteId}`, { key: null })).body.status).toBe('valid');
  });

  it('a cancelled run makes the suite unavailable; a run not ended yet keeps it pending', () => {
    const record = { suite_id: 'suite_x', launched: true, entries: [{ run_id: 'run_a' }, { run_id: 'run_b' }] } as unknown as SuiteRecord;
    const certified = new Map([['run_a', {} as Certificate]]);
    const runs = (status: string) => new Map([['run_a', { status: 'succeeded' }], ['run_b', { status }]]) as unknown as Map<string, RunRecord>;
    expect(certificateBlocker(record, certified, runs('cancelled'))).toEqual({ status: 'unavailable', detail: '1 of 2 run(s) ended without a certificate (1 cancelled; the others ended before any result or their certificate could not be issued), so the suite cannot be certified' });
    expect(certificateBlocker(record, certified, runs('failed'))?.status).toBe('unavailable');
    for (const status of ['queued', 'running']) expect(certificateBlocker(record, certified, runs(status))).toEqual({ status: 'pending', detail: '1 of 2 run(s) have no certificate yet' });
    // A run whose record is not there yet (being stored) is not taken for ended.
    expect(certificateBlocker(record, certified, new Map())?.status).toBe('pending');
    const both = new Map([...certified, ['run_b', {} as Certificate]]);
    expect(certificateBlocker(record, both, runs('succeeded'))).toBeNull();
    // Certified, but its final record not stored yet (it reads as queued): not signed over a verdict it lacks.
    expect(certificateBlocker(record, both, runs('queued'))).toEqual({ status: 'pending', detail: '1 of 2 run(s) have not ended yet' });
  });
});
