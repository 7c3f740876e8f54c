import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { testApp, type TestApp } from '../helpers.ts';
import { PERMISSION_NODES } from '../../core/permissions.ts';
import type { Plugin } from '../../core/plugin.ts';
import type { AuthManagerInstance } from '../../core/auth-manager.ts';
import { JWKS_URL, jwksOf, makeKeys, mint, oidcEnv, probePlugin, type SigningKey } from './kit.ts';

let key: SigningKey;
const server = setupServer();
beforeAll(async () => {
  const keys = await makeKeys();
  key = keys[0];
  server.listen({ onUnhandledRequest: 'error' });
  server.use(http.get(JWKS_URL, () => HttpResponse.json(jwksOf(keys))));
});
afterAll(() => server.close());

/** The contract's role table, written out independently of core/permissions.ts. */
const READ = ['scenarios:read', 'runs:read', 'runs:export', 'metrics:read', 'taxonomy:read', 'system:read'];
const CONTRACT: Record<string, string[]> = {
  VIEWER: READ,
  AUDITOR: [...READ, 'certificates:verify', 'runs:sign', 'audit:read'],
  OPERATOR: [...READ, 'evaluations:launch', 'scenarios:mutate', 'specs:convert', 'shims:manage', 'catalog:refresh', 'doctor:read'],
  SUPERVISOR: [...PERMISSION_NODES],
};

async function granted(t: TestApp, claims: Record<string, unknown>): Promise<string[]> {
  const token = await mint({ key, claims });
  const allowed: string[] = [];
  for (const node of PERMISSION_NODES) {
    const response = await t.json('GET', `/test/perm/${node.replace(':', '/')}`, { key: null, headers: { authorization: `Bearer ${token}` } });
    if (response.status === 200) allowed.push(node);
    else {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'forbidden', permission: node });
      expect(response.body.detail).toContain(node);
    }
  }
  return allowed.sort();
}

describe('hostile: permissions from claims', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ env: oidcEnv(), plugins: [probePlugin] });
  });

  it.each(Object.keys(CONTRACT))('role %s grants exactly the contract\'s nodes (roles claim, any case)', async (role) => {
    expect(await granted(t, { roles: [role] })).toEqual([...CONTRACT[role]].sort());
    expect(await granted(t, { roles: role.toLowerCase() })).toEqual([...CONTRACT[role]].sort());
  });

  it('merges permissions, scope (nodes and role names) and roles', async () => {
    const nodes = await granted(t, { permissions: ['runs:sign'], scope: 'openid Viewer doctor:read', roles: 'nobody' });
    expect(nodes).toEqual([...READ, 'doctor:read', 'runs:sign'].sort());
  });

  it('honours * and area:* wildcards', async () => {
    expect(await granted(t, { permissions: ['runs:*'] })).toEqual(['runs:cancel-any', 'runs:export', 'runs:read', 'runs:sign']);
    expect(await granted(t, { scope: '*' })).toEqual([...PERMISSION_NODES].sort());
  });

  it('grants nothing for unknown roles, prototype names or malformed claims', async () => {
    expect(await granted(t, { roles: ['constructor', '__proto__', 'toString', 'admin'] })).toEqual([]);
    expect(await granted(t, { scope: 'constructor __proto__', permissions: [{ node: '*' }, 7, null], roles: { SUPERVISOR: true } })).toEqual([]);
    expect(await granted(t, { groups: ['aeh-supervisors'] })).toEqual([]);
  });
});

/** A team's plugin: maps its IdP's `groups` claim through the AuthManager extension point. */
const groupsPlugin: Plugin = {
  name: 'test-groups-mapping',
  overrides: {
    AuthManager: {
      permissionsFromClaims(this: AuthManagerInstance & { __super__: AuthManagerInstance }, claims: Record<string, unknown>) {
        const base = this.__super__.permissionsFromClaims(claims);
        const groups = Array.isArray(claims.groups) ? claims.groups : [];
        const extra = groups.flatMap((group) => (group === 'aeh-auditors' ? this.permissionsOfRole('auditor') ?? [] : group === 'aeh-ci' ? ['evaluations:launch'] : []));
        return [...new Set([...base, ...extra])];
      },
    },
  },
};

describe('hostile: custom claim mapping through the AuthManager extension point', () => {
  it('maps a groups claim in the app that loads the plugin, and only there', async () => {
    const custom = await testApp({ env: oidcEnv(), plugins: [probePlugin, groupsPlugin] });
    expect(await granted(custom, { groups: ['aeh-auditors'] })).toEqual([...CONTRACT.AUDITOR].sort());
    expect(await granted(custom, { groups: ['aeh-ci'], roles: ['viewer'] })).toEqual([...READ, 'evaluations:launch'].sort());
    const plain = await testApp({ env: oidcEnv(), plugins: [probePlugin] });
    expect(await granted(plain, { groups: ['aeh-auditors'] })).toEqual([]);
  });
});
