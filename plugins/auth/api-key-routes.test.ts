/**
 * Hostile (issue 25 item 9): a key holding `identity:manage` but not `*` revoked a SUPERVISOR's key. Revoking
 * needs at least the grants of the key revoked.
 */
import { describe, it, expect } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';

async function keyOf(t: TestApp, name: string, body: Record<string, unknown>, key?: string) {
  const created = await t.json('POST', '/api/v1/keys', { body: { name, ...body }, ...(key ? { key } : {}) });
  expect(created.status).toBe(201);
  return created.body as { id: string; secret: string };
}

describe('hostile: revoking a key needs its grants (issue 25 item 9)', () => {
  it('a key manager without * cannot revoke a supervisor key, nor any key holding what it lacks', async () => {
    const t = await testApp();
    const supervisor = await keyOf(t, 'root-ops', { roles: ['supervisor'] });
    const operator = await keyOf(t, 'ci-operator', { roles: ['operator'] });
    const manager = await keyOf(t, 'key-manager', { permissions: ['identity:manage', 'runs:read'] });
    for (const victim of [supervisor, operator]) {
      const refused = await t.json('DELETE', `/api/v1/keys/${victim.id}`, { key: manager.secret });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
      expect(refused.body.detail).toMatch(/cannot revoke a key holding what it does not hold/);
      expect((await t.json('GET', `/api/v1/keys/${victim.id}`)).body.revoked_at).toBeUndefined();
      expect((await t.json('GET', '/api/info', { key: victim.secret })).status).toBe(200);
    }
    const audit = await t.json('GET', '/api/v1/audit?limit=10');
    expect(audit.body.items).toContainEqual(expect.objectContaining({ action: 'request', path: `/api/v1/keys/${supervisor.id}`, outcome: 'refused', status: 403 }));
  });

  it('revokes keys whose grants it holds, its own included; a supervisor revokes any', async () => {
    const t = await testApp();
    const manager = await keyOf(t, 'key-manager', { permissions: ['identity:manage', 'runs:read'] });
    const reader = await keyOf(t, 'reader', { permissions: ['runs:read'] }, manager.secret);
    expect((await t.json('DELETE', `/api/v1/keys/${reader.id}`, { key: manager.secret })).body.revoked_by).toMatch(/^api-key\|key-manager/);
    expect((await t.json('GET', '/api/info', { key: reader.secret })).status).toBe(401);
    const supervisor = await keyOf(t, 'root-ops', { roles: ['supervisor'] });
    expect((await t.json('DELETE', `/api/v1/keys/${manager.id}`, { key: supervisor.secret })).status).toBe(200);
    const self = await keyOf(t, 'self', { permissions: ['identity:manage'] });
    expect((await t.json('DELETE', `/api/v1/keys/${self.id}`, { key: self.secret })).status).toBe(200);
  });
});
