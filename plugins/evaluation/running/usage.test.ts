/**
 * Usage, latency and cost through the HTTP surface (issue 17 item 6): an openai endpoint and an http agent
 * served by msw report token usage; every call's trace event carries it as reported (never invented), the run
 * record sums it, and a price table turns it into cost for the models it names only.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { testApp } from '../../../test/helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from '../../../test/evaluation-fixtures.ts';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const ENV = { AEH_ALLOW_HOSTS: 'agent.test,llm.test' };
const PRICES = JSON.stringify({ 'gpt-test': { input: 2, output: 8 }, 'bot-1': { input: 1, output: 1 } });
const SCENARIO = scriptedScenario('usage', {
  tasks: [
    { id: 't1', input: 'What is my balance?', expected: { contains: '42' }, metrics: [{ id: 'probe_contains' }] },
    { id: 't2', input: 'And yesterday?', expected: { contains: '42' }, metrics: [{ id: 'probe_contains' }] },
  ],
});
const OPENAI = { adapter: 'openai', base_url: 'http://llm.test/v1', model: 'gpt-test' };

/** An OpenAI-compatible endpoint answering with `usage` (or the `usage` the test gives). */
function chatCompletions(usage: (call: number) => unknown) {
  let calls = 0;
  server.use(http.post('http://llm.test/v1/chat/completions', () => {
    calls++;
    return HttpResponse.json({ model: 'gpt-test-2025-01-01', choices: [{ message: { role: 'assistant', content: 'Your balance is 42 EUR.' } }], usage: usage(calls) });
  }));
}

const outputs = (trace: any[]) => trace.filter((event) => event.type === 'agent_output');

describe('usage: the openai adapter', () => {
  it('records each call\'s usage and latency in the trace and totals them in the run, without a price table no cost', async () => {
    chatCompletions((call) => ({ prompt_tokens: 100 * call, completion_tokens: 10 * call, total_tokens: 110 * call }));
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const { run, trace } = await evaluate(t, { scenario: SCENARIO, agent: OPENAI });
    expect(run.status).toBe('succeeded');
    const [first, second] = outputs(trace);
    expect(first.data).toMatchObject({ usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 }, model: 'gpt-test', latency_ms: expect.any(Number) });
    expect(second.data.usage).toEqual({ input_tokens: 200, output_tokens: 20, total_tokens: 220 });
    expect(first.data.cached).toBeUndefined();
    expect(run.usage).toMatchObject({ calls: 2, cached_calls: 0, reported_calls: 2, tokens: { input: 300, output: 30, total: 330 }, cached_tokens: { input: 0, output: 0, total: 0 } });
    expect(run.usage.latency_ms.sum).toBeCloseTo(first.data.latency_ms + second.data.latency_ms, 2);
    expect(run.usage.latency_ms.p50).toBe(Math.min(first.data.latency_ms, second.data.latency_ms));
    expect(run.usage.latency_ms.p95).toBe(Math.max(first.data.latency_ms, second.data.latency_ms));
    expect(run.usage.cost).toBeUndefined();
    const [listed] = (await t.json('GET', '/api/v1/runs?limit=1')).body.items;
    expect(listed.usage).toEqual({ calls: 2, cached_calls: 0, tokens: { input: 300, output: 30, total: 330 } });
    const summary = (await t.json('GET', `/api/v1/runs/${run.run_id}/evidence/summary.json`)).body;
    expect(summary.usage).toEqual(run.usage);
  });

  it('prices the calls of a model in AEH_PRICES, per million tokens, in the table\'s currency', async () => {
    chatCompletions(() => ({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 }));
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_PRICES: PRICES, AEH_PRICES_CURRENCY: 'eur' } });
    const { run } = await evaluate(t, { scenario: SCENARIO, agent: OPENAI });
    // 2 calls × (1000 × 2 + 500 × 8) / 1e6 = 0.012
    expect(run.usage.cost).toEqual({ currency: 'EUR', total: 0.012, priced_calls: 2, unpriced_calls: 0, unpriced_models: [], saved_by_cache: 0 });
    const [listed] = (await t.json('GET', '/api/v1/runs?limit=1')).body.items;
    expect(listed.usage).toEqual({ calls: 2, cached_calls: 0, tokens: { input: 2000, output: 1000, total: 3000 }, cost: { currency: 'EUR', total: 0.012, unpriced_calls: 0 } });
  });

  it('reports a model missing from the table as unpriced, never guessed from a similar name', async () => {
    chatCompletions(() => ({ prompt_tokens: 1000, completion_tokens: 500 }));
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_PRICES: PRICES } });
    const { run, trace } = await evaluate(t, { scenario: SCENARIO, agent: { ...OPENAI, model: 'gpt-test-mini' } });
    expect(outputs(trace)[0].data.usage).toEqual({ input_tokens: 1000, output_tokens: 500, total_tokens: 1500 });
    expect(run.usage.cost).toEqual({ currency: 'USD', total: 0, priced_calls: 0, unpriced_calls: 2, unpriced_models: ['gpt-test-mini'], saved_by_cache: 0 });
  });

  it('records no usage when the endpoint reports none, and sums tool rounds only when every round reported', async () => {
    chatCompletions(() => undefined);
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_PRICES: PRICES } });
    const { run, trace } = await evaluate(t, { scenario: SCENARIO, agent: OPENAI });
    expect(outputs(trace).map((event) => event.data.usage)).toEqual([undefined, undefined]);
    expect(run.usage).toMatchObject({ calls: 2, reported_calls: 0, tokens: { input: 0, output: 0, total: 0 }, cost: { total: 0, priced_calls: 0, unpriced_calls: 2 } });

    let round = 0;
    server.use(http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
      const body: any = await request.json();
      round++;
      // Round 1 asks for a tool and reports usage; round 2 answers and reports none: the call's usage is unknown.
      if (body.messages.at(-1).role !== 'tool') return HttpResponse.json({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] } }], usage: { prompt_tokens: 5, completion_tokens: 5 } });
      return HttpResponse.json({ choices: [{ message: { role: 'assistant', content: 'It is 42.' } }], ...(round > 2 ? { usage: { prompt_tokens: 7, completion_tokens: 3 } } : {}) });
    }));
    const rounds = await evaluate(t, { scenario: SCENARIO, agent: { ...OPENAI, tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }], tool_results: { lookup: { amount: 42 } } } });
    const [partial, whole] = outputs(rounds.trace);
    expect(partial.data.usage).toBeUndefined();
    expect(whole.data.usage).toEqual({ input_tokens: 12, output_tokens: 8, total_tokens: 20 });
    // Two calls (one answer each) that sent four requests (a tool round each): calls and requests say so.
    expect(round).toBe(4);
    expect(outputs(rounds.trace).map((event) => event.data.requests)).toEqual([2, 2]);
    expect(rounds.run.usage).toMatchObject({ calls: 2, requests: 4 });
    expect(run.usage.requests).toBe(2);
  });
});

