import { describe, it, expect } from 'vitest';
import { testApp } from '../../test/helpers.ts';
import { AGENTDOJO_SUITES } from './agentdojo/index.ts';

describe('shims: GET /api/v1/shims', () => {
  it('lists the bundled shims (the ten general ones, the τ-bench domains, the AgentDojo suites) with their actions and schemas, for shims:manage', async () => {
    const t = await testApp();
    const { status, body } = await t.json('GET', '/api/v1/shims');
    expect(status).toBe(200);
    expect(body.items.map((shim: { name: string }) => shim.name)).toEqual(['sql', 'orders', 'payments', 'email', 'calendar', 'crm', 'tickets', 'kb', 'kv', 'http_api', 'tau_retail', 'tau_airline', 'tau_telecom', ...AGENTDOJO_SUITES.map((suite) => `agentdojo_${suite.suite}`)]);
    const payments = body.items.find((shim: { name: string }) => shim.name === 'payments');
    expect(payments.actions.find((action: { name: string }) => action.name === 'create_charge')).toMatchObject({ read_only: false, parameters: { type: 'object', required: ['customer', 'amount'] } });
    expect(payments.initial_state_schema.type).toBe('object');
    expect((await t.json('GET', '/api/v1/shims', { key: null })).status).toBe(401);
  });
});

describe('shims: named configurations (issue 15 item 9)', () => {
  const base = {
    id: 'named-config', title: 'Uses a named shim configuration', industry: 'Fintech', use_case: 'Reporting', tags: ['shims'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted', replies: { q: { output: '2 customers.', tool_calls: [{ name: 'sql.query', arguments: { sql: 'SELECT count(*) FROM customers' } }] } } },
    topology: [{ agent: 'Analyst', writes: ['reply'], reads: ['ticket'] }],
    enabled_shims: ['sql'], shim_config: { sql: 'finance-db' },
    tasks: [{ id: 'q', input: 'How many customers?', expected_outcome: [{ target: 'tool_calls', where: { name: 'sql.query' }, property: '[0].result.rows[0][0]', expected: 2 }], metrics: [{ id: 'state_match' }] }],
  };

  it('stores, lists, serves and deletes configurations; scenarios use them by name', async () => {
    const t = await testApp({ env: { AEH_ENABLED_SHIMS: 'payments' } });
    const seed = { schema: ['CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)'], rows: { customers: [{ id: 1, name: 'Ana' }, { id: 2, name: 'Ben' }] } };
    // Not allowed by AEH_ENABLED_SHIMS, and no configuration yet.
    const refused = await t.json('POST', '/api/evaluate', { body: { scenario: base } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: any) => error.path)).toContain('/shim_config/sql');
    const put = await t.json('PUT', '/api/v1/shims/configs/finance-db', { body: { shim: 'sql', description: 'Finance warehouse sample', initial_state: seed, trusted: true } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'finance-db', shim: 'sql', trusted: true, updated_by: 'static-key' });
    expect((await t.json('GET', '/api/v1/shims/configs')).body.items.map((item: any) => item.name)).toEqual(['finance-db']);
    // Trusted: usable although AEH_ENABLED_SHIMS lists only payments; its initial state fills in the scenario's.
    const accepted = await t.json('POST', '/api/evaluate', { body: { scenario: base } });
    expect(accepted.status).toBe(202);
    let run: any;
    for (let i = 0; i < 200; i++) {
      run = (await t.json('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
      if (run.status === 'succeeded' || run.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(run.compliance.status).toBe('pass');
    expect((await t.request('DELETE', '/api/v1/shims/configs/finance-db')).status).toBe(204);
    expect((await t.json('GET', '/api/v1/shims/configs/finance-db')).status).toBe(404);
  });

  it('refuses unknown shims, states the shim refuses, bad names and callers without shims:manage', async () => {
    const t = await testApp();
    expect((await t.json('PUT', '/api/v1/shims/configs/x', { body: { shim: 'nope' } })).status).toBe(400);
    const badState = await t.json('PUT', '/api/v1/shims/configs/x', { body: { shim: 'sql', initial_state: { schema: ['CREATE TABLEX'] } } });
    expect(badState.status).toBe(400);
    expect(badState.body.errors[0].path).toBe('/initial_state');
    expect((await t.json('PUT', '/api/v1/shims/configs/Bad..Name', { body: { shim: 'kv' } })).status).toBe(404);
    expect((await t.json('GET', '/api/v1/shims/configs', { key: null })).status).toBe(401);
    const other = await t.json('PUT', '/api/v1/shims/configs/kv-config', { body: { shim: 'kv', config: {} } });
    expect(other.status).toBe(200);
    const mismatch = await t.json('POST', '/api/evaluate', { body: { scenario: { ...base, shim_config: { sql: 'kv-config' } } } });
    expect(mismatch.body.errors).toContainEqual({ path: '/shim_config/sql', message: expect.stringMatching(/is for shim "kv"/) });
  });
});
