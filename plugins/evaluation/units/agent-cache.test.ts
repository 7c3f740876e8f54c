/**
 * The response cache through the HTTP surface (issue 17 item 6): an http agent served by msw counts its calls,
 * so a hit is proven by the agent not being asked again. Hits are marked in the trace, counted apart in the
 * run's usage and stated in the signed certificate; the key follows the agent's configuration, the input and
 * the conversation; failures, world runs and in-process adapters are never cached; no secret is stored.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { validateCertificate } from '../../../core/domain/certificate.ts';
import { evaluate, scriptedScenario, testMetrics } from '../../../test/evaluation-fixtures.ts';
import { referenceSchemaErrors } from '../../../test/reference-certificate.ts';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => server.close());

const SECRET = 'bot-token-value-never-stored';
const ENV = { AEH_ALLOW_HOSTS: 'agent.test', AEH_AGENT_KEY_ENVS: 'BOT_TOKEN@agent.test', BOT_TOKEN: SECRET, AEH_PRICES: JSON.stringify({ 'bot-1': { input: 10, output: 10 } }) };
const AGENT = { adapter: 'http', url: 'http://agent.test/agent', header_envs: { authorization: 'BOT_TOKEN' } };
const SCENARIO = scriptedScenario('cached', {
  tasks: [
    { id: 't1', input: 'What is my balance?', expected: { contains: '42' }, metrics: [{ id: 'probe_contains' }] },
    { id: 't2', input: 'And yesterday?', expected: { contains: '42' }, metrics: [{ id: 'probe_contains' }] },
  ],
});

/** The agent's calls, by task, as it saw them. */
let calls: Array<{ task_id: string; authorization: string | null }> = [];
let failNext = 0;
afterEach(() => {
  calls = [];
  failNext = 0;
});

function serveAgent() {
  server.use(http.post('http://agent.test/agent', async ({ request }) => {
    const body: any = await request.json();
    calls.push({ task_id: body.task_id, authorization: request.headers.get('authorization') });
    if (failNext > 0) {
      failNext--;
      return new HttpResponse('busy', { status: 503 });
    }
    return HttpResponse.json({ output: `It is 42 (${body.task_id}, turn ${body.history.length / 2}).`, model: 'bot-1', usage: { input_tokens: 1000, output_tokens: 100 } });
  }));
}

const outputs = (trace: any[]) => trace.filter((event) => event.type === 'agent_output');
const certificateOf = async (t: TestApp, runId: string) => (await t.json('GET', `/v1/certificates/${runId}`, { key: null })).body;