describe('usage: http agents', () => {
  it('reads usage in the OpenAI shape or the input_tokens/output_tokens shape, and the model an agent names', async () => {
    server.use(http.post('http://agent.test/agent', async ({ request }) => {
      const body: any = await request.json();
      return HttpResponse.json(body.task_id === 't1'
        ? { output: 'It is 42.', model: 'bot-1', usage: { prompt_tokens: 300, completion_tokens: 200, total_tokens: 500 } }
        : { output: 'Still 42.', usage: { input_tokens: 40, output_tokens: 2 } });
    }));
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_PRICES: PRICES } });
    const { run, trace } = await evaluate(t, { scenario: SCENARIO, agent: { adapter: 'http', url: 'http://agent.test/agent' } });
    expect(outputs(trace).map((event) => [event.data.usage, event.data.model])).toEqual([
      [{ input_tokens: 300, output_tokens: 200, total_tokens: 500 }, 'bot-1'],
      [{ input_tokens: 40, output_tokens: 2, total_tokens: 42 }, undefined],
    ]);
    // bot-1 is priced (500 tokens at 1 per million); the call that named no model is unpriced.
    expect(run.usage).toMatchObject({ calls: 2, reported_calls: 2, tokens: { input: 340, output: 202, total: 542 }, cost: { total: 0.0005, priced_calls: 1, unpriced_calls: 1, unpriced_models: [] } });
  });

  it('ignores malformed usage whole: negative, fractional, NaN-like, huge, strings, arrays, a total below its parts', async () => {
    const hostile: unknown[] = [
      { prompt_tokens: -1, completion_tokens: 5 },
      { input_tokens: 1.5, output_tokens: 2 },
      { input_tokens: 'NaN', output_tokens: 2 },
      { input_tokens: '100', output_tokens: '5' },
      { input_tokens: 1e12, output_tokens: 1 },
      { input_tokens: Number.MAX_SAFE_INTEGER + 2, output_tokens: 1 },
      { input_tokens: 10, output_tokens: 10, total_tokens: 3 },
      [10, 20],
      'lots',
      {},
      { input_tokens: null, output_tokens: null },
      { input_tokens: { $gt: 0 }, output_tokens: 1 },
    ];
    const tasks = hostile.map((_, index) => ({ id: `h${index}`, input: `case ${index}`, metrics: [{ id: 'probe_refusal' }] }));
    server.use(http.post('http://agent.test/agent', async ({ request }) => {
      const body: any = await request.json();
      const index = Number(body.task_id.slice(1));
      // JSON cannot carry NaN; the closest a body gets is text the parser turns into a huge number.
      return new HttpResponse(JSON.stringify({ output: "I can't.", model: index === 0 ? 'x'.repeat(201) : ['bot-1'], usage: hostile[index] }), { headers: { 'content-type': 'application/json' } });
    }));
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_PRICES: PRICES } });
    const { run, trace } = await evaluate(t, { scenario: { ...SCENARIO, tasks }, agent: { adapter: 'http', url: 'http://agent.test/agent' } });
    expect(run.status).toBe('succeeded');
    for (const event of outputs(trace)) {
      expect(event.data.usage, event.task_id).toBeUndefined();
      expect(event.data.model, event.task_id).toBeUndefined();
    }
    expect(run.usage).toMatchObject({ calls: hostile.length, reported_calls: 0, tokens: { input: 0, output: 0, total: 0 }, cost: { total: 0, unpriced_calls: hostile.length } });
  });

  it('counts failed calls (with their latency) and no tokens for them', async () => {
    server.use(http.post('http://agent.test/agent', () => new HttpResponse('down', { status: 503 })));
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const { run, trace } = await evaluate(t, { scenario: SCENARIO, agent: { adapter: 'http', url: 'http://agent.test/agent' } });
    const error = trace.find((event: any) => event.type === 'error');
    expect(run.status).toBe('failed');
    expect(run.usage).toMatchObject({ calls: 1, reported_calls: 0, latency_ms: { sum: error.data.latency_ms } });
  });
});

