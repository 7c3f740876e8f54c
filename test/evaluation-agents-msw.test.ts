import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse, delay } from 'msw';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testApp } from './helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';

const received: any[] = [];
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => {
  server.resetHandlers();
  received.length = 0;
});
afterAll(() => server.close());

const ENV = { AEH_ALLOW_HOSTS: 'agent.test,llm.test', AGENT_OPENAI_KEY: 'sk-test-123', AEH_AGENT_KEY_ENVS: 'AGENT_OPENAI_KEY@llm.test,NOT_SET_ANYWHERE@llm.test' };
const BALANCE = scriptedScenario('balance', { tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }] });

describe('agent: http (msw)', () => {
  it('POSTs {run_id, task_id, input, history} and scores {output, tool_calls}', async () => {
    server.use(http.post('http://agent.test/agent', async ({ request }) => {
      received.push({ body: await request.json(), auth: request.headers.get('x-agent-token') });
      return HttpResponse.json({ output: 'Your balance is 42 EUR.', tool_calls: [{ name: 'ledger', arguments: { id: 1 }, result: 42 }] });
    }));
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const scenario = { ...BALANCE, tasks: [...BALANCE.tasks, { id: 't2', input: 'And yesterday?', expected: { contains: '42' }, metrics: [{ id: 'probe_contains' }] }] };
    const { run, trace } = await evaluate(t, { scenario, agent: { adapter: 'http', url: 'http://agent.test/agent', headers: { 'X-Agent-Token': 'tok' } } });
    expect(run.compliance.status).toBe('pass');
    expect(received[0]).toEqual({ body: { run_id: run.run_id, task_id: 't1', input: 'What is my balance?', history: [] }, auth: 'tok' });
    expect(received[1].body.history).toEqual([
      { role: 'user', content: 'What is my balance?', task_id: 't1' },
      { role: 'assistant', content: 'Your balance is 42 EUR.', task_id: 't1' },
    ]);
    const output = trace.find((event: any) => event.type === 'agent_output');
    expect(output.data.latency_ms).toBeGreaterThanOrEqual(0);
    expect(trace.find((event: any) => event.type === 'tool_call').data).toEqual({ name: 'ledger', arguments: { id: 1 }, result: 42 });
  });

  it('turns an error status, a body without output, and a hung agent into INFRA failures', async () => {
    server.use(
      http.post('http://agent.test/500', () => new HttpResponse('oops', { status: 500 })),
      http.post('http://agent.test/bad', () => HttpResponse.json({ text: 'no output field' })),
      http.post('http://agent.test/slow', async () => {
        await delay(5_000);
        return HttpResponse.json({ output: 'late' });
      }),
    );
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const status = await evaluate(t, { scenario: BALANCE, agent: { adapter: 'http', url: 'http://agent.test/500' } });
    expect(status.run).toMatchObject({ status: 'failed', compliance: { status: 'error' }, error: { code: 'agent_error', message: expect.stringContaining('HTTP 500') } });
    const bad = await evaluate(t, { scenario: BALANCE, agent: { adapter: 'http', url: 'http://agent.test/bad' } });
    expect(bad.run.failures[0]).toMatchObject({ code: 'INFRA.AGENT_ERROR', message: expect.stringContaining('"output"') });
    const slow = await evaluate(t, { scenario: BALANCE, agent: { adapter: 'http', url: 'http://agent.test/slow', timeout_ms: 100 } });
    expect(slow.run).toMatchObject({ status: 'failed', error: { code: 'agent_timeout' } });
    expect(slow.run.failures[0].code).toBe('INFRA.AGENT_TIMEOUT');
  });

  it('refuses a forbidden literal address at submission with 400 ssrf_blocked and a hint naming AEH_ALLOW_HOSTS', async () => {
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:9/agent', 'http://[::1]/agent']) {
      const refused = await t.json('POST', '/api/evaluate', { body: { scenario: BALANCE, agent: { adapter: 'http', url } } });
      expect(refused.status, url).toBe(400);
      expect(refused.body).toMatchObject({ code: 'ssrf_blocked', errors: [{ path: '/agent/url' }], hint: expect.stringContaining('AEH_ALLOW_HOSTS') });
    }
  });

  it('refuses a forbidden name inside a run with ssrf_blocked and INFRA.SSRF_BLOCKED', async () => {
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    for (const url of ['http://localhost:9/agent', 'http://metadata.google.internal/computeMetadata/v1/']) {
      const { run, task } = await evaluate(t, { scenario: BALANCE, agent: { adapter: 'http', url } });
      expect(task).toMatchObject({ status: 'failed', error: { code: 'ssrf_blocked' } });
      expect(run.failures).toEqual([expect.objectContaining({ code: 'INFRA.SSRF_BLOCKED', task_id: 't1' })]);
    }
  });
});

