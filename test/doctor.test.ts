import { describe, it, expect } from 'vitest';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { testApp, TEST_KEY } from './helpers.ts';
import { type StorageDriver } from '../core/storage.ts';
import { createStore } from '../plugins/storage/unstorage-store.ts';
import type { Plugin } from '../core/plugin.ts';
import authStaticKey from '../plugins/auth/static-key.ts';
import system from '../plugins/system/index.ts';
import doctor from '../plugins/doctor/index.ts';

function storagePlugin(driver: StorageDriver): Plugin {
  return { name: `test-storage-${driver.name}`, setup: (host) => void host.storageDrivers.register(driver) };
}

const brokenWrites: StorageDriver = {
  name: 'broken',
  accepts: () => true,
  create() {
    const raw = createStorage({ driver: memoryDriver() });
    return createStore('broken', raw, {
      writeAtomic: async () => {
        throw new Error('read-only file system');
      },
    });
  },
};

const almostFull: StorageDriver = {
  name: 'full',
  accepts: () => true,
  create: () => createStore('full', createStorage({ driver: memoryDriver() }), { freeBytes: async () => 10 * 1024 * 1024 }),
};

async function checkOf(t: Awaited<ReturnType<typeof testApp>>, id: string, key = TEST_KEY) {
  const res = await t.json('GET', '/api/v1/doctor', { key });
  expect(res.status).toBe(200);
  const check = res.body.checks.find((c: { id: string }) => c.id === id);
  expect(check, `check ${id} present`).toBeTruthy();
  return { overall: res.body.status as string, check };
}

describe('doctor: GET /api/v1/doctor', () => {
  it('needs doctor:read', async () => {
    const t = await testApp();
    expect((await t.json('GET', '/api/v1/doctor', { key: null })).status).toBe(401);
  });

  it('reports every check with a status and the worst one overall', async () => {
    const t = await testApp();
    const res = await t.json('GET', '/api/v1/doctor');
    expect(res.status).toBe(200);
    const ids = res.body.checks.map((c: { id: string }) => c.id);
    for (const id of ['api_key', 'storage', 'plugins', 'catalog', 'llm_provider', 'jail_root', 'disk_space']) expect(ids).toContain(id);
    const rank = { ok: 0, warn: 1, fail: 2 } as Record<string, number>;
    const worst = res.body.checks.reduce((w: string, c: { status: string }) => (rank[c.status] > rank[w] ? c.status : w), 'ok');
    expect(res.body.status).toBe(worst);
    for (const check of res.body.checks) if (check.status !== 'ok') expect(check.hint).toBeTruthy();
    expect(JSON.stringify(res.body)).not.toContain(TEST_KEY);
  });

  it('warns about a weak API key and passes a strong one', async () => {
    const weak = await checkOf(await testApp(), 'api_key');
    expect(weak.check.status).toBe('warn');
    const strongKey = '3f9a0c1d2b7e4f6a8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d';
    const strong = await checkOf(await testApp({ env: { DASHBOARD_API_KEY: strongKey } }), 'api_key', strongKey);
    expect(strong.check.status).toBe('ok');
  });

  it('fails storage when a write cannot be read back', async () => {
    const t = await testApp({ only: [storagePlugin(brokenWrites), authStaticKey, system, doctor] });
    const { overall, check } = await checkOf(t, 'storage');
    expect(check.status).toBe('fail');
    expect(check.message).toContain('read-only');
    expect(overall).toBe('fail');
  });

  it('fails plugins when no agent adapter or metric is loaded', async () => {
    const t = await testApp({ only: [storagePlugin(almostFull), authStaticKey, system, doctor] });
    expect((await checkOf(t, 'plugins')).check.status).toBe('fail');
  });

  it('fails disk space when the data directory is nearly full', async () => {
    const t = await testApp({ only: [storagePlugin(almostFull), authStaticKey, system, doctor] });
    const { check } = await checkOf(t, 'disk_space');
    expect(check.status).toBe('fail');
    expect(check.details.free_bytes).toBe(10 * 1024 * 1024);
  });

  it('warns when no language-model provider is configured and passes when one is', async () => {
    expect((await checkOf(await testApp(), 'llm_provider')).check.status).toBe('warn');
    const configured = await testApp({ env: { AEH_LLM_BASE_URL: 'http://llm.test/v1', AEH_LLM_MODEL: 'judge-1' } });
    expect((await checkOf(configured, 'llm_provider')).check.status).toBe('ok');
  });

  it('fails the jail root when PROJECT_ROOT does not exist', async () => {
    const t = await testApp({ env: { PROJECT_ROOT: '/nonexistent/aeh-project' } });
    expect((await checkOf(t, 'jail_root')).check.status).toBe('fail');
  });
});
