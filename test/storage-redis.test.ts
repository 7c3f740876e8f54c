import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { testStorage } from '../testing/index.ts';
import { createRedisStore } from '../plugins/storage/redis.ts';
import { startRedis, SKIP_REDIS, type RedisServer } from './redis-server.ts';
import { testApp, TEST_KEY } from './helpers.ts';
import { finishFixtureRun } from './certification-fixtures.ts';
import { keys } from '../core/domain/runs.ts';

let redis: RedisServer | undefined;
let database = 0;
beforeAll(async () => {
  if (!SKIP_REDIS) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

// Each store gets its own key prefix so tests never see each other's keys.
testStorage('redis', async () => createRedisStore(redis!.url, `aeh-test-${++database}`), { skip: SKIP_REDIS });

describe.skipIf(SKIP_REDIS)('storage: redis driver through the app', () => {
  it('serves with AEH_STORAGE=redis:// and reports the driver', async () => {
    const t = await testApp({ env: { AEH_STORAGE: redis!.url } });
    const info = await t.json('GET', '/api/info', { key: TEST_KEY });
    expect(info.status).toBe(200);
    expect(info.body.storage.driver).toBe('redis');
    await t.app.close();
  });

  it('counts atomically across two stores on one server (no lost updates)', async () => {
    const a = await createRedisStore(redis!.url, 'aeh-shared');
    const b = await createRedisStore(redis!.url, 'aeh-shared');
    await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).increment('stats/runs')));
    expect(await a.getJson<number>('stats/runs')).toBe(200);
    const winners = await Promise.all([a.setIfAbsent('locks/job', 'a', 60), b.setIfAbsent('locks/job', 'b', 60)]);
    expect(winners.filter(Boolean)).toHaveLength(1);
    await a.close();
    await b.close();
  });

  it('fails the start with a clear message when Redis is unreachable', async () => {
    await expect(testApp({ env: { AEH_STORAGE: 'redis://user:secret@127.0.0.1:1' } })).rejects.toThrow(/cannot reach Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1/);
  });
});

describe.skipIf(SKIP_REDIS)('storage: redis write generations (change proof for public verify, issue 13)', () => {
  const encoder = new TextEncoder();

  it('moves the generation on every write path, never reuses one, and gives counters and locks no proof', async () => {
    const store = await createRedisStore(redis!.url, `aeh-gen-${++database}`);
    const seen = new Set<string | null>();
    const fingerprint = async (key: string) => {
      const value = await store.fingerprint(key);
      expect(value === null || !seen.has(value), `generation ${value} came back`).toBe(true);
      seen.add(value);
      return value;
    };
    expect(await store.fingerprint('runs/r1/trace.jsonl')).toBeNull();
    await store.setBytes('runs/r1/trace.jsonl', encoder.encode('{"seq":0}\n'));
    const first = await fingerprint('runs/r1/trace.jsonl');
    expect(first).toMatch(/^gen:\d+$/);
    expect(await store.fingerprint('runs/r1/trace.jsonl')).toBe(first);
    await store.append('runs/r1/trace.jsonl', encoder.encode('{"seq":1}\n'));
    await fingerprint('runs/r1/trace.jsonl');
    await store.raw.setItem('runs:r1:trace.jsonl', 'written through unstorage');
    await fingerprint('runs/r1/trace.jsonl');
    // Deleted and written again: a new number, never one a verifier may have remembered.
    await store.remove('runs/r1/trace.jsonl');
    expect(await store.fingerprint('runs/r1/trace.jsonl')).toBeNull();
    await store.setBytes('runs/r1/trace.jsonl', encoder.encode('{"seq":0}\n'));
    await fingerprint('runs/r1/trace.jsonl');
    await store.setBytes('stats/runs', encoder.encode('1'));
    await store.increment('stats/runs');
    expect(await store.fingerprint('stats/runs')).toBeNull();
    await store.setBytes('locks/job', encoder.encode('a'));
    await store.setIfAbsent('locks/job', 'b', 60);
    expect(await store.fingerprint('locks/job')).toBeNull();
    // Generation keys stay out of key listings.
    expect((await store.keys('runs')).sort()).toEqual(['runs/r1/trace.jsonl']);
    await store.close();
  });

  it('public verify on Redis reuses a hash only under the generation and sees an edit at once', async () => {
    const t = await testApp({ env: { AEH_STORAGE: redis!.url } });
    const services = await t.app.ready;
    const runId = await finishFixtureRun(t);
    const get = async () => (await t.json('GET', `/api/v1/verify/${runId}`, { key: null })).body as { valid: boolean; checks: Array<{ id: string; ok: boolean; detail: string }> };
    expect((await get()).valid).toBe(true);
    const reused = await get();
    expect(reused.checks.find((check) => check.id === 'trace_hash')?.detail).toContain('change proof');
    const bytes = new Uint8Array((await services.store.getBytes(keys.trace(runId)))!);
    bytes[3] = bytes[3]! ^ 1;
    await services.store.setBytes(keys.trace(runId), bytes);
    const report = await get();
    expect(report.valid).toBe(false);
    expect(report.checks.filter((check) => !check.ok).map((check) => check.id)).toEqual(['trace_hash']);
    await t.app.close();
  });
});