describe('agent cache', () => {
  it('answers a second run from the cache without calling the agent, marks it, counts it apart and says so in the certificate', async () => {
    serveAgent();
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const first = await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    expect(calls.map((call) => call.task_id)).toEqual(['t1', 't2']);
    expect(outputs(first.trace).every((event) => event.data.cached === undefined)).toBe(true);
    expect(first.run.usage).toMatchObject({ calls: 2, cached_calls: 0, tokens: { input: 2000, output: 200, total: 2200 }, cost: { total: 0.022, saved_by_cache: 0 } });
    expect((await certificateOf(t, first.run.run_id)).cache).toBeUndefined();

    const second = await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    expect(calls).toHaveLength(2);
    const replayed = outputs(second.trace);
    expect(replayed.map((event) => event.data.output)).toEqual(outputs(first.trace).map((event) => event.data.output));
    for (const [index, event] of replayed.entries()) {
      expect(event.data).toMatchObject({ cached: true, cache_key: expect.stringMatching(/^[0-9a-f]{64}$/), usage: { input_tokens: 1000, output_tokens: 100, total_tokens: 1100 }, model: 'bot-1' });
      // The latency of the call that was cached, so latency metrics score the answer as first given.
      expect(event.data.latency_ms).toBe(outputs(first.trace)[index].data.latency_ms);
    }
    expect(second.run.compliance.status).toBe(first.run.compliance.status);
    expect(second.run.usage).toMatchObject({ calls: 0, cached_calls: 2, reported_calls: 0, tokens: { input: 0, output: 0, total: 0 }, cached_tokens: { input: 2000, output: 200, total: 2200 }, latency_ms: { sum: 0, p50: null }, cost: { total: 0, saved_by_cache: 0.022 } });
    const certificate = await certificateOf(t, second.run.run_id);
    expect(certificate.cache).toEqual({ cached_calls: 2, agent_calls: 2 });
    // Our schema and the reference implementation's (which does not close the certificate) both admit the member.
    expect(validateCertificate(certificate)).toEqual([]);
    expect(referenceSchemaErrors(certificate)).toEqual([]);
    const verified = (await t.json('GET', `/api/v1/verify/${second.run.run_id}`, { key: null })).body;
    expect(verified.status).toBe('valid');
  });

  it('shows usage and cached answers on the console\'s run page, its transcript and the HTML report', async () => {
    serveAgent();
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    const { run } = await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    const page = await (await t.request('GET', `/console/fragments/runs/${run.run_id}`)).text();
    expect(page).toContain('Usage: 0 calls + 2 cached (2,200 tokens not spent), cost 0 USD, 0.022 USD saved by the cache');
    expect(page).toContain('2 answers from the response cache');
    const transcript = await (await t.request('GET', `/console/fragments/runs/${run.run_id}/transcript`)).text();
    expect(transcript.match(/class="badge cached"/g)).toHaveLength(2);
    expect(transcript).toContain('1,100 tokens');
    const report = await (await t.request('GET', `/api/v1/runs/${run.run_id}/report`)).text();
    expect(report.match(/cached answer</g)).toHaveLength(2);
    expect(report).toContain('2 of 2 answers from the response cache');
  });

  it('is opt-in: a run without "cache": true calls the agent even when an answer is cached', async () => {
    serveAgent();
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    const plain = await evaluate(t, { scenario: SCENARIO, agent: AGENT });
    expect(calls).toHaveLength(4);
    expect(plain.run.usage.cached_calls).toBe(0);
  });

  it('misses when the agent configuration, the input or the conversation differs', async () => {
    serveAgent();
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    const retimed = await evaluate(t, { scenario: SCENARIO, agent: { ...AGENT, timeout_ms: 20_000 }, cache: true });
    expect(retimed.run.usage.cached_calls).toBe(0);
    expect(calls).toHaveLength(4);
    // t1 asked differently: a miss for t1, and for t2 too, since its conversation now holds another turn.
    const asked = await evaluate(t, { scenario: { ...SCENARIO, tasks: [{ ...SCENARIO.tasks[0], input: 'Balance, please?' }, SCENARIO.tasks[1]] }, agent: AGENT, cache: true });
    expect(asked.run.usage.cached_calls).toBe(0);
    expect(calls).toHaveLength(6);
    // The second configuration asked exactly as before: both answers are hits.
    const again = await evaluate(t, { scenario: SCENARIO, agent: { ...AGENT, timeout_ms: 20_000 }, cache: true });
    expect(again.run.usage.cached_calls).toBe(2);
    expect(calls).toHaveLength(6);
  });

  it('never caches a failure: the next run asks the agent again', async () => {
    serveAgent();
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    failNext = 1;
    const failed = await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    expect(failed.run.status).toBe('failed');
    const retried = await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    expect(retried.run.status).toBe('succeeded');
    expect(retried.run.usage.cached_calls).toBe(0);
    expect(calls.map((call) => call.task_id)).toEqual(['t1', 't1', 't2']);
  });

  it('stores no secret, only digests and the answer, and forgets an answer past its expiry', async () => {
    serveAgent();
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const first = await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    expect(calls[0].authorization).toBe(SECRET);
    const { store } = await t.app.ready;
    const keys = await store.keys('agent-cache');
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key).toMatch(/^agent-cache\/[0-9a-f]{64}\.json$/);
      const text = new TextDecoder().decode((await store.getBytes(key))!);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('BOT_TOKEN');
      expect(text).not.toContain('agent.test');
      expect(Object.keys(JSON.parse(text)).sort()).toEqual(['created_at', 'expires_at', 'latency_ms', 'reply', 'v']);
    }
    expect(JSON.stringify(first.trace)).not.toContain(SECRET);
    for (const key of keys) {
      const stored = (await store.getJson<Record<string, unknown>>(key))!;
      await store.setJson(key, { ...stored, expires_at: new Date(Date.now() - 1000).toISOString() });
    }
    const expired = await evaluate(t, { scenario: SCENARIO, agent: AGENT, cache: true });
    expect(expired.run.usage.cached_calls).toBe(0);
    expect(calls).toHaveLength(4);
  });

  it('refuses "cache": true with 400 naming /cache when the cache is turned off, and a cache that is not a boolean', async () => {
    const off = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_AGENT_CACHE_TTL_SECONDS: '0' } });
    const refused = await off.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: AGENT, cache: true } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'validation_failed', errors: [{ path: '/cache', message: expect.stringContaining('AEH_AGENT_CACHE_TTL_SECONDS') }] });
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const bad = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: AGENT, cache: 'yes' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.errors)).toContain('/cache');
  });

  it('never caches in-process adapters or calls that offer world tools', async () => {
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const scripted = await evaluate(t, { scenario: SCENARIO, cache: true });
    const again = await evaluate(t, { scenario: SCENARIO, cache: true });
    expect(again.run.usage).toMatchObject({ calls: 2, cached_calls: 0 });
    expect(scripted.run.status).toBe('succeeded');
    serveAgent();
    const world = {
      ...SCENARIO, enabled_shims: ['payments'], initial_state: { payments: { currency: 'EUR', balances: { alice: 100 }, charges: [] } },
      tasks: [{ id: 't1', input: 'What is my balance?', metrics: [{ id: 'probe_refusal' }] }],
    };
    await evaluate(t, { scenario: world, agent: AGENT, cache: true });
    const worldAgain = await evaluate(t, { scenario: world, agent: AGENT, cache: true });
    expect(worldAgain.run.usage.cached_calls).toBe(0);
    expect(calls).toHaveLength(2);
    const { store } = await t.app.ready;
    expect(await store.keys('agent-cache')).toHaveLength(0);
  });
});
