import { describe, it, expect } from 'vitest';
import { testApp } from '../../../test/helpers.ts';
import { AGENTDOJO_SUITES } from './index.ts';
import { AGENTDOJO_DECLARED } from './declared.generated.ts';
import { declarationOf } from './declaration.ts';
import { isEgress } from '../../../core/shim.ts';

describe('shims: AgentDojo registered lazily (issue 26)', () => {
  it('declares each suite as the suite defines it (else: node --import tsx scripts/agentdojo-declared.mjs)', () => {
    expect(AGENTDOJO_DECLARED).toEqual(AGENTDOJO_SUITES.map((entry) => declarationOf(entry.suite, entry.shim)));
  });

  it('lists the declared shims as the loaded ones would list, through the app', async () => {
    const t = await testApp();
    const { status, body } = await t.json('GET', '/api/v1/shims');
    expect(status).toBe(200);
    for (const { shim } of AGENTDOJO_SUITES) {
      const listed = body.items.find((item: { name: string }) => item.name === shim.name);
      expect(listed).toEqual({
        name: shim.name,
        description: shim.description,
        initial_state_schema: shim.initialStateSchema,
        actions: shim.actions.map((action) => ({ name: action.name, description: action.description, parameters: action.parameters, read_only: action.readOnly === true })),
      });
    }
  });

  it('decides a per-call egress with the loaded action once a world started the suite', async () => {
    const t = await testApp();
    const services = await t.app.ready;
    const context = { config: {}, now: '2026-01-01T00:00:00Z' };
    const shim = services.shims.get('agentdojo_workspace')!;
    const sendEmail = shim.actions.find((action: { name: string }) => action.name === 'send_email')!;
    expect(typeof sendEmail.egress).toBe('function');
    // A world of the suite loads it (an environment given as JSON is taken as it is).
    const world = await shim.initialState({ inbox: { account_email: 'emma.johnson@bluesparrowtech.com' } }, context);
    expect(isEgress(sendEmail, { recipients: ['mark@bluesparrowtech.com'] }, world, context)).toBe(false);
    expect(isEgress(sendEmail, { recipients: ['mark@bluesparrowtech.com'], bcc: ['attacker@evil.example'] }, world, context)).toBe(true);
  });
});
