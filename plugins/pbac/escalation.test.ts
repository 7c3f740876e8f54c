/**
 * Hostile (issue 25 item 2): a holder of `pbac:configure` made itself SUPERVISOR by giving its own role `*`,
 * then minted a supervisor key. Role and claim-mapping edits may not grant what the editor does not hold.
 */
import { describe, it, expect } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import claimsBearer from '../../test/fixtures/claims-bearer-auth.ts';

const bearer = (claims: Record<string, unknown>) => ({ key: null, headers: { Authorization: `Bearer claims.${Buffer.from(JSON.stringify(claims)).toString('base64url')}` } });

async function keyOf(t: TestApp, name: string, body: Record<string, unknown>): Promise<string> {
  const created = await t.json('POST', '/api/v1/keys', { body: { name, ...body } });
  expect(created.status).toBe(201);
  return created.body.secret as string;
}

describe('hostile: PBAC edits never grant beyond the editor (issue 25 item 2)', () => {
  it('an operator holding pbac:configure cannot widen its own role to * and so cannot mint a supervisor key', async () => {
    const t = await testApp();
    const editor = await keyOf(t, 'pbac-editor', { roles: ['operator'], permissions: ['pbac:configure'] });
    const widened = await t.json('PUT', '/api/v1/roles/operator', { key: editor, body: { permissions: ['*'] } });
    expect(widened.status).toBe(403);
    expect(widened.headers.get('content-type')).toMatch(/problem\+json/);
    expect(widened.body).toMatchObject({ code: 'forbidden' });
    expect(widened.body.detail).toMatch(/cannot grant what it does not hold: \*/);
    expect((await t.json('GET', '/api/v1/roles/operator')).body.permissions).not.toContain('*');
    expect((await t.json('POST', '/api/v1/keys', { key: editor, body: { name: 'escalated', roles: ['supervisor'] } })).status).toBe(403);
    // Nor through an area wildcard or a single node it lacks, on its role or on a new one.
    for (const [role, permissions] of [['operator', ['runs:*']], ['operator', ['identity:manage']], ['mine', ['registry:admin']]] as const) {
      const answer = await t.json('PUT', `/api/v1/roles/${role}`, { key: editor, body: { permissions } });
      expect(answer.status, `${role} ${permissions}`).toBe(403);
      expect(answer.body.detail).toContain(permissions[0]);
    }
    const refused = await t.json('GET', '/api/v1/audit?limit=20');
    expect(refused.body.items).toContainEqual(expect.objectContaining({ path: '/api/v1/roles/operator', outcome: 'refused', status: 403 }));
  });

  it('allows what the editor holds: narrowing, keeping nodes it lacks, and granting its own nodes', async () => {
    const t = await testApp();
    const editor = await keyOf(t, 'pbac-editor', { roles: ['operator'], permissions: ['pbac:configure'] });
    const auditor = (await t.json('GET', '/api/v1/roles/auditor')).body.permissions as string[];
    // The auditor role keeps runs:sign and audit:read, which the editor lacks: keeping is not granting.
    expect((await t.json('PUT', '/api/v1/roles/auditor', { key: editor, body: { permissions: [...auditor, 'doctor:read'] } })).status).toBe(200);
    expect((await t.json('PUT', '/api/v1/roles/auditor', { key: editor, body: { permissions: auditor.filter((node) => node !== 'runs:sign') } })).status).toBe(200);
    // Taken away, runs:sign is a grant again.
    expect((await t.json('PUT', '/api/v1/roles/auditor', { key: editor, body: { permissions: auditor } })).status).toBe(403);
    expect((await t.json('PUT', '/api/v1/roles/ci', { key: editor, body: { permissions: ['evaluations:launch', 'runs:read'] } })).status).toBe(200);
    // `*` widens only for a holder of `*`.
    expect((await t.json('PUT', '/api/v1/roles/ci', { body: { permissions: ['*'] } })).status).toBe(200);
  });

  it('a claim mapping cannot hand a role with more than the editor holds to a group', async () => {
    const t = await testApp({ plugins: [claimsBearer] });
    const editor = await keyOf(t, 'claims-editor', { roles: ['operator'], permissions: ['pbac:configure'] });
    const mapped = await t.json('PUT', '/api/v1/roles-claims', { key: editor, body: { groups: { attackers: 'supervisor' } } });
    expect(mapped.status).toBe(403);
    expect(mapped.body.detail).toMatch(/attackers.*supervisor/);
    expect((await t.json('GET', '/api/v1/keys', bearer({ sub: 'eve', groups: ['attackers'] }))).status).toBe(403);
    expect((await t.json('PUT', '/api/v1/roles-claims', { key: editor, body: { groups: { testers: 'operator' } } })).status).toBe(200);
    expect((await t.json('PUT', '/api/v1/roles-claims', { key: editor, body: { groups: { testers: 'operator', auditors: 'auditor' } } })).status).toBe(403);
    // A SUPERVISOR maps a group to the auditor role; renaming the claim re-points that mapping, which the editor could not make.
    expect((await t.json('PUT', '/api/v1/roles-claims', { body: { groups: { testers: 'operator', auditors: 'auditor' } } })).status).toBe(200);
    const renamed = await t.json('PUT', '/api/v1/roles-claims', { key: editor, body: { groups_claim: 'nickname', groups: { testers: 'operator', auditors: 'auditor' } } });
    expect(renamed.status).toBe(403);
    expect(renamed.body.detail).toMatch(/auditors/);
    // Unchanged mappings it could not make stay where they are when it edits the others.
    expect((await t.json('PUT', '/api/v1/roles-claims', { key: editor, body: { groups: { testers: 'viewer', auditors: 'auditor' } } })).status).toBe(200);
  });
});
