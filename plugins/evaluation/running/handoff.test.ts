import { describe, it, expect } from 'vitest';
import { createStorage } from 'unstorage';
import { createStore } from '../../storage/unstorage-store.ts';
import { handoffKey, signHandoff, verifyHandoff, assertDigest, HandoffError, HANDOFF_SECRET_KEY, type HandoffState } from './handoff.ts';

const memoryStore = () => createStore('memory', createStorage());
const NOW = Date.UTC(2026, 0, 1);
const state: HandoffState = {
  run_id: 'run_1', task_id: 'task_1', next: 3, total: 9, step: 2, phase: 'running',
  position: { agent: 'Support', index: 0 }, trace: { seq: 12, bytes: 3400, digest: 'ab'.repeat(32) }, scenario_digest: 'cd'.repeat(32),
};
const expected = { now: NOW, runId: 'run_1', taskId: 'task_1' };

describe('core: handoff tokens', () => {
  it('round-trips the state through a signed HS256 token', async () => {
    const key = await handoffKey(memoryStore());
    const token = await signHandoff(state, key, { now: NOW });
    expect(JSON.parse(atob(token.split('.')[0]!))).toEqual({ alg: 'HS256', typ: 'aeh-handoff+jwt' });
    expect(await verifyHandoff(token, key, expected)).toEqual(state);
  });

  it('generates the secret once per store, so every instance on the store shares it', async () => {
    const store = memoryStore();
    const first = await handoffKey(store);
    const token = await signHandoff(state, first, { now: NOW });
    // A second "instance": a new Store object over the same storage.
    const second = await handoffKey(createStore('memory', store.raw));
    expect(await verifyHandoff(token, second, expected)).toEqual(state);
    expect(new TextDecoder().decode((await store.getBytes(HANDOFF_SECRET_KEY))!)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a token signed with another key (forged)', async () => {
    const token = await signHandoff(state, await handoffKey(memoryStore()), { now: NOW });
    await expect(verifyHandoff(token, await handoffKey(memoryStore()), expected)).rejects.toMatchObject({ reason: 'signature' });
  });

  it('refuses a token whose payload was changed (tampered)', async () => {
    const key = await handoffKey(memoryStore());
    const [header, payload, signature] = (await signHandoff(state, key, { now: NOW })).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    claims.state.next = 8;
    const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    await expect(verifyHandoff(tampered, key, expected)).rejects.toBeInstanceOf(HandoffError);
  });

  it('refuses alg "none" and a token for another run', async () => {
    const key = await handoffKey(memoryStore());
    const token = await signHandoff(state, key, { now: NOW });
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'aeh-handoff+jwt' })).toString('base64url')}.${token.split('.')[1]}.`;
    await expect(verifyHandoff(unsigned, key, expected)).rejects.toMatchObject({ reason: 'signature' });
    await expect(verifyHandoff(token, key, { ...expected, runId: 'run_2' })).rejects.toMatchObject({ reason: 'claims' });
    await expect(verifyHandoff('not.a.token', key, expected)).rejects.toMatchObject({ reason: 'signature' });
  });

  it('refuses an expired token', async () => {
    const key = await handoffKey(memoryStore());
    const token = await signHandoff(state, key, { now: NOW, ttlSeconds: 60 });
    expect(await verifyHandoff(token, key, { ...expected, now: NOW + 59_000 })).toEqual(state);
    await expect(verifyHandoff(token, key, { ...expected, now: NOW + 61_000 })).rejects.toMatchObject({ reason: 'expired' });
  });

  it('compares digests without accepting a different one', () => {
    expect(() => assertDigest('trace', 'ab'.repeat(32), 'AB'.repeat(32))).not.toThrow();
    expect(() => assertDigest('trace', 'ab'.repeat(32), 'ac'.repeat(32))).toThrow(HandoffError);
  });
});
