/**
 * Issue 27 item 5, through the HTTP API: a run stores its scenario and its initial world once (content-addressed
 * blobs shared by runs and units) and `world.json` as diffs, yet every reader gets the bytes that were judged;
 * `POST /api/v1/gc` deletes old runs' evidence under the retention rules (tombstone, certificate kept) and the
 * blobs no run refers to, never one a run in flight uses.
 */
import { describe, it, expect } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testApp, type TestApp } from './helpers.ts';
import { evaluate, waitForTask } from './evaluation-fixtures.ts';
import { sha3Hex } from '../core/domain/hash.ts';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalAgent } from './evaluation-local-agent.ts';

// Over 1 KB, so that the initial world is stored as a shared blob (smaller parts are cheaper copied).
const OTHERS = Object.fromEntries(Array.from({ length: 80 }, (_, index) => [`customer_${index}`, 1000 + index]));
const PAYMENTS = { currency: 'EUR', balances: { alice: 100, ...OTHERS }, charges: [{ id: 'ch_1', customer: 'alice', amount: 40 }] };
const LONG = 'Alice was charged 40 EUR twice by mistake for ch_1. '.repeat(30);

/** A scenario over 1 KB (so its plan is stored packed) whose agent changes the world once. */
function scenario(agent: Record<string, unknown> = { adapter: 'scripted', replies: { refund: { output: 'Refunded.', tool_calls: [{ name: 'payments.refund', arguments: { charge_id: 'ch_1', idempotency_key: 'r-1' } }] } } }) {
  return {
    id: 'storage-refund', title: 'Refund once', industry: 'Fintech', use_case: 'Support', tags: ['shims'], policy_ref: 'NIST AI 100-1',
    agent, topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
    enabled_shims: ['payments'], initial_state: { payments: PAYMENTS },
    tasks: [{ id: 'refund', input: `${LONG} Refund ch_1.`, expected_outcome: [{ target: 'shim:payments', property: 'balances.alice', expected: 140 }], metrics: [{ id: 'state_match' }] }],
  };
}

async function storeOf(t: TestApp) {
  return (await t.app.ready).store;
}

const bytesOf = async (t: TestApp, runId: string, file: string) => new Uint8Array(await (await t.request('GET', `/api/v1/runs/${runId}/evidence/${file}`)).arrayBuffer());

