/**
 * Hostile (issue 33 item 2): shared blobs were charged to nobody. With AEH_MAX_STORED_BYTES_PER_PRINCIPAL=300000
 * six distinct 0.85 MB scenarios were accepted: 9,988 KiB landed in the blob store while the principal's counter
 * read 41,936 bytes. A submission now counts what it may store (its scenario and initial world) at once, a blob is
 * charged to the principal whose run first wrote it, and gc credits it back when it deletes the blob. Blobs are
 * shared among one principal's runs only, so neither the time a submission takes nor what it is charged says
 * whether another principal stored the same content.
 */
import { describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../../test/evaluation-fixtures.ts';
import { ledgerOf } from './owner-ledger.ts';
import claimsBearer from '../../../test/fixtures/claims-bearer-auth.ts';

const token = (sub: string) => `claims.${Buffer.from(JSON.stringify({ sub, roles: ['operator'] })).toString('base64url')}`;
const as = (sub: string) => ({ key: null, headers: { authorization: `Bearer ${token(sub)}` } });

/** A scenario whose kv world holds `keys` entries (about 42 bytes each), distinct per `id`. */
function worldScenario(id: string, keys: number) {
  const entries = Object.fromEntries(Array.from({ length: keys }, (_, n) => [`${id}-setting-${String(n).padStart(6, '0')}`, `value-${n}`]));
  return scriptedScenario(id, { enabled_shims: ['kv'], initial_state: { kv: { entries } }, tasks: [{ id: 't1', input: 'balance?', metrics: [{ id: 'probe_contains' }] }] });
}

async function blobBytes(t: TestApp): Promise<number> {
  const store = (await t.app.ready).store;
  const sizes = await Promise.all((await store.keys('blobs')).map((key) => store.size(key)));
  return sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
}

async function storedBytes(t: TestApp, sub: string): Promise<number> {
  return ledgerOf((await t.app.ready).store).storedBytes(`test|${sub}`);
}

async function finished(t: TestApp, body: Record<string, unknown>, who: ReturnType<typeof as>) {
  const accepted = await t.json('POST', '/api/evaluate', { body, ...who });
  if (accepted.status === 202) expect((await waitForTask(t, accepted.body.task_id)).status).toBe('succeeded');
  return accepted;
}

describe('hostile: shared blobs are charged to the principal whose run wrote them (issue 33 item 2)', () => {
  it('refuses a 0.85 MB inline initial_state against a 300,000-byte quota, storing nothing', async () => {
    const t = await testApp({ plugins: [testMetrics, claimsBearer], env: { AEH_MAX_STORED_BYTES_PER_PRINCIPAL: '300000' } });
    const big = worldScenario('big', 25_000);
    expect(JSON.stringify(big).length).toBeGreaterThan(850_000);
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: big }, ...as('mallory') });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', limit: 300_000, stored_bytes: 0 });
    expect(refused.body.bytes).toBeGreaterThan(1_700_000);
    expect(refused.body.detail).toMatch(/initial_state.*AEH_MAX_STORED_BYTES_PER_PRINCIPAL|AEH_MAX_STORED_BYTES_PER_PRINCIPAL.*initial_state/);
    expect(await blobBytes(t)).toBe(0);
    expect(await storedBytes(t, 'mallory')).toBe(0);
  });

  it('counts every blob a principal wrote: its counter is never below what its runs put in the blob store', async () => {
    const t = await testApp({ plugins: [testMetrics, claimsBearer], env: { AEH_MAX_STORED_BYTES_PER_PRINCIPAL: '300000' } });
    const answers = [];
    for (let n = 0; n < 6; n++) answers.push(await finished(t, { scenario: worldScenario(`s${n}`, 1_500) }, as('mallory')));
    const accepted = answers.filter((answer) => answer.status === 202).length;
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(6);
    expect(answers.find((answer) => answer.status !== 202)?.body).toMatchObject({ code: 'quota_exceeded', limit: 300_000 });
    const blobs = await blobBytes(t);
    expect(blobs).toBeGreaterThan(100_000);
    expect(await storedBytes(t, 'mallory')).toBeGreaterThanOrEqual(blobs);
    expect(await storedBytes(t, 'mallory')).toBeLessThanOrEqual(300_000 + 130_000); // one run past the line, at most
  });

  it("shares blobs among one principal's runs only: another's run of the same content writes and pays its own, so nothing says what others stored", async () => {
    const t = await testApp({ plugins: [testMetrics, claimsBearer] });
    const scenario = worldScenario('shared', 1_500);
    await finished(t, { scenario }, as('alice'));
    const afterAlice = await storedBytes(t, 'alice');
    const aliceBlobs = await blobBytes(t);
    expect(afterAlice).toBeGreaterThan(aliceBlobs);
    // Bob's submission does the work alice's did (no blob found), and is charged as she was.
    await finished(t, { scenario }, as('bob'));
    expect(await blobBytes(t)).toBeGreaterThan(2 * aliceBlobs - 1_000);
    expect(Math.abs((await storedBytes(t, 'bob')) - afterAlice)).toBeLessThan(2_000);
    // Alice's second run shares her blobs.
    const blobs = await blobBytes(t);
    await finished(t, { scenario }, as('alice'));
    expect(await blobBytes(t)).toBe(blobs);
    const store = (await t.app.ready).store;
    for (const key of (await store.keys('runs')).filter((key) => key.endsWith('/run.json'))) {
      await store.setJson(key, { ...(await store.getJson<any>(key)), finished_at: '2020-01-01T00:00:00.000Z' });
    }
    const report = (await t.json('POST', '/api/v1/gc', { body: { max_age_days: 1 } })).body;
    expect(report.blobs.deleted).toBe(4);
    expect(await blobBytes(t)).toBe(0);
    expect(await store.keys('blob-charges')).toEqual([]);
    // Each principal's counter is back to what its runs still keep: their certificates (a few KB), no blob.
    expect(await storedBytes(t, 'alice')).toBeLessThan(8_000);
    expect(await storedBytes(t, 'bob')).toBeLessThan(5_000);
  });
});
