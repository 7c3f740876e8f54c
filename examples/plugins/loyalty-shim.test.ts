/** The example shim passes the shim conformance suite and works end to end when loaded from AEH_PLUGINS. */
import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testShim } from '../../testing/index.ts';
import { buildNodeApp } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { TEST_KEY } from '../../test/helpers.ts';
import { loyaltyShim } from './loyalty-shim.ts';

testShim(loyaltyShim as never, {
  seed: { members: { 'm-17': 1200 } },
  steps: [
    { action: 'balance', params: { member: 'm-17' } },
    { action: 'redeem', params: { member: 'm-17', points: 5000, reason: 'flight' }, error: 'insufficient_funds' },
    { action: 'redeem', params: { member: 'm-17', points: 1000, reason: 'flight' } },
    { action: 'earn', params: { member: 'm-99', points: 10, reason: 'x' }, error: 'not_found' },
    { action: 'earn', params: { member: 'm-17', points: 50, reason: 'survey' } },
  ],
});

describe('example: loyalty shim loaded from AEH_PLUGINS', () => {
  it('lists it and runs a scenario whose agent redeems points through it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-shim-plugin-'));
    const plugin = join(fileURLToPath(new URL('.', import.meta.url)), 'loyalty-shim.ts');
    const { app } = await buildNodeApp({ DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory', PROJECT_ROOT: root, AEH_PLUGINS: plugin }, root, silentLogger);
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await app.request(path, { method, headers: { 'X-API-Key': TEST_KEY, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return { status: response.status, body: await response.json() as any };
    };
    expect((await call('GET', '/api/v1/shims')).body.items.map((shim: { name: string }) => shim.name)).toContain('loyalty');
    const scenario = {
      id: 'loyalty-redeem', title: 'Redeem points', industry: 'Retail', use_case: 'Loyalty', tags: ['shims'], policy_ref: 'NIST AI 100-1',
      agent: { adapter: 'scripted', replies: { t1: { output: 'Redeemed 1000 points.', tool_calls: [{ name: 'loyalty.redeem', arguments: { member: 'm-17', points: 1000, reason: 'flight' } }] } } },
      topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
      enabled_shims: ['loyalty'], initial_state: { loyalty: { members: { 'm-17': 1200 } } },
      tasks: [{ id: 't1', input: 'Redeem 1000 points for member m-17.', expected_outcome: [{ target: 'shim:loyalty', property: 'members.m-17', expected: 200 }], metrics: [{ id: 'state_match' }] }],
    };
    const accepted = await call('POST', '/api/evaluate', { scenario });
    expect(accepted.status).toBe(202);
    let task: any;
    for (let i = 0; i < 200; i++) {
      task = (await call('GET', accepted.body.status_url)).body;
      if (task.status === 'succeeded' || task.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const run = (await call('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
    expect(run.compliance.status).toBe('pass');
    await app.close();
  });
});
