/**
 * issue 18 item 2: the role → permission table and the claim mappings are data a SUPERVISOR reads and changes
 * through the API, validated, versioned, audited, and in force on every instance within seconds.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from './helpers.ts';
import claimsBearer from './fixtures/claims-bearer-auth.ts';

const bearer = (claims: Record<string, unknown>) => ({ Authorization: `Bearer claims.${Buffer.from(JSON.stringify(claims)).toString('base64url')}` });
const keyWith = async (t: TestApp, roles: string[]) => (await t.json('POST', '/api/v1/keys', { body: { name: `k-${roles.join('-')}-${Math.random().toString(36).slice(2, 8)}`, roles } })).body.secret as string;

describe('PBAC configuration', () => {
  it('reads the contract table, changes a role, and the change is in force at once on this instance', async () => {
    const t = await testApp();
    const table = await t.json('GET', '/api/v1/roles');
    expect(table.body).toMatchObject({ version: 0, roles: { supervisor: ['*'] }, claims: { groups_claim: 'groups', groups: {} } });
    expect(table.body.roles.viewer).not.toContain('audit:read');
    const viewer = await keyWith(t, ['viewer']);
    expect((await t.json('GET', '/api/v1/audit', { key: viewer })).status).toBe(403);
    const changed = await t.json('PUT', '/api/v1/roles/viewer', { body: { permissions: [...table.body.roles.viewer, 'audit:read'], version: 0 } });
    expect(changed.status).toBe(200);
    expect(changed.body.version).toBe(1);
    expect((await t.json('GET', '/api/v1/audit', { key: viewer })).status).toBe(200);
    const audit = await t.json('GET', '/api/v1/audit?limit=20');
    expect(audit.body.items).toContainEqual(expect.objectContaining({ action: 'pbac.update', principal: 'static-key', outcome: 'ok' }));
    expect((await t.json('GET', '/api/v1/roles-versions/1')).body.roles.viewer).toContain('audit:read');
    expect((await t.json('GET', '/api/v1/roles/viewer')).body).toMatchObject({ role: 'viewer', version: 1 });
  });

  it('is in force on another instance sharing the store within the refresh interval', async () => {
    const env = { AEH_STORAGE: 'fs', AEH_DATA_DIR: mkdtempSync(join(tmpdir(), 'aeh-pbac-')), AEH_PBAC_REFRESH_MS: '50' };
    const [a, b] = [await testApp({ env }), await testApp({ env })];
    const viewer = await keyWith(a, ['viewer']);
    expect((await b.json('GET', '/api/v1/doctor', { key: viewer })).status).toBe(403);
    await a.json('PUT', '/api/v1/roles/viewer', { body: { permissions: ['scenarios:read', 'runs:read', 'system:read', 'doctor:read'] } });
    let status = 0;
    const deadline = Date.now() + 60_000;
    while (status !== 200 && Date.now() < deadline) {
      status = (await b.json('GET', '/api/v1/doctor', { key: viewer })).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(200);
    expect((await b.json('GET', '/api/v1/metrics', { key: viewer })).status).toBe(403); // metrics:read was taken away
  });

  it('maps identity-provider groups to roles as data', async () => {
    const t = await testApp({ plugins: [claimsBearer] });
    const qa = bearer({ sub: 'ann', groups: ['QA-Engineers'] });
    expect((await t.json('POST', '/api/evaluate', { key: null, headers: qa, body: {} })).status).toBe(403);
    const mapped = await t.json('PUT', '/api/v1/roles-claims', { body: { groups: { 'qa-engineers': 'operator' } } });
    expect(mapped.status).toBe(200);
    expect((await t.json('POST', '/api/evaluate', { key: null, headers: qa, body: {} })).status).toBe(400); // allowed; the body is what is wrong
    await t.json('PUT', '/api/v1/roles-claims', { body: { groups_claim: 'teams', groups: { 'qa-engineers': 'operator' } } });
    expect((await t.json('POST', '/api/evaluate', { key: null, headers: qa, body: {} })).status).toBe(403);
    expect((await t.json('POST', '/api/evaluate', { key: null, headers: bearer({ sub: 'ann', teams: 'qa-engineers' }), body: {} })).status).toBe(400);
  });

  it('refuses unknown permissions, a supervisor lock-out, stale versions and bad roles, and needs pbac:configure', async () => {
    const t = await testApp();
    const unknown = await t.json('PUT', '/api/v1/roles/viewer', { body: { permissions: ['runs:read', 'runs:delete_everything'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ path: '/permissions/1' });
    const lockout = await t.json('PUT', '/api/v1/roles/supervisor', { body: { permissions: ['runs:read'] } });
    expect(lockout.status).toBe(409);
    expect(lockout.body.detail).toMatch(/supervisor role must keep pbac:configure/);
    expect((await t.json('PUT', '/api/v1/roles/supervisor', { body: { permissions: ['pbac:*', 'identity:*', 'runs:read'] } })).status).toBe(200);
    expect((await t.json('PUT', '/api/v1/roles/viewer', { body: { permissions: ['runs:read'], version: 0 } })).status).toBe(409);
    expect((await t.json('PUT', '/api/v1/roles/release-manager', { body: { permissions: ['runs:read', 'runs:sign'] } })).status).toBe(200);
    expect((await t.json('PUT', '/api/v1/roles-claims', { body: { groups: { release: 'release-manager', other: 'no-such-role' } } })).status).toBe(400);
    await t.json('PUT', '/api/v1/roles-claims', { body: { groups: { release: 'release-manager' } } });
    expect((await t.json('DELETE', '/api/v1/roles/release-manager')).status).toBe(409); // still mapped
    await t.json('PUT', '/api/v1/roles-claims', { body: { groups: {} } });
    expect((await t.json('DELETE', '/api/v1/roles/release-manager')).status).toBe(200);
    expect((await t.json('DELETE', '/api/v1/roles/viewer')).status).toBe(400);
    expect((await t.json('PUT', '/api/v1/roles/Bad..Role', { body: { permissions: [] } })).status).toBe(404);
    expect((await t.json('GET', '/api/v1/roles/__proto__')).status).toBe(404);
    const operator = await keyWith(t, ['operator']);
    expect((await t.json('GET', '/api/v1/roles', { key: operator })).status).toBe(403);
  });
});
