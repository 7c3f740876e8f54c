/**
 * The snapshot storage example passes the storage conformance suite, and keeps a run across a restart when
 * loaded the way a user loads it (`AEH_PLUGINS` and `AEH_STORAGE=snapshot:…`).
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pluginHost, testStorage } from '../../testing/index.ts';
import { buildNodeApp } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { TEST_KEY } from '../../test/helpers.ts';
import storageMemory from '../../plugins/storage/memory.ts';
import snapshotStorage from './snapshot-storage.ts';

/** A snapshot store of its own file; `create` builds it as the service does at start. */
function snapshotAt(file: string) {
  const host = pluginHost([storageMemory, snapshotStorage], { env: { AEH_STORAGE: `snapshot:${file}` } });
  return () => host.storageDrivers.get('snapshot')!.create(host.config);
}

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'aeh-example-snapshot-')), 'store.json');

testStorage('snapshot', async () => snapshotAt(freshFile())());

describe('example plugin: snapshot storage', () => {
  it('gives back after close what was stored before, byte for byte', async () => {
    const open = snapshotAt(freshFile());
    const before = await open();
    await before.setJson('runs/r1/run.json', { run_id: 'r1', note: 'ünïcode ✓' });
    await before.setBytes('runs/r1/trace.jsonl', Uint8Array.from({ length: 256 }, (_, index) => index));
    await before.close();
    const after = await open();
    expect(await after.getJson('runs/r1/run.json')).toEqual({ run_id: 'r1', note: 'ünïcode ✓' });
    expect(await after.getBytes('runs/r1/trace.jsonl')).toEqual(Uint8Array.from({ length: 256 }, (_, index) => index));
    await after.close();
  });

  const plugin = join(fileURLToPath(new URL('.', import.meta.url)), 'snapshot-storage.ts');
  const start = (root: string, plugins: string) =>
    buildNodeApp({ DASHBOARD_API_KEY: TEST_KEY, PROJECT_ROOT: root, AEH_STORAGE: 'snapshot:.aeh/store.json', AEH_PLUGINS: plugins }, root, silentLogger);
  const call = async (app: Awaited<ReturnType<typeof start>>['app'], method: string, path: string, body?: unknown) => {
    const response = await app.request(path, { method, headers: { 'X-API-Key': TEST_KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('serves from AEH_STORAGE=snapshot:… and keeps a run across a restart', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-example-snapshot-app-'));
    const first = (await start(root, plugin)).app;
    expect((await call(first, 'GET', '/api/info')).body.storage.driver).toBe('snapshot');
    const scenario = {
      id: 'remembered', title: 'Remembered', industry: 'Fintech', use_case: 'Customer support', tags: ['example'], policy_ref: 'NIST AI 100-1',
      agent: { adapter: 'scripted', replies: { t1: 'Your balance is 42 EUR.' } },
      topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
      tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] }],
    };
    const accepted = await call(first, 'POST', '/api/evaluate', { scenario });
    for (let polls = 0; polls < 500; polls++) {
      if (['succeeded', 'failed'].includes((await call(first, 'GET', accepted.body.status_url)).body.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const run = (await call(first, 'GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
    expect(run.compliance.status).toBe('pass');
    await first.close();

    const second = (await start(root, plugin)).app;
    expect((await call(second, 'GET', `/api/v1/runs/${accepted.body.run_id}`)).body).toEqual(run);
    await second.close();
  });

  it('stops the start naming the loaded drivers when no plugin accepts the value', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-example-snapshot-app-'));
    await expect(start(root, '')).rejects.toThrow(/AEH_STORAGE must be a value a loaded storage driver accepts; none accepts "snapshot:\.aeh\/store\.json" \(loaded drivers: .*memory/);
  });
});