describe('storage: scenario and world stored once, rebuilt exactly', () => {
  it('shares one scenario blob and one initial-world blob across runs; evidence, ledger and verify agree', async () => {
    const t = await testApp();
    const first = (await evaluate(t, { scenario: scenario() })).run;
    const second = (await evaluate(t, { scenario: scenario() })).run;
    const store = await storeOf(t);
    const blobs = await store.keys('blobs');
    expect(blobs).toHaveLength(2);
    for (const run of [first, second]) {
      const files = (await store.keys(`runs/${run.run_id}`)).map((key) => key.split('/').pop());
      expect(files).toEqual(expect.arrayContaining(['scenario.json.packed', 'world.json.packed']));
      expect(files).not.toContain('world.json');
      expect(files).not.toContain('scenario.json');
      const certificate = (await t.json('GET', `/v1/certificates/${run.run_id}`, { key: null })).body;
      for (const file of ['scenario.json', 'world.json']) expect(sha3Hex(await bytesOf(t, run.run_id, file))).toBe(certificate.evidence_ledger[file]);
      expect((await t.json('GET', `/api/v1/verify/${run.run_id}`, { key: null })).body.status).toBe('valid');
    }
    const world = JSON.parse(new TextDecoder().decode(await bytesOf(t, second.run_id, 'world.json')));
    expect(world.initial.payments.balances.alice).toBe(100);
    // Each unit is the RFC 6902 diff from the initial world.
    expect(world.units).toEqual([{ task_id: 'refund', diff: { payments: expect.arrayContaining([{ op: 'replace', path: '/balances/alice', value: 140 }]) } }]);
    const plan = JSON.parse(new TextDecoder().decode(await bytesOf(t, second.run_id, 'scenario.json')));
    expect(plan).toMatchObject({ run_id: second.run_id, scenario: { id: 'storage-refund', tasks: [{ input: `${LONG} Refund ch_1.` }] } });
    // The report reads the plan through the packed record too.
    expect((await t.request('GET', `/api/v1/runs/${second.run_id}/report`)).status).toBe(200);
  });

  it('a new instance resumes a stopped run from its packed plan, checked against the handoff token', async () => {
    const agent = await startLocalAgent({ delayMs: 100 });
    try {
      const dataDir = mkdtempSync(join(tmpdir(), 'aeh-packed-'));
      const env = { AEH_STORAGE: 'fs', AEH_DATA_DIR: dataDir, AEH_ALLOW_HOSTS: '127.0.0.1' };
      const tasks = Array.from({ length: 4 }, (_, n) => ({ id: `t${n}`, input: `${LONG} question ${n}`, metrics: [{ id: 'latency_budget', params: { max_ms: 60000 } }] }));
      const long = { ...scenario(), enabled_shims: undefined, initial_state: undefined, tasks, agent: { adapter: 'http', url: `${agent.url}/agent` } };
      const first = await testApp({ env });
      const accepted = (await first.json('POST', '/api/evaluate', { body: { scenario: long } })).body;
      for (let i = 0; i < 6_000 && (await first.json('GET', accepted.status_url)).body.progress.done < 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      await first.app.close();
      expect(readdirSync(join(dataDir, 'runs', accepted.run_id))).toContain('scenario.json.packed');
      const second = await testApp({ env });
      expect(await waitForTask(second, accepted.task_id)).toMatchObject({ status: 'succeeded', progress: { done: 4, total: 4 } });
      expect((await second.json('GET', `/api/v1/verify/${accepted.run_id}`, { key: null })).body.status).toBe('valid');
    } finally {
      await agent.close();
    }
  });

  it('a changed blob fails verify of every run that uses it, naming the file', async () => {
    const t = await testApp();
    const { run } = await evaluate(t, { scenario: scenario() });
    const store = await storeOf(t);
    for (const key of await store.keys('blobs')) {
      const bytes = (await store.getBytes(key))!;
      await store.setBytes(key, new TextEncoder().encode(new TextDecoder().decode(bytes).replace('100', '900').replace('Refund ch_1', 'Refund ch_2')));
    }
    const verified = (await t.json('GET', `/api/v1/verify/${run.run_id}`, { key: null })).body;
    expect(verified.status).toBe('invalid');
    expect(JSON.stringify(verified.checks)).toMatch(/scenario\.json/);
    expect(JSON.stringify(verified.checks)).toMatch(/world\.json/);
  });
});

describe('retention: POST /api/v1/gc', () => {
  it('keeps the newest run per scenario and agent; deleted runs keep a verifiable certificate and say they were deleted', async () => {
    const t = await testApp();
    const runs = [];
    for (let n = 0; n < 3; n++) runs.push((await evaluate(t, { scenario: scenario() })).run);
    const dry = await t.json('POST', '/api/v1/gc', { body: { keep_runs: 1, dry_run: true } });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dry_run: true, rules: { keep_runs: 1 }, runs: { examined: 3, deleted: 2 }, blobs: { deleted: 0 } });
    expect((await t.json('GET', `/api/v1/runs/${runs[0].run_id}`)).status).toBe(200);

    const done = await t.json('POST', '/api/v1/gc', { body: { keep_runs: 1 } });
    expect(done.body.runs.deleted_ids.sort()).toEqual([runs[0].run_id, runs[1].run_id].sort());
    expect(done.body.bytes_freed).toBeGreaterThan(0);
    const gone = await t.json('GET', `/api/v1/verify/${runs[0].run_id}`, { key: null });
    expect(gone.status).toBe(410);
    expect(gone.headers.get('content-type')).toContain('application/problem+json');
    expect(gone.body).toMatchObject({ code: 'run_deleted', run_id: runs[0].run_id, reason: 'retention', rule: { keep_runs: 1 } });
    expect(gone.body.detail).toContain('deleted by retention');
    expect((await t.json('GET', `/api/v1/runs/${runs[0].run_id}`)).status).toBe(410);
    expect((await t.json('GET', `/api/v1/runs/${runs[0].run_id}/evidence/world.json`)).status).toBe(410);
    expect((await t.json('GET', `/v1/certificates/${runs[0].run_id}`, { key: null })).status).toBe(200);
    // The kept run still uses the shared blobs.
    expect((await t.json('GET', `/api/v1/verify/${runs[2].run_id}`, { key: null })).body.status).toBe('valid');
    expect(await (await storeOf(t)).keys('blobs')).toHaveLength(2);
    const listed = (await t.json('GET', '/api/v1/runs')).body.items.map((item: any) => item.run_id);
    expect(listed).toEqual([runs[2].run_id]);
  });

  it('a collection cut short by a storage fault leaves the other runs intact; the next one finishes the marked run', async () => {
    const t = await testApp();
    const runs = [];
    for (let n = 0; n < 2; n++) runs.push((await evaluate(t, { scenario: scenario() })).run);
    const store = await storeOf(t);
    // Fault injection on this app's store instance: the first removal of a trace fails, as a full disk would.
    const remove = store.remove.bind(store);
    let failed = false;
    (store as { remove: typeof store.remove }).remove = async (key) => {
      if (!failed && key.endsWith('/trace.jsonl')) {
        failed = true;
        throw new Error('EIO: simulated fault');
      }
      return remove(key);
    };
    expect((await t.json('POST', '/api/v1/gc', { body: { keep_runs: 1 } })).status).toBe(500);
    expect((await t.json('GET', `/api/v1/verify/${runs[0].run_id}`, { key: null })).status).toBe(410);
    expect((await t.json('GET', `/api/v1/verify/${runs[1].run_id}`, { key: null })).body.status).toBe('valid');
    const again = await t.json('POST', '/api/v1/gc', { body: { keep_runs: 1 } });
    expect(again.body.runs.deleted_ids).toEqual([runs[0].run_id]);
    expect((await store.keys(`runs/${runs[0].run_id}`)).map((key) => key.split('/').pop()).sort()).toEqual(['certificate.json', 'deleted.json']);
    expect((await t.json('GET', `/api/v1/verify/${runs[1].run_id}`, { key: null })).body.status).toBe('valid');
  });

  it('deletes blobs once no run refers to them', async () => {
    const t = await testApp();
    const { run } = await evaluate(t, { scenario: scenario() });
    const store = await storeOf(t);
    const record = (await store.getJson<any>(`runs/${run.run_id}/run.json`))!;
    await store.setJson(`runs/${run.run_id}/run.json`, { ...record, finished_at: '2020-01-01T00:00:00.000Z' });
    const done = await t.json('POST', '/api/v1/gc', { body: { max_age_days: 30 } });
    expect(done.body).toMatchObject({ runs: { deleted: 1, deleted_ids: [run.run_id] }, blobs: { examined: 2, deleted: 2 } });
    expect(await store.keys('blobs')).toEqual([]);
    expect(await store.keys('blob-refs')).toEqual([]);
    expect((await store.keys(`runs/${run.run_id}`)).map((key) => key.split('/').pop()).sort()).toEqual(['certificate.json', 'deleted.json']);
    // A new run of the same scenario stores the blobs again and verifies.
    const again = (await evaluate(t, { scenario: scenario() })).run;
    expect((await t.json('GET', `/api/v1/verify/${again.run_id}`, { key: null })).body.status).toBe('valid');
  });

  it('never touches a run in flight nor the blobs it uses', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    // The first run's call is answered at once; the second run's waits until the collection is over.
    const server = createServer(async (request, response) => {
      if (calls++ > 0) await released;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ output: 'Nothing to do.' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
      const t = await testApp({ env: { AEH_ALLOW_PRIVATE_HOSTS: '127.0.0.1', AEH_ALLOW_HOSTS: '127.0.0.1' } });
      const old = (await evaluate(t, { scenario: scenario({ adapter: 'http', url }) })).run;
      const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: scenario({ adapter: 'http', url }) } });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
      const store = await storeOf(t);
      // The other run of the same scenario deleted, the shared blobs are referenced by the run in flight alone.
      const record = (await store.getJson<any>(`runs/${old.run_id}/run.json`))!;
      await store.setJson(`runs/${old.run_id}/run.json`, { ...record, finished_at: '2020-01-01T00:00:00.000Z' });
      const done = await t.json('POST', '/api/v1/gc', { body: { max_age_days: 1 } });
      expect(done.body.runs.deleted_ids).toEqual([old.run_id]);
      // The initial world, used by nothing in flight yet (a run writes it when it ends), goes; the scenario stays.
      expect(done.body.blobs.deleted).toBe(1);
      const plan = (await store.getJson<any>(`runs/${accepted.body.run_id}/scenario.json.packed`))!;
      expect(await store.has(`blobs/${plan.parts[1].blob}.json`)).toBe(true);
      release();
      const task = await waitForTask(t, accepted.body.task_id);
      expect(task.status).toBe('succeeded');
      expect((await t.json('GET', `/api/v1/verify/${accepted.body.run_id}`, { key: null })).body.status).toBe('valid');
    } finally {
      release();
      server.close();
    }
  });

  it('a new run of the same scenario submitted while gc deletes its only other run still verifies', async () => {
    const t = await testApp();
    const store = await storeOf(t);
    for (let round = 0; round < 3; round++) {
      const { run: old } = await evaluate(t, { scenario: scenario() });
      const record = (await store.getJson<any>(`runs/${old.run_id}/run.json`))!;
      await store.setJson(`runs/${old.run_id}/run.json`, { ...record, finished_at: '2020-01-01T00:00:00.000Z' });
      const [collected, accepted] = await Promise.all([
        t.json('POST', '/api/v1/gc', { body: { max_age_days: 1 } }),
        t.json('POST', '/api/evaluate', { body: { scenario: scenario() } }),
      ]);
      expect(collected.status).toBe(200);
      expect(collected.body.runs.deleted_ids).toContain(old.run_id);
      expect((await waitForTask(t, accepted.body.task_id)).status).toBe('succeeded');
      expect((await t.json('GET', `/api/v1/verify/${accepted.body.run_id}`, { key: null })).body.status).toBe('valid');
      // Make the next round's new run the only one left to race with.
      const fresh = (await store.getJson<any>(`runs/${accepted.body.run_id}/run.json`))!;
      await store.setJson(`runs/${accepted.body.run_id}/run.json`, { ...fresh, finished_at: '2020-01-01T00:00:00.000Z' });
    }
  });

  it('refuses bad rules with problem+json naming the field, and callers without storage:gc', async () => {
    const t = await testApp();
    for (const [body, path] of [[{ keep_runs: 0 }, '/keep_runs'], [{ keep_runs: -1 }, '/keep_runs'], [{ keep_runs: 1.5 }, '/keep_runs'], [{ max_age_days: 'ten' }, '/max_age_days'], [{ max_age_days: 1e9 }, '/max_age_days'], [{ dry_run: 'yes' }, '/dry_run'], [{ keep: 3 }, '']] as const) {
      const answer = await t.json('POST', '/api/v1/gc', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(answer.body.errors), JSON.stringify(body)).toContain(path);
    }
    expect((await t.json('POST', '/api/v1/gc', { body: {}, key: null })).status).toBe(401);
    const operator = await t.json('POST', '/api/v1/keys', { body: { name: 'ops', roles: ['operator'] } });
    expect(operator.status, JSON.stringify(operator.body)).toBe(201);
    expect((await t.json('POST', '/api/v1/gc', { body: {}, key: operator.body.secret })).status).toBe(403);
  });

  it('refuses to start with a retention setting that is not a positive whole number, naming it', async () => {
    await expect(testApp({ env: { AEH_RETENTION_KEEP_RUNS: '0' } })).rejects.toThrow(/retention.*AEH_RETENTION_KEEP_RUNS/s);
    await expect(testApp({ env: { AEH_RETENTION_MAX_AGE_DAYS: 'soon' } })).rejects.toThrow(/AEH_RETENTION_MAX_AGE_DAYS/);
  });

  it('gives a principal refused for its stored bytes its quota back once gc deleted its runs', async () => {
    // Room for a few runs: the first also pays for the scenario and world blobs it writes (issue 33 item 2).
    const t = await testApp({ env: { AEH_MAX_STORED_BYTES_PER_PRINCIPAL: '60000' } });
    const key = (await t.json('POST', '/api/v1/keys', { body: { name: 'filler', roles: ['operator'] } })).body.secret;
    let refused: { status: number; body: any } | undefined;
    for (let n = 0; n < 30 && !refused; n++) {
      const answer = await t.json('POST', '/api/evaluate', { key, body: { scenario: scenario() } });
      if (answer.status !== 202) refused = answer;
      else {
        await waitForTask(t, answer.body.task_id);
        // The run's bytes are counted just after its task's record says it ended.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(refused).toMatchObject({ status: 429, body: { code: 'quota_exceeded' } });
    const done = await t.json('POST', '/api/v1/gc', { body: { keep_runs: 1 } });
    expect(done.body.runs.deleted).toBeGreaterThan(0);
    expect(done.body.bytes_freed).toBeGreaterThan(0);
    const again = await t.json('POST', '/api/evaluate', { key, body: { scenario: scenario() } });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
  });

  it('a suite whose run retention deleted lists it as deleted, not queued, and stays finished', async () => {
    const t = await testApp();
    const accepted = await t.json('POST', '/api/v1/suites', { body: { scenarios: [{ scenario: scenario() }] } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    let suite: any;
    for (let i = 0; i < 400 && suite?.certificate?.status !== 'issued'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      suite = (await t.json('GET', `/api/v1/suites/${accepted.body.suite_id}`)).body;
    }
    expect(suite.certificate.status).toBe('issued');
    await evaluate(t, { scenario: scenario() });
    // keep_runs never counts out a run a suite certificate holds (issue 33 item 1); age deletes any run.
    expect((await t.json('POST', '/api/v1/gc', { body: { keep_runs: 1 } })).body.runs.deleted).toBe(0);
    const store = await storeOf(t);
    const suiteRun = suite.runs[0].run_id;
    const record = (await store.getJson<any>(`runs/${suiteRun}/run.json`))!;
    await store.setJson(`runs/${suiteRun}/run.json`, { ...record, finished_at: '2020-01-01T00:00:00.000Z' });
    expect((await t.json('POST', '/api/v1/gc', { body: { max_age_days: 1 } })).body.runs.deleted).toBe(1);
    const after = (await t.json('GET', `/api/v1/suites/${accepted.body.suite_id}`)).body;
    expect(after).toMatchObject({ status: 'finished', certificate: { status: 'issued' }, runs: [{ status: 'deleted' }] });
    expect(after.agents[0].runs.by_status).toEqual({ deleted: 1 });
    const verified = await t.json('GET', `/api/v1/verify/suite/${accepted.body.suite_id}`, { key: null });
    expect(verified.body.valid, JSON.stringify(verified.body)).toBe(true);
    expect(verified.body.checks.find((check: any) => check.id === 'run_certificates').detail).toMatch(/1 of them deleted by retention, checked as certificates alone/);
  });

  it('applies the configured rules when the request gives none', async () => {
    const t = await testApp({ env: { AEH_RETENTION_KEEP_RUNS: '1' } });
    for (let n = 0; n < 2; n++) await evaluate(t, { scenario: scenario() });
    const done = await t.json('POST', '/api/v1/gc', { body: {} });
    expect(done.body).toMatchObject({ rules: { keep_runs: 1 }, runs: { deleted: 1 } });
  });
});