describe('usage: settings', () => {
  it('stops the start on a bad price table, naming the setting and the entry, never a 500 later', async () => {
    for (const [value, message] of [
      ['{not json', /AEH_PRICES is not JSON/],
      ['[1,2]', /AEH_PRICES must be a JSON object/],
      ['{"m": {"input": -1, "output": 1}}', /AEH_PRICES: "m"\.input must be a number/],
      ['{"m": {"input": 1}}', /AEH_PRICES: "m"\.output must be a number/],
      ['{"m": {"input": 1, "output": "2"}}', /AEH_PRICES: "m"\.output must be a number/],
      ['{"m": {"input": 1, "output": 2, "cached": 0.5}}', /AEH_PRICES: "m" has "cached"/],
      ['{"m": 3}', /AEH_PRICES: "m" must be/],
    ] as const) {
      await expect(testApp({ plugins: [testMetrics], env: { AEH_PRICES: value } }), value).rejects.toThrow(message);
    }
    await expect(testApp({ env: { AEH_PRICES_CURRENCY: 'US$' } })).rejects.toThrow(/AEH_PRICES_CURRENCY/);
    await expect(testApp({ env: { AEH_AGENT_CACHE_TTL_SECONDS: '-5' } })).rejects.toThrow(/AEH_AGENT_CACHE_TTL_SECONDS/);
  });

  it('reads the price table from AEH_PRICES_FILE through the file jail', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    chatCompletions(() => ({ prompt_tokens: 1_000_000, completion_tokens: 0 }));
    const probe = await testApp({ plugins: [testMetrics] });
    writeFileSync(join(probe.root, 'prices.json'), PRICES);
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, PROJECT_ROOT: probe.root, AEH_PRICES_FILE: 'prices.json' } });
    const { run } = await evaluate(t, { scenario: SCENARIO, agent: OPENAI });
    expect(run.usage.cost).toMatchObject({ total: 4, priced_calls: 2 });
    await expect(testApp({ env: { PROJECT_ROOT: probe.root, AEH_PRICES_FILE: '/etc/passwd' } })).rejects.toThrow(/AEH_PRICES_FILE could not be read/);
    await expect(testApp({ env: { PROJECT_ROOT: probe.root, AEH_PRICES_FILE: 'prices.json', AEH_PRICES: PRICES } })).rejects.toThrow(/both set/);
  });
});
