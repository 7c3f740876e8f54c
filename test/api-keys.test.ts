/**
 * issue 18 item 1: scoped API keys through the HTTP API — created with a name, roles or permissions and an
 * expiry, the secret shown once, stored as a keyed hash, listed without secrets, revoked at once on every
 * instance sharing the store, and every use attributed to the key's name.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from './helpers.ts';
import { scriptedScenario, testMetrics } from './evaluation-fixtures.ts';
import { testAuthProvider } from '../testing/index.ts';
import { createAuthManagerClass } from '../core/auth-manager.ts';

async function createKey(t: TestApp, body: Record<string, unknown>, key?: string) {
  return t.json('POST', '/api/v1/keys', { body, ...(key ? { key } : {}) });
}

// The provider runs the auth provider conformance suite, against a started app that holds one key of each kind.
let started: Promise<{ t: TestApp; viewer: string; scoped: string }> | undefined;
const app = () => (started ??= (async () => {
  const t = await testApp();
  const viewer = (await createKey(t, { name: 'conformance-viewer', roles: ['viewer'] })).body.secret as string;
  const scoped = (await createKey(t, { name: 'conformance-scoped', permissions: ['runs:read', 'audit:read'] })).body.secret as string;
  return { t, viewer, scoped };
})());
testAuthProvider('api-key', async () => (await app()).t.app.host.authProviders.get('api-key')!, {
  valid: async () => {
    const { viewer, scoped } = await app();
    return [
      { credential: viewer, permissions: ['scenarios:read', 'runs:read', 'runs:export', 'metrics:read', 'taxonomy:read', 'system:read'] },
      { credential: { source: 'x-api-key', value: scoped }, permissions: ['runs:read', 'audit:read'] },
      { credential: { source: 'query', value: scoped }, permissions: ['runs:read', 'audit:read'] },
    ];
  },
  manager: () => new (createAuthManagerClass())({ allowQueryKey: true }),
});

describe('API keys', () => {
  it('a key holds what it was created with, and no more', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const created = await createKey(t, { name: 'ci-reader', roles: ['viewer'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^aeh_k_[a-z0-9]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.body.hash).toBeUndefined();
    expect((await t.json('GET', '/api/scenarios?limit=1', { key: secret })).status).toBe(200);
    expect((await t.json('GET', '/api/info', { key: null, headers: { Authorization: `Bearer ${secret}` } })).status).toBe(200);
    const launch = await t.json('POST', '/api/evaluate', { key: secret, body: { scenario: scriptedScenario('k') } });
    expect(launch.status).toBe(403);
    expect(launch.body.permission).toBe('evaluations:launch');
    const operator = (await createKey(t, { name: 'ci-runner', permissions: ['evaluations:launch', 'runs:read'] })).body.secret;
    expect((await t.json('POST', '/api/evaluate', { key: operator, body: { scenario: scriptedScenario('k2') } })).status).toBe(202);
  });

  it('is listed and read without its secret or hash, and attributed by name in the audit log', async () => {
    const t = await testApp({ plugins: [testMetrics] });
    const { body: made } = await createKey(t, { name: 'nightly', roles: ['operator'] });
    await t.json('POST', '/api/evaluate', { key: made.secret, body: { scenario: scriptedScenario('audited') } });
    const list = await t.json('GET', '/api/v1/keys');
    expect(list.body.items).toEqual([expect.objectContaining({ id: made.id, name: 'nightly', roles: ['operator'], created_by: 'static-key' })]);
    expect(JSON.stringify(list.body)).not.toContain(made.secret.slice(-20));
    expect(JSON.stringify(list.body)).not.toContain('"hash"');
    expect((await t.json('GET', `/api/v1/keys/${made.id}`)).body.prefix).toBe(made.secret.slice(0, 22));
    let used: string | undefined;
    for (let i = 0; i < 12_000 && !used; i++) used = (await t.json('GET', `/api/v1/keys/${made.id}`)).body.last_used_at ?? void (await new Promise((resolve) => setTimeout(resolve, 5)));
    expect(used).toMatch(/^\d{4}-/);
    const audit = await t.json('GET', '/api/v1/audit?limit=10');
    expect(audit.body.items).toContainEqual(expect.objectContaining({ principal: `api-key|nightly#${made.id}`, action: 'evaluate', outcome: 'ok' }));
    expect(audit.body.items).toContainEqual(expect.objectContaining({ principal: 'static-key', action: 'key.create' }));
  });

  it('is stored only as a keyed hash', async () => {
    const data = mkdtempSync(join(tmpdir(), 'aeh-keys-'));
    const t = await testApp({ env: { AEH_STORAGE: 'fs', AEH_DATA_DIR: data } });
    const { body } = await createKey(t, { name: 'hashed', roles: ['viewer'] });
    const files = readdirSync(join(data, 'api-keys'));
    const stored = readFileSync(join(data, 'api-keys', files[0]), 'utf8');
    expect(stored).not.toContain(body.secret.slice(-43));
    expect(JSON.parse(stored).hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a revoked key stops working at once on every instance sharing the store', async () => {
    const data = mkdtempSync(join(tmpdir(), 'aeh-keys-'));
    const env = { AEH_STORAGE: 'fs', AEH_DATA_DIR: data };
    const [a, b] = [await testApp({ env }), await testApp({ env })];
    const { body } = await createKey(a, { name: 'shared', roles: ['viewer'] });
    expect((await b.json('GET', '/api/info', { key: body.secret })).status).toBe(200);
    expect((await a.json('DELETE', `/api/v1/keys/${body.id}`)).body.revoked_at).toBeTruthy();
    const refused = await b.json('GET', '/api/info', { key: body.secret });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/"shared" was revoked/);
    // The name is free again.
    expect((await createKey(a, { name: 'shared', roles: ['viewer'] })).status).toBe(201);
  });

  it('an expired key is refused', async () => {
    let now = Date.parse('2026-11-24T10:00:00Z');
    const t = await testApp({ capabilities: { now: () => now } });
    const { body } = await createKey(t, { name: 'short-lived', roles: ['viewer'], expires_at: '2026-11-24T11:00:00Z' });
    expect((await t.json('GET', '/api/info', { key: body.secret })).status).toBe(200);
    now = Date.parse('2026-11-24T11:00:01Z');
    const refused = await t.json('GET', '/api/info', { key: body.secret });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/expired/);
  });

  it('refuses bad requests with a clear 4xx and never grants beyond its creator', async () => {
    const t = await testApp();
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ name: 'x' }, 400, /roles or permissions/],
      [{ name: '../etc', roles: ['viewer'] }, 400, /name/],
      [{ name: 'a', roles: ['root'] }, 400, /roles/],
      [{ name: 'a', permissions: ['launch:everything'] }, 400, /permissions/],
      [{ name: 'a', roles: ['viewer'], expires_at: '2001-01-01T00:00:00Z' }, 400, /future/],
      [{ name: 'a', roles: ['viewer'], expires_at: '2099-01-01T00:00:00Z' }, 400, /five years/],
      [{ name: 'a', roles: ['viewer'], secret: 'mine' }, 400, /secret/],
    ];
    for (const [body, status, detail] of cases) {
      const answer = await createKey(t, body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(JSON.stringify(answer.body), JSON.stringify(body)).toMatch(detail);
    }
    await createKey(t, { name: 'dup', roles: ['viewer'] });
    expect((await createKey(t, { name: 'DUP', roles: ['viewer'] })).status).toBe(409);
    // A key manager without launch rights cannot mint a key that launches.
    const manager = (await createKey(t, { name: 'key-admin', permissions: ['identity:manage', 'runs:read'] })).body.secret;
    const escalation = await createKey(t, { name: 'sneaky', roles: ['operator'] }, manager);
    expect(escalation.status).toBe(403);
    expect(escalation.body.detail).toMatch(/cannot grant more than its creator holds/);
    expect((await createKey(t, { name: 'reader', permissions: ['runs:read'] }, manager)).status).toBe(201);
    // Viewers cannot manage keys at all.
    const viewer = (await createKey(t, { name: 'v', roles: ['viewer'] })).body.secret;
    expect((await t.json('GET', '/api/v1/keys', { key: viewer })).status).toBe(403);
  });

  it('answers 401, never 500, for malformed, forged and unknown keys', async () => {
    const t = await testApp();
    const { body } = await createKey(t, { name: 'real', roles: ['viewer'] });
    const forged = `${body.secret.slice(0, -4)}AAAA`;
    const unknown = `aeh_k_0000000000000000_${'A'.repeat(43)}`;
    for (const credential of ['aeh_k_', 'aeh_k_x', `aeh_k_${'z'.repeat(5000)}`, forged, unknown]) {
      const answer = await t.json('GET', '/api/info', { key: null, headers: { 'X-API-Key': credential } });
      expect(answer.status, credential.slice(0, 30)).toBe(401);
      expect(JSON.stringify(answer.body)).not.toContain(body.secret.slice(-20));
    }
    expect((await t.json('GET', `/api/info?apiKey=${encodeURIComponent(`${body.secret}\u0000`)}`, { key: null })).status).toBe(401);
    expect((await t.json('GET', '/api/v1/keys/..%2F..%2Fetc')).status).toBe(404);
    expect((await t.json('DELETE', '/api/v1/keys/0000000000000000')).status).toBe(404);
  });
});
