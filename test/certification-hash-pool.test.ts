import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from './helpers.ts';
import { finishFixtureRun } from './certification-fixtures.ts';
import { keys } from '../core/domain/runs.ts';
import type { Certificate } from '../core/domain/certificate.ts';
import type { Plugin } from '../core/plugin.ts';
import { createFsStore } from '../plugins/storage/fs.ts';
import type { HashPoolOptions } from '../plugins/storage/fs-hash-pool.ts';

type Verify = { valid: boolean; checks: Array<{ id: string; ok: boolean; detail: string }> };

const failing = (report: Verify) => report.checks.filter((check) => !check.ok).map((check) => check.id).sort();
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.app.close();
});

/** The fs store under AEH_STORAGE=fs-pool with the given pool. */
function poolStorage(hashWorkers: HashPoolOptions): Plugin {
  return {
    name: 'test-storage-fs-pool',
    setup(host) {
      host.storageDrivers.register({
        name: 'fs-pool',
        accepts: (storage) => storage === 'fs-pool',
        create: (config) => createFsStore(config.dataDir, { hashWorkers }),
      });
    },
  };
}

async function appWith(storage: Plugin): Promise<TestApp> {
  const root = mkdtempSync(join(tmpdir(), 'aeh-verify-pool-'));
  const app = await testApp({ plugins: [storage], env: { AEH_STORAGE: 'fs-pool', PROJECT_ROOT: root, AEH_DATA_DIR: join(root, '.aeh'), AEH_VERIFY_REHASH: 'always' } });
  apps.push(app);
  return app;
}

/** A trace of ~300 KiB: above the default size at which the pool takes a file. */
const largeTrace = () => new TextEncoder().encode(Array.from({ length: 3000 }, (_, seq) => JSON.stringify({ seq, type: 'note', data: { text: 'x'.repeat(80) } })).join('\n') + '\n');

/** From now on any in-thread hash of a stored value throws: a verification that succeeds was hashed by a worker. */
async function refuseInThreadHashing(app: TestApp): Promise<void> {
  const { store } = await app.app.ready;
  store.hashInto = () => Promise.reject(new Error('hashed in-thread'));
}

async function verify(app: TestApp, runId: string): Promise<Verify> {
  const res = await app.json<Verify>('GET', `/api/v1/verify/${runId}`, { key: null });
  expect(res.status).toBe(200);
  return res.body;
}

async function flipTraceByte(app: TestApp, runId: string): Promise<void> {
  const { store } = await app.app.ready;
  const bytes = new Uint8Array((await store.getBytes(keys.trace(runId)))!);
  bytes[1000] = bytes[1000]! ^ 1;
  await store.setBytes(keys.trace(runId), bytes);
}

describe('certification: public verify with the fs hashing pool (issue 36)', () => {
  it('hashes the trace in a worker: an untouched run verifies, one byte changed fails trace_hash', async () => {
    const app = await appWith(poolStorage({ minBytes: 0 }));
    const runId = await finishFixtureRun(app, { trace: largeTrace() });
    await refuseInThreadHashing(app);
    expect(failing(await verify(app, runId))).toEqual([]);
    await flipTraceByte(app, runId);
    expect(failing(await verify(app, runId))).toEqual(['trace_hash']);
  });

  it('a worker that fails falls back to hashing in-thread, with the same verdicts', async () => {
    const app = await appWith(poolStorage({ minBytes: 0, size: 1, source: 'throw new Error("no worker today")' }));
    const runId = await finishFixtureRun(app, { trace: largeTrace() });
    for (let attempt = 0; attempt < 4; attempt++) expect(failing(await verify(app, runId))).toEqual([]);
    await flipTraceByte(app, runId);
    expect(failing(await verify(app, runId))).toEqual(['trace_hash']);
    // The fallback is the in-thread hash (so the first test's refusal of it proves the worker hashed).
    await refuseInThreadHashing(app);
    expect((await app.request('GET', `/api/v1/verify/${runId}`, { key: null })).status).toBe(500);
  });

  it('a worker that hangs ends in a 503 problem, not a hung request', async () => {
    const app = await appWith(poolStorage({ minBytes: 0, size: 1, timeoutMs: 50, source: `require('node:worker_threads').parentPort.on('message', () => {});` }));
    const runId = await finishFixtureRun(app, { trace: largeTrace() });
    const res = await app.json<{ code: string }>('GET', `/api/v1/verify/${runId}`, { key: null });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('unavailable');
  });

  it('the fs plugin pools by default; AEH_HASH_WORKERS=0 hashes in-thread; a value that is no count stops the start', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-verify-pool-'));
    const env = { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: join(root, '.aeh'), AEH_VERIFY_REHASH: 'always' };
    const pooled = await testApp({ env });
    apps.push(pooled);
    const runId = await finishFixtureRun(pooled, { trace: largeTrace() });
    await refuseInThreadHashing(pooled);
    expect(failing(await verify(pooled, runId))).toEqual([]);
    const inThread = await testApp({ env: { ...env, AEH_HASH_WORKERS: '0' } });
    apps.push(inThread);
    await refuseInThreadHashing(inThread);
    expect((await inThread.request('GET', `/api/v1/verify/${runId}`, { key: null })).status).toBe(500);
    await expect(testApp({ env: { ...env, AEH_HASH_WORKERS: 'many' } })).rejects.toThrow(/AEH_HASH_WORKERS must be a whole number/);
  });

  it('the path jail holds: a certificate naming a trace outside its run folder is never hashed from there', async () => {
    const app = await appWith(poolStorage({ minBytes: 0 }));
    const { store } = await app.app.ready;
    const trace = largeTrace();
    const runId = await finishFixtureRun(app, { trace });
    await refuseInThreadHashing(app);
    // The same bytes outside the store, where a path built from the certificate would reach them.
    writeFileSync(join(app.root, 'outside.jsonl'), trace);
    const cert = (await store.getJson<Certificate>(keys.certificate(runId)))!;
    for (const traceFile of ['../../../outside.jsonl', '/etc/hostname', '..']) {
      await store.setJson(keys.certificate(runId), { ...cert, trace_file: traceFile });
      const report = await verify(app, runId);
      expect(report.valid).toBe(false);
      expect(report.checks.find((check) => check.id === 'trace_hash')?.ok).toBe(false);
    }
    await expect(store.sha3(`runs/${runId}/../../outside.jsonl`, () => { throw new Error('unused'); })).rejects.toThrow();
  });
});
