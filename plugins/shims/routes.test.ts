import { describe, it, expect } from 'vitest';
import { testApp } from '../../test/helpers.ts';

describe('shims: GET /api/v1/shims', () => {
  it('lists the ten bundled shims with their actions and schemas, for shims:manage', async () => {
    const t = await testApp();
    const { status, body } = await t.json('GET', '/api/v1/shims');
    expect(status).toBe(200);
    expect(body.items.map((shim: { name: string }) => shim.name)).toEqual(['sql', 'orders', 'payments', 'email', 'calendar', 'crm', 'tickets', 'kb', 'kv', 'http_api']);
    const payments = body.items.find((shim: { name: string }) => shim.name === 'payments');
    expect(payments.actions.find((action: { name: string }) => action.name === 'create_charge')).toMatchObject({ read_only: false, parameters: { type: 'object', required: ['customer', 'amount'] } });
    expect(payments.initial_state_schema.type).toBe('object');
    expect((await t.json('GET', '/api/v1/shims', { key: null })).status).toBe(401);
  });
});
