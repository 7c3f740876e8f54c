/**
 * Hostile (issue 25 item 5): `AEH_ENABLED_SHIMS` was bypassed by any `shims:manage` holder storing a `trusted`
 * shim configuration and then supplying its own `initial_state`. Trusting needs the SUPERVISOR-only
 * `shims:trust`, and a shim allowed only through a trusted configuration runs with that configuration's state.
 */
import { describe, it, expect } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';

const SEED = { schema: ['CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)'], rows: { customers: [{ id: 1, name: 'Ana' }, { id: 2, name: 'Ben' }] } };
const HOSTILE = { schema: ['CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)', 'CREATE TABLE loot (x TEXT)'] };

const scenario = (extra: Record<string, unknown> = {}) => ({
  id: 'trusted-config', title: 'Uses a trusted shim configuration', industry: 'Fintech', use_case: 'Reporting', tags: ['shims'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { q: { output: '2 customers.', tool_calls: [{ name: 'sql.query', arguments: { sql: 'SELECT count(*) FROM customers' } }] } } },
  topology: [{ agent: 'Analyst', writes: ['reply'], reads: ['ticket'] }],
  enabled_shims: ['sql'], shim_config: { sql: 'finance-db' },
  tasks: [{ id: 'q', input: 'How many customers?', expected_outcome: [{ target: 'tool_calls', where: { name: 'sql.query' }, property: '[0].result.rows[0][0]', expected: 2 }], metrics: [{ id: 'state_match' }] }],
  ...extra,
});

async function operatorKey(t: TestApp): Promise<string> {
  return (await t.json('POST', '/api/v1/keys', { body: { name: 'shim-operator', roles: ['operator'] } })).body.secret;
}

describe('hostile: trusting a shim configuration (issue 25 item 5)', () => {
  it('an OPERATOR cannot trust a configuration, nor change or delete one a SUPERVISOR trusted', async () => {
    const t = await testApp({ env: { AEH_ENABLED_SHIMS: 'payments' } });
    const operator = await operatorKey(t);
    const trusted = await t.json('PUT', '/api/v1/shims/configs/finance-db', { key: operator, body: { shim: 'sql', initial_state: HOSTILE, trusted: true } });
    expect(trusted.status).toBe(403);
    expect(trusted.body).toMatchObject({ code: 'forbidden', permission: 'shims:trust' });
    // Untrusted, it does not open the shim.
    expect((await t.json('PUT', '/api/v1/shims/configs/finance-db', { key: operator, body: { shim: 'sql', initial_state: HOSTILE } })).status).toBe(200);
    const refused = await t.json('POST', '/api/evaluate', { key: operator, body: { scenario: scenario() } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual(expect.objectContaining({ path: '/enabled_shims/0', message: expect.stringMatching(/AEH_ENABLED_SHIMS/) }));
    // A SUPERVISOR trusts it; the OPERATOR may then neither replace nor delete it.
    const vetted = await t.json('PUT', '/api/v1/shims/configs/finance-db', { body: { shim: 'sql', initial_state: SEED, trusted: true } });
    expect(vetted.body).toMatchObject({ trusted: true, trusted_by: 'static-key' });
    for (const [method, body] of [['PUT', { shim: 'sql', initial_state: HOSTILE, trusted: true }], ['PUT', { shim: 'sql', initial_state: HOSTILE }], ['DELETE', undefined]] as const) {
      const answer = await t.json(method, '/api/v1/shims/configs/finance-db', { key: operator, ...(body ? { body } : {}) });
      expect(answer.status, `${method} ${JSON.stringify(body)}`).toBe(403);
      expect(answer.body.permission).toBe('shims:trust');
    }
    expect((await t.json('GET', '/api/v1/shims/configs/finance-db')).body.initial_state).toEqual(SEED);
    expect((await t.json('GET', '/api/v1/roles/operator')).body.permissions).not.toContain('shims:trust');
  });

  it('a shim allowed only through a trusted configuration runs with its state: the caller\'s own is refused', async () => {
    const t = await testApp({ env: { AEH_ENABLED_SHIMS: 'payments' } });
    const operator = await operatorKey(t);
    expect((await t.json('PUT', '/api/v1/shims/configs/finance-db', { body: { shim: 'sql', initial_state: SEED, trusted: true } })).status).toBe(200);
    const own = await t.json('POST', '/api/evaluate', { key: operator, body: { scenario: scenario({ initial_state: { sql: HOSTILE } }) } });
    expect(own.status).toBe(400);
    expect(own.body.errors).toContainEqual({ path: '/initial_state/sql', message: expect.stringMatching(/only through the trusted configuration "finance-db", which sets its initial state/) });
    expect((await t.json('POST', '/api/evaluate', { key: operator, body: { scenario: scenario() } })).status).toBe(202);
  });

  it('a configuration trusted by an earlier version by someone other than the static key is not trusted until re-saved', async () => {
    const t = await testApp({ env: { AEH_ENABLED_SHIMS: 'payments' } });
    const services = await t.app.ready;
    const legacy = (updatedBy: string) => ({ name: 'finance-db', shim: 'sql', config: {}, initial_state: SEED, trusted: true, updated_at: '2026-01-01T00:00:00.000Z', updated_by: updatedBy });
    await services.store.setJson('shim-configs/finance-db.json', legacy('api-key|someone'));
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: scenario() } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toContainEqual({ path: '/shim_config/sql', message: expect.stringMatching(/marked trusted before trusting needed shims:trust/) });
    await services.store.setJson('shim-configs/finance-db.json', legacy('static-key'));
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: scenario() } })).status).toBe(202);
  });
});
