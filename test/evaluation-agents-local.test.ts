import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { testApp } from './helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';
import { startLocalAgent, type LocalAgent } from './evaluation-local-agent.ts';

let agent: LocalAgent;
beforeAll(async () => {
  agent = await startLocalAgent();
});
afterAll(() => agent.close());

const SCENARIO = scriptedScenario('local');

describe('agents against a real HTTP agent on 127.0.0.1', () => {
  it('http: reaches an allow-listed loopback agent over a real socket', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { AEH_ALLOW_HOSTS: '127.0.0.1' } });
    const { run, trace } = await evaluate(t, { scenario: SCENARIO, agent: { adapter: 'http', url: `${agent.url}/agent` } });
    expect(run.compliance.status).toBe('pass');
    expect(trace.filter((event: any) => event.type === 'agent_output').map((event: any) => event.data.output)).toEqual(['Your balance is 42 EUR (t1).', "I can't help with that."]);
    expect(agent.calls.filter((call) => call.path === '/agent' && call.body.run_id === run.run_id)).toHaveLength(2);
  });

  it('openai: follows a tool call against a local OpenAI-compatible server', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { AEH_ALLOW_HOSTS: '127.0.0.1', LOCAL_LLM_KEY: 'local-key', AEH_AGENT_KEY_ENVS: 'LOCAL_LLM_KEY@127.0.0.1' } });
    const scenario = scriptedScenario('local-openai', { tasks: [{ id: 't1', input: 'balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }] });
    const { run, trace } = await evaluate(t, { scenario, agent: { adapter: 'openai', base_url: `${agent.url}/v1`, model: 'local', api_key_env: 'LOCAL_LLM_KEY', tool_results: { get_balance: { amount: 42 } } } });
    expect(run.compliance.status).toBe('pass');
    expect(trace.filter((event: any) => event.type === 'tool_call')).toHaveLength(1);
    expect(agent.calls.filter((call) => call.path === '/v1/chat/completions').every((call) => call.authorization === 'Bearer local-key')).toBe(true);
  });

  it('refuses the same loopback agent at submission when it is not allow-listed (SSRF guard)', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const before = agent.calls.length;
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url: `${agent.url}/agent` } } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'ssrf_blocked', hint: expect.stringContaining('AEH_ALLOW_HOSTS') });
    expect(agent.calls.length).toBe(before);
  });

  it('allows a host:port entry for that port only (AEH_ALLOW_HOSTS=127.0.0.1:<port>)', async () => {
    const port = new URL(agent.url).port;
    const t = await testApp({ plugins: [testMetrics], env: { AEH_ALLOW_HOSTS: `127.0.0.1:${port}` } });
    const { run } = await evaluate(t, { scenario: SCENARIO, agent: { adapter: 'http', url: `${agent.url}/agent` } });
    expect(run.compliance.status).toBe('pass');
    const other = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url: `http://127.0.0.1:${Number(port) === 65535 ? 65534 : Number(port) + 1}/agent` } } });
    expect(other.body.code).toBe('ssrf_blocked');
  });

  it('never opens the service\'s own port, whatever AEH_ALLOW_HOSTS lists', async () => {
    const port = new URL(agent.url).port;
    const t = await testApp({ plugins: [testMetrics], env: { AEH_ALLOW_HOSTS: `127.0.0.1,localhost,127.0.0.1:${port}`, PORT: port } });
    const before = agent.calls.length;
    for (const url of [`${agent.url}/agent`, `http://[::ffff:127.0.0.1]:${port}/agent`, `http://0x7f.1:${port}/agent`]) {
      const refused = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url } } });
      expect(refused.status, url).toBe(400);
      expect(refused.body).toMatchObject({ code: 'ssrf_blocked', detail: expect.stringContaining('own listening port') });
    }
    // A name is checked when the guard connects, and refused there.
    const { run } = await evaluate(t, { scenario: SCENARIO, agent: { adapter: 'http', url: `http://localhost:${port}/agent` } });
    expect(run).toMatchObject({ status: 'failed', error: { code: 'ssrf_blocked', message: expect.stringContaining('own listening port') } });
    expect(agent.calls.length).toBe(before);
  });

  it('times out a slow local agent per call', async () => {
    const slow = await startLocalAgent({ delayMs: 2_000 });
    try {
      const t = await testApp({ plugins: [testMetrics], env: { AEH_ALLOW_HOSTS: '127.0.0.1' } });
      const { run } = await evaluate(t, { scenario: SCENARIO, agent: { adapter: 'http', url: `${slow.url}/agent`, timeout_ms: 100 } });
      expect(run).toMatchObject({ status: 'failed', compliance: { status: 'error' }, error: { code: 'agent_timeout' } });
    } finally {
      await slow.close();
    }
  });
});
