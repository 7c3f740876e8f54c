/**
 * Hostile agent specs at submission (issue 13 items 4 and 10): an agent may name an environment variable only
 * when the operator listed it, never one of the service's own, and adapters see nothing else of the
 * environment; an agent URL with a forbidden literal address is refused before anything is queued.
 */
import { describe, it, expect } from 'vitest';
import { testApp, TEST_KEY } from '../helpers.ts';
import type { Plugin } from '../../core/plugin.ts';
import type { AgentAdapter } from '../../core/agent-adapter.ts';
import { scriptedScenario } from '../evaluation-fixtures.ts';

const SCENARIO = scriptedScenario('hostile-agents', { tasks: [{ id: 't1', input: 'hello', metrics: [{ id: 'refusal' }] }] });
const OPERATOR_ENV = {
  AWS_SECRET_ACCESS_KEY: 'aws-secret-9f3c', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AEH_SIGNING_RETIRED_JWKS: '[]',
  GOOGLE_APPLICATION_CREDENTIALS: '/srv/gcp.json', AZURE_CLIENT_SECRET: 'azure-secret', OIDC_CLIENT_SECRET: 'oidc-secret',
  REDIS_PASSWORD: 'redis-secret', HOME: '/home/aeh', PATH: '/usr/bin', AGENT_KEY: 'agent-key-1', OTHER_KEY: 'other-key',
};
const SECRETS = ['aws-secret-9f3c', 'AKIAEXAMPLE', 'azure-secret', 'oidc-secret', 'redis-secret', '/home/aeh', TEST_KEY];

/** An adapter that records what the environment it is handed holds, at submission and at call time. */
function envProbe() {
  const seen: { check?: string[]; call?: string[] } = {};
  const adapter: AgentAdapter = {
    name: 'env-probe',
    description: 'records the variables it is given',
    async check(_spec, context) {
      seen.check = Object.keys(context.env).sort();
    },
    async call(_input, context) {
      seen.call = Object.keys(context.env).sort();
      return { output: JSON.stringify(context.env) };
    },
  };
  const plugin: Plugin = { name: 'env-probe', setup: (host) => host.agents.register(adapter, 'env-probe') };
  return { seen, plugin };
}

async function waitForRun(t: Awaited<ReturnType<typeof testApp>>, taskId: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const task = (await t.json('GET', `/api/v1/tasks/${taskId}`)).body;
    if (['succeeded', 'failed', 'cancelled'].includes(task.status)) return task;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the task did not finish');
}

describe('hostile: agent key variables (issue 13 item 4)', () => {
  it('refuses every operator secret as api_key_env when AEH_AGENT_KEY_ENVS is unset: none is allowed by default', async () => {
    const t = await testApp({ env: { ...OPERATOR_ENV, AEH_ALLOW_HOSTS: 'llm.test' } });
    for (const name of ['AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID', 'AEH_SIGNING_RETIRED_JWKS', 'DASHBOARD_API_KEY', 'HOME', 'PATH', 'REDIS_PASSWORD', 'OIDC_CLIENT_SECRET', 'AGENT_KEY']) {
      const response = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'openai', base_url: 'http://llm.test/v1', model: 'm', api_key_env: name } } });
      expect(response.status, name).toBe(400);
      expect(response.body.errors[0].path).toBe('/agent/api_key_env');
      for (const secret of SECRETS) expect(JSON.stringify(response.body)).not.toContain(secret);
    }
  });

  it('fails the start when AEH_AGENT_KEY_ENVS lists a variable of the service, its signers, Redis or OIDC', async () => {
    for (const name of ['AWS_SECRET_ACCESS_KEY', 'DASHBOARD_API_KEY', 'AEH_LLM_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS', 'AZURE_CLIENT_SECRET', 'OIDC_CLIENT_SECRET', 'REDIS_URL', 'HOME', 'PATH']) {
      await expect(testApp({ env: { ...OPERATOR_ENV, AEH_AGENT_KEY_ENVS: `AGENT_KEY,${name}` } }), name).rejects.toThrow(/AEH_AGENT_KEY_ENVS lists/);
    }
  });

  it('hands adapters only the listed variables, at submission and at call time, never the environment', async () => {
    const { seen, plugin } = envProbe();
    const t = await testApp({ plugins: [plugin], env: { ...OPERATOR_ENV, AEH_AGENT_KEY_ENVS: 'AGENT_KEY@agent.test, UNSET_KEY@agent.test' } });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'env-probe' } } });
    expect(accepted.status).toBe(202);
    await waitForRun(t, accepted.body.task_id);
    expect(seen).toEqual({ check: ['AGENT_KEY', 'UNSET_KEY'], call: ['AGENT_KEY', 'UNSET_KEY'] });
    const trace = await (await t.request('GET', `/api/v1/runs/${accepted.body.run_id}/trace`)).text();
    expect(trace).toContain('agent-key-1');
    for (const secret of [...SECRETS, 'other-key']) expect(trace).not.toContain(secret);
  });

  it('hands adapters an empty environment by default', async () => {
    const { seen, plugin } = envProbe();
    const t = await testApp({ plugins: [plugin], env: OPERATOR_ENV });
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'env-probe' } } });
    await waitForRun(t, accepted.body.task_id);
    expect(seen).toEqual({ check: [], call: [] });
  });
});

