import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { testStorage } from './conformance/storage.ts';
import { createRedisStore } from '../plugins/storage/redis.ts';
import { startRedis, SKIP_REDIS, type RedisServer } from './redis-server.ts';
import { testApp, TEST_KEY } from './helpers.ts';

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
