/**
 * plugin: agent-registry (issue 17 item 1): named agents through `/api/v1/agents`, who may read and change
 * them, what a record may hold (never a secret's value), the checks at save time, and the audit trail.
 */
import { describe, it, expect } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { agentConfigHash } from '../../core/domain/agent-target.ts';

const HTTP_AGENT = { name: 'support-bot', adapter: 'http', options: { url: 'https://agent.example.com/run', timeout_ms: 20000 }, description: 'The support agent', owner: 'team-support' };

async function keyWith(t: TestApp, body: Record<string, unknown>): Promise<string> {
  const created = await t.json('POST', '/api/v1/keys', { body: { name: `k-${Math.random().toString(36).slice(2, 8)}`, ...body } });
  expect(created.status).toBe(201);
  return created.body.secret;
}

describe('plugin: agent-registry', () => {
  it('registers, lists, reads, replaces and removes an agent', async () => {
    const t = await testApp();
    const created = await t.json('POST', '/api/v1/agents', { body: HTTP_AGENT });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/v1/agents/support-bot');
    expect(created.body).toMatchObject({ name: 'support-bot', adapter: 'http', options: HTTP_AGENT.options, secret_envs: [], description: 'The support agent', owner: 'team-support', version: 1, created_by: 'static-key' });
    expect(created.body.config_hash).toBe(agentConfigHash({ adapter: 'http', ...HTTP_AGENT.options }));

    const list = await t.json('GET', '/api/v1/agents');
    expect(list.body.items.map((item: { name: string }) => item.name)).toEqual(['support-bot']);
    expect((await t.json('GET', '/api/v1/agents/support-bot')).body).toEqual(created.body);

    const replaced = await t.json('PUT', '/api/v1/agents/support-bot', { body: { adapter: 'http', options: { url: 'https://agent.example.com/v2' }, version: 1 } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ version: 2, owner: 'team-support', created_at: created.body.created_at, options: { url: 'https://agent.example.com/v2' } });
    expect(replaced.body.config_hash).not.toBe(created.body.config_hash);

    expect((await t.request('DELETE', '/api/v1/agents/support-bot')).status).toBe(204);
    const gone = await t.json('GET', '/api/v1/agents/support-bot');
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toContain('application/problem+json');
  });

  it('keeps names unique (409), refuses stale versions (409), renames (400) and unknown names (404)', async () => {
    const t = await testApp();
    await t.json('POST', '/api/v1/agents', { body: HTTP_AGENT });
    const again = await t.json('POST', '/api/v1/agents', { body: { ...HTTP_AGENT, description: 'another' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
    expect((await t.json('GET', '/api/v1/agents/support-bot')).body.description).toBe('The support agent');
    const stale = await t.json('PUT', '/api/v1/agents/support-bot', { body: { adapter: 'http', options: HTTP_AGENT.options, version: 7 } });
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toContain('version 1');
    const renamed = await t.json('PUT', '/api/v1/agents/support-bot', { body: { name: 'other', adapter: 'http', options: HTTP_AGENT.options } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.errors[0].path).toBe('/name');
    expect((await t.json('PUT', '/api/v1/agents/nobody', { body: { adapter: 'http', options: HTTP_AGENT.options } })).status).toBe(404);
    expect((await t.request('DELETE', '/api/v1/agents/nobody')).status).toBe(404);
  });

  it('lets runs:read list and read, and only registry:admin change (403 naming the permission), audited', async () => {
    const t = await testApp();
    await t.json('POST', '/api/v1/agents', { body: HTTP_AGENT });
    const viewer = await keyWith(t, { roles: ['viewer'] });
    const operator = await keyWith(t, { roles: ['operator'] });
    expect((await t.json('GET', '/api/v1/agents', { key: viewer })).body.items).toHaveLength(1);
    expect((await t.json('GET', '/api/v1/agents/support-bot', { key: viewer })).status).toBe(200);
    for (const key of [viewer, operator]) {
      const refused = await t.json('POST', '/api/v1/agents', { key, body: { ...HTTP_AGENT, name: 'mine' } });
      expect(refused.status).toBe(403);
      expect(refused.body.permission).toBe('registry:admin');
      expect((await t.json('PUT', '/api/v1/agents/support-bot', { key, body: { adapter: 'scripted' } })).status).toBe(403);
      expect((await t.request('DELETE', '/api/v1/agents/support-bot', { key })).status).toBe(403);
    }
    const supervisor = await keyWith(t, { roles: ['supervisor'] });
    expect((await t.json('PUT', '/api/v1/agents/support-bot', { key: supervisor, body: { adapter: 'scripted', options: { replies: { '*': 'hi' } } } })).status).toBe(200);
    expect((await t.request('DELETE', '/api/v1/agents/support-bot', { key: supervisor })).status).toBe(204);
    const audit = await t.json('GET', '/api/v1/audit?limit=50');
    const actions = audit.body.items.filter((entry: { path: string }) => entry.path.startsWith('/api/v1/agents')).map((entry: { action: string; outcome: string }) => `${entry.action}:${entry.outcome}`);
    // Refusals are logged before the route is known to act: as requests, refused.
    expect(actions).toEqual(expect.arrayContaining(['agent.create:ok', 'request:refused', 'agent.update:ok', 'agent.delete:ok']));
  });

  it('checks options against the adapter\'s own schema, naming the field', async () => {
    const t = await testApp();
    const unknown = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'telepathy' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ path: '/adapter' });
    expect(unknown.body.errors[0].message).toContain('http');
    const noUrl = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'http', options: {} } });
    expect(noUrl.status).toBe(400);
    expect(noUrl.body.errors.map((error: { path: string }) => error.path)).toContain('/options/url');
    const badUrl = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'http', options: { url: 'ftp://agent.example.com' } } });
    expect(badUrl.body.errors.map((error: { path: string }) => error.path)).toContain('/options/url');
    const nested = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'http', options: { url: 'https://a.example.com', adapter: 'openai' } } });
    expect(nested.body.errors.map((error: { path: string }) => error.path)).toContain('/options/adapter');
    const slow = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'http', options: { url: 'https://a.example.com', timeout_ms: 3_000_000 } } });
    expect(slow.body.errors.map((error: { path: string }) => error.path)).toContain('/options/timeout_ms');
    expect((await t.json('GET', '/api/v1/agents')).body.items).toEqual([]);
  });

  it('never stores a secret\'s value: credential headers and key options are refused with a hint; variable names are kept', async () => {
    const t = await testApp({ env: { AEH_AGENT_KEY_ENVS: 'SUPPORT_BOT_TOKEN,MODEL_KEY', SUPPORT_BOT_TOKEN: 'tok-123', MODEL_KEY: 'sk-abc' } });
    const header = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'http', options: { url: 'https://a.example.com', headers: { Authorization: 'Bearer tok-123' } } } });
    expect(header.status).toBe(400);
    expect(header.body.errors[0].path).toBe('/options/headers/Authorization');
    expect(header.body.hint).toContain('header_envs');
    expect(JSON.stringify(header.body)).not.toContain('tok-123');
    const key = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'openai', options: { base_url: 'https://llm.example.com/v1', model: 'm', api_key: 'sk-abc' } } });
    expect(key.status).toBe(400);
    expect(key.body.errors.map((error: { path: string }) => error.path)).toContain('/options/api_key');

    const named = await t.json('POST', '/api/v1/agents', { body: { name: 'support-bot', adapter: 'http', options: { url: 'https://a.example.com', headers: { 'x-team': 'support' }, header_envs: { authorization: 'SUPPORT_BOT_TOKEN' } } } });
    expect(named.status).toBe(201);
    expect(named.body.secret_envs).toEqual(['SUPPORT_BOT_TOKEN']);
    const model = await t.json('POST', '/api/v1/agents', { body: { name: 'model', adapter: 'openai', options: { base_url: 'https://llm.example.com/v1', model: 'm', api_key_env: 'MODEL_KEY' } } });
    expect(model.body.secret_envs).toEqual(['MODEL_KEY']);
    const everything = JSON.stringify((await t.json('GET', '/api/v1/agents')).body);
    expect(everything).not.toContain('tok-123');
    expect(everything).not.toContain('sk-abc');
  });

  it('refuses variables AEH_AGENT_KEY_ENVS does not list, the service\'s own, and unset ones', async () => {
    const t = await testApp({ env: { AEH_AGENT_KEY_ENVS: 'LISTED_BUT_UNSET' } });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ adapter: 'http', options: { url: 'https://a.example.com', header_envs: { authorization: 'NOT_LISTED' } } }, '/options/header_envs/authorization', /AEH_AGENT_KEY_ENVS/],
      [{ adapter: 'http', options: { url: 'https://a.example.com', header_envs: { authorization: 'AWS_SECRET_ACCESS_KEY' } } }, '/options/header_envs/authorization', /never receive/],
      [{ adapter: 'openai', options: { base_url: 'https://llm.example.com/v1', model: 'm', api_key_env: 'DASHBOARD_API_KEY' } }, '/options/api_key_env', /never receive/],
      [{ adapter: 'openai', options: { base_url: 'https://llm.example.com/v1', model: 'm', api_key_env: 'LISTED_BUT_UNSET' } }, '/options/api_key_env', /not set/],
    ];
    for (const [body, path, message] of cases) {
      const refused = await t.json('POST', '/api/v1/agents', { body: { name: 'x', ...body } });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.errors[0].path).toBe(path);
      expect(refused.body.errors[0].message).toMatch(message);
    }
  });

  it('checks addresses with the SSRF guard at save time: the agent URL and a pinned key set\'s URL', async () => {
    const t = await testApp();
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://127.0.0.1:9/agent', 'http://[::ffff:10.0.0.1]/', 'http://0x7f000001/', 'https://user:pw@agent.example.com/']) {
      const refused = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'http', options: { url } } });
      expect(refused.status, url).toBe(400);
      expect(refused.body.code, url).toBe('ssrf_blocked');
      expect(refused.body.errors[0].path).toBe('/options/url');
    }
    const openai = await t.json('POST', '/api/v1/agents', { body: { name: 'x', adapter: 'openai', options: { base_url: 'http://10.1.2.3/v1', model: 'm' } } });
    expect(openai.body.errors[0].path).toBe('/options/base_url');
    const jwks = await t.json('POST', '/api/v1/agents', { body: { ...HTTP_AGENT, signature_key: { identity: 'acme:bot', jwks_url: 'https://192.168.1.5/jwks.json' } } });
    expect(jwks.body.code).toBe('ssrf_blocked');
    expect(jwks.body.errors[0].path).toBe('/signature_key/jwks_url');
    const allowed = await testApp({ env: { AEH_ALLOW_HOSTS: '127.0.0.1' } });
    expect((await allowed.json('POST', '/api/v1/agents', { body: { name: 'local', adapter: 'http', options: { url: 'http://127.0.0.1:9/agent' } } })).status).toBe(201);
  });

  it('pins a public signature key, and refuses a private one', async () => {
    const t = await testApp();
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
    const pinned = await t.json('POST', '/api/v1/agents', { body: { ...HTTP_AGENT, signature_key: { identity: 'acme:bot', jwk } } });
    expect(pinned.status).toBe(201);
    expect(pinned.body.signature_key).toEqual({ identity: 'acme:bot', jwk });
    const secret = await t.json('POST', '/api/v1/agents', { body: { ...HTTP_AGENT, name: 'y', signature_key: { identity: 'acme:bot', jwk: { ...jwk, d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A' } } } });
    expect(secret.status).toBe(400);
    expect(JSON.stringify(secret.body)).not.toContain('nWGxne');
  });
});

describe('plugin: agent-registry, hostile requests', () => {
  it('refuses names that are not names, in the body and in the path', async () => {
    const t = await testApp();
    for (const name of ['../etc', 'A', '', 'x'.repeat(65), 'a/b', 'a\u0000b', '.hidden']) {
      expect((await t.json('POST', '/api/v1/agents', { body: { ...HTTP_AGENT, name } })).status, JSON.stringify(name)).toBe(400);
    }
    for (const path of ['..%2F..%2Fruns', '%2e%2e', 'UPPER', 'a%00b']) {
      expect((await t.json('GET', `/api/v1/agents/${path}`)).status, path).toBe(404);
      expect((await t.request('DELETE', `/api/v1/agents/${path}`)).status, path).toBe(404);
    }
  });

  it('refuses unknown members, oversized options and a non-object options', async () => {
    const t = await testApp();
    expect((await t.json('POST', '/api/v1/agents', { body: { ...HTTP_AGENT, api_key: 'x' } })).status).toBe(400);
    expect((await t.json('POST', '/api/v1/agents', { body: { ...HTTP_AGENT, options: 'https://a.example.com' } })).status).toBe(400);
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`o${index}`, index]));
    expect((await t.json('POST', '/api/v1/agents', { body: { ...HTTP_AGENT, options: { ...HTTP_AGENT.options, ...many } } })).status).toBe(400);
  });

  it('a __proto__ option changes no object but its own', async () => {
    const t = await testApp();
    const raw = `{"name":"proto","adapter":"scripted","options":{"replies":{"*":"hi"},"__proto__":{"polluted":true}}}`;
    const created = await t.request('POST', '/api/v1/agents', { raw, headers: { 'content-type': 'application/json' } });
    expect([201, 400]).toContain(created.status);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