describe('hostile: agent URLs at submission (issue 13 item 10)', () => {
  const LITERALS = [
    'http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1:8080/', 'http://１２７．０．０．１/',
    'http://0.0.0.0/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://10.0.0.1/', 'http://172.16.0.1/',
    'http://192.168.1.1/', 'http://169.254.1.1/', 'http://[fe80::1]/', 'http://[fd12::1]/', 'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/', 'http://[fd00:ec2::254]/', 'http://100.100.100.200/', 'http://168.63.129.16/', 'https://10.1.2.3:8443/v1',
  ];

  it.each(LITERALS)('http agent %s → 400 ssrf_blocked before anything is queued', async (url) => {
    const t = await testApp({ env: { AEH_ALLOW_HOSTS: 'agent.test' } });
    const response = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url } } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'ssrf_blocked', errors: [{ path: '/agent/url' }], hint: expect.stringContaining('AEH_ALLOW_HOSTS') });
    expect((await t.json('GET', '/api/v1/runs')).body.items).toHaveLength(0);
  });

  it('refuses an openai agent whose base_url is a metadata or loopback literal', async () => {
    const t = await testApp();
    for (const base_url of ['http://169.254.169.254/v1', 'http://[::1]:11434/v1']) {
      const response = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'openai', base_url, model: 'm' } } });
      expect(response.body).toMatchObject({ status: 400, code: 'ssrf_blocked', errors: [{ path: '/agent/base_url' }] });
    }
  });

  it('refuses credentials in an agent URL at submission', async () => {
    const t = await testApp({ env: { AEH_ALLOW_HOSTS: 'agent.test' } });
    const response = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url: 'http://user:pw@agent.test/' } } });
    expect(response.body).toMatchObject({ status: 400, code: 'ssrf_blocked' });
  });

  it('accepts names at submission (the guard checks them when it connects) and allow-listed literals', async () => {
    const t = await testApp({ env: { AEH_ALLOW_HOSTS: '10.0.0.5,192.168.7.7:9000' } });
    for (const url of ['http://agent.example/', 'http://10.0.0.5:1234/', 'http://192.168.7.7:9000/']) {
      const response = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url, timeout_ms: 1 } } });
      expect(response.status, url).toBe(202);
    }
    const otherPort = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url: 'http://192.168.7.7:9001/' } } });
    expect(otherPort.body.code).toBe('ssrf_blocked');
  });

  it('never opens the service\'s own port on a local address through AEH_ALLOW_HOSTS', async () => {
    const t = await testApp({ env: { AEH_ALLOW_HOSTS: '127.0.0.0/8,::1,0.0.0.0,10.9.9.9,127.0.0.1:8787', PORT: '8787', HOST: '10.9.9.9' } });
    for (const url of ['http://127.0.0.1:8787/api/info', 'http://127.9.9.9:8787/', 'http://[::1]:8787/', 'http://0.0.0.0:8787/', 'http://10.9.9.9:8787/', 'http://2130706433:8787/']) {
      const response = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url } } });
      expect(response.body, url).toMatchObject({ status: 400, code: 'ssrf_blocked', detail: expect.stringContaining('own listening port') });
    }
    const otherPort = await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO, agent: { adapter: 'http', url: 'http://127.0.0.1:8788/', timeout_ms: 1 } } });
    expect(otherPort.status).toBe(202);
  });
});
