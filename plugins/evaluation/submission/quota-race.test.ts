/**
 * Hostile (issue 25 item 11): the per-principal queue quota was read-then-write — 40 parallel submissions were
 * 10 accepted against a quota of 3, and a suite's fan-out reached 8. The reservation is atomic: in one process,
 * and across instances sharing Redis.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { scriptedScenario, testMetrics } from '../../../test/evaluation-fixtures.ts';
import { startRedis, SKIP_REDIS } from '../../../test/redis-server.ts';
import type { Plugin } from '../../../core/plugin.ts';
import { stalledAgent } from '../../../test/agent-fixtures.ts';

const stalled = (id: string) => scriptedScenario(id, { agent: { adapter: 'stalled' }, tasks: [{ id: 't1', input: 'balance?', metrics: [{ id: 'probe_contains' }] }] });

async function operator(t: TestApp, name = 'racer'): Promise<string> {
  return (await t.json('POST', '/api/v1/keys', { body: { name, roles: ['operator'] } })).body.secret;
}

function submitAll(apps: TestApp[], key: string, count: number) {
  return Promise.all(Array.from({ length: count }, (_, index) => apps[index % apps.length]!.json('POST', '/api/evaluate', { key, body: { scenario: stalled(`race-${index}`) } })));
}

function tally(answers: Array<{ status: number; body: any }>) {
  expect(answers.every((answer) => answer.status === 202 || (answer.status === 429 && answer.body.code === 'quota_exceeded')), JSON.stringify(answers.map((answer) => answer.status))).toBe(true);
  return answers.filter((answer) => answer.status === 202).length;
}

describe('hostile: the queue quota is reserved atomically (issue 25 item 11)', () => {
  it('40 parallel submissions against a quota of 3 accept exactly 3', async () => {
    const t = await testApp({ plugins: [testMetrics, stalledAgent], env: { AEH_MAX_QUEUED_PER_PRINCIPAL: '3', AEH_CONCURRENCY: '1' } });
    const key = await operator(t);
    expect(tally(await submitAll([t], key, 40))).toBe(3);
    expect((await t.json('GET', '/api/v1/runs?limit=100')).body.items).toHaveLength(3);
    // Another principal is not affected.
    expect((await t.json('POST', '/api/evaluate', { body: { scenario: stalled('other') } })).status).toBe(202);
    await t.app.close();
  });

  it('a suite\'s fan-out never holds more than the quota', async () => {
    const catalog = mkdtempSync(join(tmpdir(), 'aeh-quota-suite-'));
    for (let index = 0; index < 12; index++) writeFileSync(join(catalog, `s${index}.json`), JSON.stringify(stalled(`fan-${index}`)));
    const answers: number[] = [];
    const watch: Plugin = { name: 'quota-watch', setup: (host) => host.on('audit', (entry) => void (entry.action === 'evaluate' && answers.push(entry.status))) };
    const t = await testApp({ plugins: [testMetrics, stalledAgent, watch], env: { AEH_MAX_QUEUED_PER_PRINCIPAL: '3', AEH_CONCURRENCY: '1', AEH_CATALOG_DIRS: catalog } });
    const key = await operator(t, 'fan-out');
    const accepted = await t.json('POST', '/api/v1/suites', { key, body: { scenarios: Array.from({ length: 12 }, (_, index) => `fan-${index}`) } });
    expect(accepted.status).toBe(202);
    // The first run is launched with the request; the launcher's 8 parallel launches find 2 places left, and the
    // 2 launchers that got one try the next pair at once; the 8 refused wait for Retry-After (10 s).
    for (let i = 0; i < 12_000 && answers.length < 11; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(answers.filter((status) => status === 202)).toHaveLength(3);
    expect(answers.filter((status) => status === 429)).toHaveLength(8);
    expect((await t.json('GET', '/api/v1/runs?limit=100')).body.items).toHaveLength(3);
    await t.app.close();
  });
});

describe.skipIf(SKIP_REDIS)('hostile: the queue quota holds across instances sharing Redis (issue 25 item 11)', () => {
  it('40 parallel submissions spread over two instances against a quota of 3 accept exactly 3', async () => {
    const redis = await startRedis();
    const apps: TestApp[] = [];
    try {
      const env = { AEH_STORAGE: redis.url, AEH_DATA_DIR: mkdtempSync(join(tmpdir(), 'aeh-quota-redis-')), AEH_MAX_QUEUED_PER_PRINCIPAL: '3', AEH_CONCURRENCY: '1' };
      apps.push(await testApp({ plugins: [testMetrics, stalledAgent], env }), await testApp({ plugins: [testMetrics, stalledAgent], env }));
      const key = await operator(apps[0]!);
      expect(tally(await submitAll(apps, key, 40))).toBe(3);
    } finally {
      await Promise.allSettled(apps.map((started) => started.app.close()));
      await redis.stop();
    }
  }, 60_000);
});