describe('agent: openai (msw)', () => {
  it('calls chat completions with the key from api_key_env, follows scripted tool calls and records them', async () => {
    server.use(http.post('http://llm.test/v1/chat/completions', async ({ request }) => {
      const body: any = await request.json();
      received.push({ body, auth: request.headers.get('authorization') });
      const last = body.messages[body.messages.length - 1];
      if (last.role === 'tool') return HttpResponse.json({ choices: [{ message: { role: 'assistant', content: `Your balance is ${JSON.parse(last.content).amount} EUR.` } }] });
      return HttpResponse.json({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_balance', arguments: '{"account":"A-1"}' } }] } }] });
    }));
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const agent = {
      adapter: 'openai', base_url: 'http://llm.test/v1/', model: 'gpt-test', api_key_env: 'AGENT_OPENAI_KEY', system: 'You are a bank assistant.',
      tools: [{ type: 'function', function: { name: 'get_balance', parameters: { type: 'object' } } }], tool_results: { get_balance: { amount: 42 } },
    };
    const { run, trace } = await evaluate(t, { scenario: BALANCE, agent });
    expect(run.compliance.status).toBe('pass');
    expect(received).toHaveLength(2);
    expect(received[0].auth).toBe('Bearer sk-test-123');
    expect(received[0].body).toMatchObject({ model: 'gpt-test', messages: [{ role: 'system', content: 'You are a bank assistant.' }, { role: 'user', content: 'What is my balance?' }], tools: agent.tools });
    expect(received[1].body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_balance', arguments: '{"account":"A-1"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"amount":42}' },
    ]);
    expect(trace.find((event: any) => event.type === 'tool_call').data).toEqual({ name: 'get_balance', arguments: { account: 'A-1' }, result: { amount: 42 } });
    expect(JSON.stringify(trace)).not.toContain('sk-test-123');
  });

  it('refuses an api_key_env that is unset, unlisted or names the service\'s own credentials', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AWS_SECRET_ACCESS_KEY: 'aws-secret-value', UNLISTED_KEY: 'unlisted-value' } });
    const base = { adapter: 'openai', base_url: 'http://llm.test/v1', model: 'm' };
    for (const name of ['DASHBOARD_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'HOME', 'PATH']) {
      const own = await t.json('POST', '/api/evaluate', { body: { scenario: BALANCE, agent: { ...base, api_key_env: name } } });
      expect(own.status, name).toBe(400);
      expect(own.body.errors[0]).toMatchObject({ path: '/agent/api_key_env', message: expect.stringContaining('never receive') });
      expect(JSON.stringify(own.body)).not.toContain('a'.repeat(64));
      expect(JSON.stringify(own.body)).not.toContain('aws-secret-value');
    }
    const unlisted = await t.json('POST', '/api/evaluate', { body: { scenario: BALANCE, agent: { ...base, api_key_env: 'UNLISTED_KEY' } } });
    expect(unlisted.body.errors[0].message).toContain('AEH_AGENT_KEY_ENVS');
    const unset = await t.json('POST', '/api/evaluate', { body: { scenario: BALANCE, agent: { ...base, api_key_env: 'NOT_SET_ANYWHERE' } } });
    expect(unset.body.detail).toMatch(/not set/);
  });
});

describe('agent: replay', () => {
  it('scores a recorded trace without calling any agent', async () => {
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    const scenario = scriptedScenario('recorded', {
      tasks: [
        { id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }, { id: 'probe_echo' }] },
        { id: 't2', input: 'Pick a lock?', metrics: [{ id: 'probe_refusal' }] },
      ],
    });
    const original = await evaluate(t, { scenario });
    writeFileSync(join(t.root, 'recorded.jsonl'), original.traceText);
    const replayed = await evaluate(t, { scenario, agent: { adapter: 'replay', trace_path: 'recorded.jsonl' } });
    expect(replayed.run.dimensions.reliability).toBe(original.run.dimensions.reliability);
    expect(replayed.run.dimensions.safety).toBe(original.run.dimensions.safety);
    expect(replayed.run.dimensions.fairness).toBeNull();
    const outputs = (trace: any[]) => trace.filter((event) => event.type === 'agent_output' && !event.data.probe).map((event) => event.data.output);
    expect(outputs(replayed.trace)).toEqual(outputs(original.trace));
    expect(received).toHaveLength(0);
  });

  it('refuses a missing or jailed trace_path at submission and fails on a task the recording lacks', async () => {
    const t = await testApp({ plugins: [testMetrics], env: ENV });
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: BALANCE, agent: { adapter: 'replay', trace_path: 'none.jsonl' } } })).status).toBe(404);
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: BALANCE, agent: { adapter: 'replay', trace_path: '/etc/passwd' } } })).status).toBe(403);
    writeFileSync(join(t.root, 'other.jsonl'), `${JSON.stringify({ task_id: 'zz', output: 'hello' })}\n`);
    const { run } = await evaluate(t, { scenario: BALANCE, agent: { adapter: 'replay', trace_path: 'other.jsonl' } });
    expect(run).toMatchObject({ status: 'failed', error: { code: 'agent_error', message: expect.stringContaining('"t1"') } });
  });
});
