/**
 * Evaluating against registered agents (issue 17 item 1) and refusing what would measure nothing (issue 18
 * item 6): `POST /api/evaluate` `agent` as a registry name or a spec over the scenario's own, the agent and its
 * configuration hash in the run, the trace and the summary, the runs list's `agent` filter, the "no agent"
 * refusal of AES documents, and a run that measured nothing saying why in its record, certificate and explain.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { testApp, type TestApp } from './helpers.ts';
import { evaluate, scriptedScenario, testMetrics } from './evaluation-fixtures.ts';
import { startLocalAgent, type LocalAgent } from './evaluation-local-agent.ts';
import { agentConfigHash } from '../core/domain/agent-target.ts';
import { agentKey } from '../plugins/agent-registry/store.ts';
import { nodePlugins } from '../runtime/node/plugins.ts';

const SCRIPTED = { adapter: 'scripted', options: { replies: { t1: 'Your balance is 42 EUR.', t2: "I can't help with that." } } };
const SCRIPTED_SPEC = { adapter: 'scripted', ...SCRIPTED.options };
const AES = {
  aes_version: 1.4,
  metadata: { id: 'aes-balance', name: 'AES balance question' },
  industry: 'finance',
  workflow: { nodes: [{ id: 'ask', task_description: 'What is my balance?', expected_outcome: [{ target: 'message', expected: '42 EUR', mode: 'regex' }] }], edges: [] },
};

let agents: LocalAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
  agents = [];
});

async function register(t: TestApp, name: string, body: Record<string, unknown>) {
  const created = await t.json('POST', '/api/v1/agents', { body: { name, ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

describe('evaluate: agent from the registry', () => {
  it('runs a scenario against a registered agent and records its name and configuration hash', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const target = await register(t, 'balance-bot', SCRIPTED);
    const scenario = scriptedScenario('by-name', { agent: { adapter: 'scripted', replies: { '*': 'not me' } } });
    const { task, run, trace, accepted } = await evaluate(t, { scenario, agent: 'balance-bot' });
    expect(task.status).toBe('succeeded');
    expect(run.agent).toEqual({ name: 'balance-bot', adapter: 'scripted', config_hash: target.config_hash });
    expect(run.compliance.status).toBe('pass');
    expect(trace[0].data.agent).toEqual(run.agent);
    const summary = await t.json('GET', `/api/v1/runs/${accepted.body.run_id}/evidence/summary.json`);
    expect(summary.body.agent).toEqual(run.agent);
    const listed = await t.json('GET', '/api/v1/runs?limit=5');
    expect(listed.body.items[0].agent).toEqual(run.agent);
  });

  it('an inline spec is recorded unnamed, with the hash of its canonical JSON', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const spec = { replies: { t2: "I can't help with that.", t1: 'Your balance is 42 EUR.' }, adapter: 'scripted' };
    const { run } = await evaluate(t, { scenario: scriptedScenario('inline'), agent: spec });
    expect(run.agent).toEqual({ adapter: 'scripted', config_hash: agentConfigHash({ adapter: 'scripted', replies: { t1: 'Your balance is 42 EUR.', t2: "I can't help with that." } }) });
    const own = await evaluate(t, { scenario: scriptedScenario('own') });
    expect(own.run.agent.name).toBeUndefined();
    expect(own.run.agent.config_hash).toBe(run.agent.config_hash);
  });

  it('filters the runs list by agent name', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    await register(t, 'bot-a', SCRIPTED);
    await register(t, 'bot-b', SCRIPTED);
    const a = await evaluate(t, { scenario: scriptedScenario('s'), agent: 'bot-a' });
    await evaluate(t, { scenario: scriptedScenario('s'), agent: 'bot-b' });
    await evaluate(t, { scenario: scriptedScenario('s') });
    const onlyA = await t.json('GET', '/api/v1/runs?agent=bot-a');
    expect(onlyA.body.items.map((item: { run_id: string }) => item.run_id)).toEqual([a.run.run_id]);
    expect((await t.json('GET', '/api/v1/runs?agent=bot-b&status=succeeded')).body.items).toHaveLength(1);
    expect((await t.json('GET', '/api/v1/runs?agent=nobody')).body.items).toEqual([]);
    const bad = await t.json('GET', '/api/v1/runs?agent=..%2Fx');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/agent');
  });

  it('a registered http agent gets its secret header from the variable it names, and the records never hold it', async () => {
    const local = await startLocalAgent();
    agents.push(local);
    const t = await testApp({ plugins: [testMetrics], env: { AEH_ALLOW_HOSTS: '127.0.0.1', AEH_AGENT_KEY_ENVS: 'BALANCE_BOT_TOKEN', BALANCE_BOT_TOKEN: 'Bearer tok-5c1f9e' } });
    await register(t, 'http-bot', { adapter: 'http', options: { url: `${local.url}/agent`, header_envs: { authorization: 'BALANCE_BOT_TOKEN' } } });
    const { task, run, traceText, accepted } = await evaluate(t, { scenario: scriptedScenario('over-http'), agent: 'http-bot' });
    expect(task.status).toBe('succeeded');
    expect(local.calls.map((call) => call.authorization)).toEqual(['Bearer tok-5c1f9e', 'Bearer tok-5c1f9e']);
    expect(run.agent).toMatchObject({ name: 'http-bot', adapter: 'http' });
    const plan = await (await t.request('GET', `/api/v1/runs/${accepted.body.run_id}/evidence/scenario.json`)).text();
    for (const text of [JSON.stringify(run), traceText, plan]) expect(text).not.toContain('tok-5c1f9e');
  });

  it('refuses an unknown name (404), a malformed one (400), and a registry record whose address is now forbidden', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const unknown = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('x'), agent: 'nobody' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('nobody');
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('x'), agent: 'Not A Name' } })).status).toBe(400);
    // A record saved while AEH_ALLOW_HOSTS allowed the address (or written behind the API) is checked again.
    const { store } = await t.app.ready;
    await store.setJson(agentKey('stale'), { name: 'stale', adapter: 'http', options: { url: 'http://169.254.169.254/agent' }, secret_envs: [], config_hash: '0'.repeat(64), version: 1, created_at: '', updated_at: '' });
    const blocked = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('x'), agent: 'stale' } });
    expect(blocked.status).toBe(400);
    expect(blocked.body.code).toBe('ssrf_blocked');
    expect(blocked.body.errors[0].path).toBe('/agent/url');
  });

  it('without the agent registry loaded, a name is refused (400 at /agent) and a spec still runs', async () => {
    const t = await testApp({ only: [...nodePlugins().filter((plugin) => plugin.name !== 'agent-registry'), testMetrics] });
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('x'), agent: 'balance-bot' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toEqual({ path: '/agent', message: 'no agent registry is loaded (plugin agent-registry)' });
    expect((await t.json('GET', '/api/v1/agents')).status).toBe(404);
    expect((await evaluate(t, { scenario: scriptedScenario('x'), agent: SCRIPTED_SPEC })).task.status).toBe('succeeded');
  });

  it('checks a pinned key set\'s address at submission', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const agent = { adapter: 'scripted', replies: { '*': 'x' }, signature_key: { identity: 'acme:bot', jwks_url: 'https://10.0.0.7/jwks.json' } };
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: scriptedScenario('x'), agent } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('ssrf_blocked');
    expect(refused.body.errors[0].path).toBe('/agent/signature_key/jwks_url');
  });
});

describe('evaluate: scenarios without an agent (issue 18 item 6)', () => {
  it('refuses an AES document that names no agent with 400 naming /agent and a hint; runs it with one', async () => {
    const t = await testApp();
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: AES } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    expect(refused.body.errors).toEqual([{ path: '/agent', message: 'the scenario names no agent: give "agent": a registry name or a spec' }]);
    expect(refused.body.hint).toContain('give "agent": a registry name');
    expect((await t.json('GET', '/api/v1/runs')).body.items).toEqual([]);
    const explicit = await t.json('POST', '/api/evaluate', { body: { scenario: { ...scriptedScenario('none'), agent: { adapter: 'none' } }, agent: { adapter: 'none' } } });
    expect(explicit.status).toBe(400);
    expect(explicit.body.errors[0].path).toBe('/agent');
    await register(t, 'aes-bot', { adapter: 'scripted', options: { replies: { '*': 'Your balance is 42 EUR.' } } });
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: AES, agent: 'aes-bot' } })).status).toBe(202);
  });
});

describe('evaluate: a run that measured nothing says so (issue 18 item 6)', () => {
  it('its record, certificate and explain give the reason; the certificate still verifies', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    // probe_contains cannot measure without expected.contains: every metric of every task is unmeasured.
    const scenario = scriptedScenario('measures-nothing', { tasks: [{ id: 't1', input: 'Hello?', metrics: [{ id: 'probe_contains' }] }, { id: 't2', input: 'Again?', metrics: [{ id: 'probe_contains' }] }] });
    const { task, run } = await evaluate(t, { scenario });
    expect(task.status).toBe('succeeded');
    expect(Object.values(run.dimensions).every((value) => value === null)).toBe(true);
    expect(run.compliance).toMatchObject({ status: 'error', score: 0 });
    expect(run.compliance.reason).toBe('nothing was measured: probe_contains on 2 results: no expected.contains');
    expect(run.error).toEqual({ code: 'nothing_measured', message: run.compliance.reason });
    const certificate = await t.json('GET', `/v1/certificates/${run.run_id}`);
    // The certificate signs the reason, the policy applied and the gate that decided.
    expect(certificate.body.compliance).toEqual({
      status: 'error', score: 0, policy_ref: 'NIST AI 100-1', reason: run.compliance.reason,
      policy: { fail_on_severity: 'high', must_pass: ['declared'], min_pass_rate: 1, pass_threshold: 0.8 },
      decided_by: { gate: 'nothing_measured', reason: run.compliance.reason },
    });
    const verified = await t.json('GET', `/api/v1/verify/${run.run_id}`);
    expect(verified.body.valid).toBe(true);
    const explained = await t.json('GET', `/api/v1/explain/${run.run_id}`);
    expect(explained.body).toMatchObject({ primary_trigger: null, reason: run.compliance.reason });
  });

  it('a run with a verdict carries no reason; a failed run says it could not complete', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const { run } = await evaluate(t, { scenario: scriptedScenario('fine') });
    expect(run.compliance.reason).toBeUndefined();
    expect(run.error).toBeUndefined();
    expect((await t.json('GET', `/v1/certificates/${run.run_id}`)).body.compliance.reason).toBeUndefined();
    const failed = await evaluate(t, { scenario: scriptedScenario('down', { agent: { adapter: 'http', url: 'https://agent.invalid/run', timeout_ms: 2000 } }) });
    expect(failed.task.status).toBe('failed');
    expect(failed.run.compliance.reason).toMatch(/^the run could not complete: /);
    expect((await t.json('GET', `/v1/certificates/${failed.run.run_id}`)).body.compliance.reason).toBe(failed.run.compliance.reason);
  });
});
