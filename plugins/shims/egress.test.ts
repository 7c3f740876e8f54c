import { describe, it, expect } from 'vitest';
import { actionOf, isEgress, type Json, type Shim } from '../../core/shim.ts';
import email from './email.ts';
import httpApi from './http-api.ts';
import tickets from './tickets.ts';
import { BUNDLED_SHIMS } from './index.ts';

const context = (config: Record<string, unknown> = {}) => ({ config, now: '2026-01-01T00:00:00.000Z' });

async function sendIsEgress(to: unknown, config: Record<string, unknown> = {}, address = 'agent@acme.example'): Promise<boolean> {
  const state = await email.initialState({ address }, context(config));
  return isEgress(actionOf(email as unknown as Shim, 'send')!, { to, subject: 's', body: 'b' }, state as Json, context(config));
}

describe('shims: egress declarations (core/shim.ts)', () => {
  it('email.send leaves the world only for a recipient outside its own domains', async () => {
    expect(await sendIsEgress(['hr@acme.example'])).toBe(false);
    expect(await sendIsEgress(['HR@Acme.Example.'])).toBe(false);
    expect(await sendIsEgress(['ops@eu.acme.example'])).toBe(false);
    expect(await sendIsEgress(['drop@evil.example'])).toBe(true);
    expect(await sendIsEgress(['hr@acme.example', 'drop@evil.example'])).toBe(true);
    // A lookalike that ends with the domain's name is not a subdomain of it.
    expect(await sendIsEgress(['x@acme.example.evil.io'])).toBe(true);
    expect(await sendIsEgress(['x@notacme.example'])).toBe(true);
    expect(await sendIsEgress(['no-at-sign'])).toBe(true);
  });

  it('email: shim_config.email.internal_domains adds the company\'s other domains (a list or one)', async () => {
    expect(await sendIsEgress(['cfo@acme-holding.example'], { internal_domains: ['acme-holding.example'] })).toBe(false);
    expect(await sendIsEgress(['cfo@acme-holding.example'], { internal_domains: '@acme-holding.example' })).toBe(false);
    expect(await sendIsEgress(['cfo@acme-holding.example'], { internal_domains: [42] })).toBe(true);
  });

  it('http_api requests always leave the world; a ticket comment only when public', () => {
    expect(isEgress(actionOf(httpApi as unknown as Shim, 'request')!, { method: 'GET', path: '/' }, {}, context())).toBe(true);
    const comment = actionOf(tickets as unknown as Shim, 'add_comment')!;
    expect(isEgress(comment, { ticket_id: 'T-1', text: 'x', public: true }, {}, context())).toBe(true);
    expect(isEgress(comment, { ticket_id: 'T-1', text: 'x', public: false }, {}, context())).toBe(false);
  });

  it('no read-only action of a bundled shim declares egress, and a declaration that throws counts as egress', () => {
    for (const shim of BUNDLED_SHIMS) for (const action of shim.actions) if (action.readOnly) expect(action.egress, `${shim.name}.${action.name}`).toBeUndefined();
    expect(isEgress({ name: 'x', description: 'x', parameters: { type: 'object' }, egress: () => { throw new Error('boom'); } }, {}, {}, context())).toBe(true);
  });
});
