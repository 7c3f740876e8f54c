import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../../test/evaluation-fixtures.ts';
import { sha3Hex } from '../../../core/domain/hash.ts';
import { IN_FLIGHT_MS } from './idempotency.ts';

const body = (id: string) => ({ scenario: scriptedScenario(id) });
const submit = (t: TestApp, key: string, sent: unknown) => t.json('POST', '/api/evaluate', { body: sent, headers: { 'Idempotency-Key': key } });

async function runCount(t: TestApp): Promise<number> {
  return (await t.json('GET', '/api/v1/runs?limit=100')).body.items.length;
}

describe('evaluation: Idempotency-Key', () => {
  let t: TestApp;
  let clock = Date.now();
  beforeAll(async () => {
    t = await testApp({ plugins: [testMetrics], capabilities: { now: () => clock } });
  });
  afterAll(() => t.app.close());

  it('queues one evaluation per key: a repeat answers the same ids, marked Idempotent-Replayed', async () => {
    const before = await runCount(t);
    const first = await submit(t, 'nightly-1', body('idem-a'));
    const again = await submit(t, '"nightly-1"', body('idem-a'));
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await waitForTask(t, first.body.task_id)).status).toBe('succeeded');
    expect(await runCount(t)).toBe(before + 1);
    // Finished since: still the same answer, not a second run.
    expect((await submit(t, 'nightly-1', body('idem-a'))).body.run_id).toBe(first.body.run_id);
    expect(await runCount(t)).toBe(before + 1);
  });

  it('sent at once many times, still queues one', async () => {
    const before = await runCount(t);
    const answers = await Promise.all(Array.from({ length: 6 }, () => submit(t, 'burst', body('idem-burst'))));
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(accepted.length).toBeGreaterThan(0);
    expect(new Set(accepted.map((answer) => answer.body.run_id)).size).toBe(1);
    // The others found it in flight: 409 with Retry-After, as the draft says.
    for (const answer of answers.filter((candidate) => candidate.status !== 202)) {
      expect(answer).toMatchObject({ status: 409, body: { code: 'conflict' } });
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    await waitForTask(t, accepted[0]!.body.task_id);
    expect(await runCount(t)).toBe(before + 1);
    expect((await submit(t, 'burst', body('idem-burst'))).body.run_id).toBe(accepted[0]!.body.run_id);
  });

  it('refuses the same key with another body (422) and a malformed key (400); another key is another run', async () => {
    await submit(t, 'other-body', body('idem-b'));
    const reused = await submit(t, 'other-body', body('idem-c'));
    expect(reused).toMatchObject({ status: 422, body: { code: 'idempotency_key_reused' } });
    for (const bad of ['', 'has space', 'x'.repeat(201), '"unterminated']) {
      expect((await submit(t, bad, body('idem-b'))).status, bad).toBe(400);
    }
    const fresh = await submit(t, 'other-body-2', body('idem-b'));
    expect(fresh.status).toBe(202);
  });

  it('completes an attempt that stopped before storing its task, under its ids, once it is no longer in flight', async () => {
    // What a submission that crashed right after reserving leaves: the reservation and nothing else.
    const sent = body('idem-crash');
    const ids = { run_id: 'run_crashed0001', task_id: 'task_crashed0001' };
    const where = `idempotency/${sha3Hex('static-key\ncrash-1').slice(0, 64)}.json`;
    const store = (await t.app.ready).store;
    await store.setJson(where, { ...ids, body_digest: sha3Hex(canonicalize(sent) ?? ''), reserved_at: clock });
    expect((await submit(t, 'crash-1', sent)).status).toBe(409);
    clock += IN_FLIGHT_MS + 1;
    const taken = await submit(t, 'crash-1', sent);
    expect(taken.status).toBe(202);
    expect(taken.body).toMatchObject(ids);
    expect((await waitForTask(t, ids.task_id)).status).toBe('succeeded');
    expect((await submit(t, 'crash-1', sent)).headers.get('idempotent-replayed')).toBe('true');
    expect((await t.json('GET', '/api/info')).body.telemetry['evaluations.idempotent_takeovers']).toBe(1);
  });
});
