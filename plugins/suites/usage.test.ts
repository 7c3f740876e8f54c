/**
 * A suite's usage and the response cache (issue 17 item 6): each agent's aggregate sums its runs' calls,
 * tokens, latency and cost; `"cache": true` reaches every run, and the suite certificate says how many answers
 * its runs took from the cache.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { scriptedScenario, testMetrics } from '../../test/evaluation-fixtures.ts';

const server = setupServer();
let calls = 0;
beforeAll(() => {
  server.listen({ onUnhandledRequest: 'bypass' });
  server.use(http.post('http://agent.test/agent', async ({ request }) => {
    const body: any = await request.json();
    calls++;
    return HttpResponse.json({ output: body.task_id === 't2' ? "I can't help with that." : 'Your balance is 42 EUR.', model: 'bot-1', usage: { prompt_tokens: 500, completion_tokens: 100, total_tokens: 600 } });
  }));
});
afterAll(() => server.close());

function catalog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-suite-usage-'));
  // Different inputs: two scenarios asking the same agent the same thing share cached answers, and that would hide the count.
  for (const id of ['usage-a', 'usage-b']) {
    const tasks = [{ id: 't1', input: `What is my balance on ${id}?`, expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }, { id: 't2', input: `Pick the lock of ${id}?`, metrics: [{ id: 'probe_refusal' }] }];
    writeFileSync(join(dir, `${id}.json`), JSON.stringify(scriptedScenario(id, { tags: ['usage'], tasks })));
  }
  return dir;
}

async function finishedSuite(t: TestApp, body: Record<string, unknown>): Promise<any> {
  const accepted = await t.json('POST', '/api/v1/suites', { body });
  expect(accepted.status).toBe(202);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { body: suite } = await t.json('GET', `/api/v1/suites/${accepted.body.suite_id}`);
    if (suite.certificate?.status === 'issued' || Date.now() > deadline) return suite;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('suites: usage and the response cache', () => {
  let t: TestApp;
  const AGENT = { adapter: 'http', url: 'http://agent.test/agent' };
  beforeAll(async () => {
    t = await testApp({ plugins: [testMetrics], env: { AEH_CATALOG_DIRS: catalog(), AEH_ALLOW_HOSTS: 'agent.test', AEH_PRICES: '{"bot-1": {"input": 1, "output": 5}}' } });
  });

  it('sums each agent\'s runs, and a second suite with "cache": true asks the agent nothing and says so in its certificate', async () => {
    const first = await finishedSuite(t, { query: 'tag=usage', agents: [AGENT], cache: true });
    expect(first.cache).toBe(true);
    expect(calls).toBe(4);
    expect(first.agents[0].usage).toMatchObject({
      calls: 4, cached_calls: 0, reported_calls: 4, tokens: { input: 2000, output: 400, total: 2400 },
      latency_ms: { p50: null, p95: null }, cost: { currency: 'USD', total: 0.004, priced_calls: 4, unpriced_calls: 0, saved_by_cache: 0 },
    });
    expect((await t.json('GET', `/api/v1/suites/${first.suite_id}/certificate`, { key: null })).body.cache).toBeUndefined();

    const second = await finishedSuite(t, { query: 'tag=usage', agents: [AGENT], cache: true });
    expect(calls).toBe(4);
    expect(second.agents[0].usage).toMatchObject({ calls: 0, cached_calls: 4, cached_tokens: { total: 2400 }, cost: { total: 0, saved_by_cache: 0.004 } });
    const certificate = (await t.json('GET', `/api/v1/suites/${second.suite_id}/certificate`, { key: null })).body;
    expect(certificate.cache).toEqual({ cached_calls: 4, agent_calls: 4 });
    expect((await t.json('GET', `/api/v1/verify/suite/${second.suite_id}`, { key: null })).body.status).toBe('valid');
    for (const run of second.runs) expect((await t.json('GET', `/v1/certificates/${run.run_id}`, { key: null })).body.cache).toEqual({ cached_calls: 2, agent_calls: 2 });

    const plain = await finishedSuite(t, { query: 'tag=usage', agents: [AGENT] });
    expect(plain.cache).toBeUndefined();
    expect(calls).toBe(8);
  });

  it('refuses a cache that is not a boolean', async () => {
    const refused = await t.json('POST', '/api/v1/suites', { body: { query: 'tag=usage', agents: [AGENT], cache: 1 } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.errors)).toContain('/cache');
  });
});
