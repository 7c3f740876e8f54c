import { describe, it, expect } from 'vitest';
import { testStorage } from '../../testing/index.ts';
import { parseConfig } from '../../core/config.ts';
import { createHost } from '../../core/plugin-host.ts';
import { loadPlugins } from '../../core/plugin.ts';
import type { Store } from '../../core/storage.ts';
import { cloudflareKvStorage, createKvStore, type KvNamespace } from './cloudflare-kv.ts';

/**
 * A KV namespace with the binding's API and the service's observable rules: values are bytes, `list` answers
 * pages in key order with a cursor, `put` refuses an `expirationTtl` under 60. Every call yields to the event
 * loop first, so interleavings that lose updates would show.
 */
function fakeKv(pageSize = 2) {
  const values = new Map<string, { bytes: Uint8Array; expirationTtl?: number }>();
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
  const namespace = {
    values,
    reads: 0,
    async get(key: string, type: 'text' | 'arrayBuffer' = 'text') {
      namespace.reads++;
      await tick();
      const entry = values.get(key);
      if (!entry) return null;
      if (type === 'arrayBuffer') return entry.bytes.slice().buffer;
      return new TextDecoder().decode(entry.bytes);
    },
    async put(key: string, value: Uint8Array | string, options?: { expirationTtl?: number }) {
      if (options?.expirationTtl !== undefined && options.expirationTtl < 60) throw new Error(`Invalid expiration_ttl of ${options.expirationTtl}`);
      const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array(value);
      await tick();
      values.set(key, { bytes, expirationTtl: options?.expirationTtl });
    },
    async delete(key: string) {
      await tick();
      values.delete(key);
    },
    async list(options: { prefix?: string; cursor?: string } = {}) {
      await tick();
      const names = [...values.keys()].filter((name) => name.startsWith(options.prefix ?? '')).sort();
      const start = options.cursor ? Number(options.cursor) : 0;
      const page = names.slice(start, start + pageSize);
      const complete = start + pageSize >= names.length;
      return { keys: page.map((name) => ({ name })), list_complete: complete, ...(complete ? {} : { cursor: String(start + pageSize) }) };
    },
  };
  // The binding's `get` is overloaded by type; this one implementation answers all of them.
  return namespace as typeof namespace & KvNamespace;
}

function kvStore(bindings: Record<string, unknown>, env: Record<string, string> = {}): Promise<Store> | Store {
  const host = createHost(parseConfig({ AEH_STORAGE: 'cloudflare-kv', ...env }), { runtime: { name: 'test', version: '0' } });
  loadPlugins(host, [cloudflareKvStorage(bindings)]);
  const driver = host.storageDrivers.list().find((candidate) => candidate.accepts('cloudflare-kv'))!;
  return driver.create(host.config);
}

testStorage('cloudflare-kv', async () => kvStore({ AEH_KV: fakeKv() }));

describe('storage: cloudflare-kv', () => {
  it('keeps the fs layout in colon keys (what scripts/kv-seed.mjs writes)', async () => {
    const kv = fakeKv();
    const store = await kvStore({ AEH_KV: kv });
    await store.setJson('runs/run_1/certificate.json', { ok: true });
    expect([...kv.values.keys()]).toEqual(['runs:run_1:certificate.json']);
    kv.values.set('runs:run_2:trace.jsonl', { bytes: new TextEncoder().encode('{"seeded":true}\n') });
    expect(await store.keys('runs')).toEqual(['runs/run_1/certificate.json', 'runs/run_2/trace.jsonl']);
    expect(new TextDecoder().decode((await store.getBytes('runs/run_2/trace.jsonl'))!)).toBe('{"seeded":true}\n');
  });

  it('gives expiring keys at least the 60 s KV accepts', async () => {
    const kv = fakeKv();
    const store = await kvStore({ AEH_KV: kv });
    expect(await store.setIfAbsent('jobs/tick/1', 'x', 5)).toBe(true);
    expect(await store.setIfAbsent('jobs/tick/1', 'y', 5)).toBe(false);
    expect(kv.values.get('jobs:tick:1')?.expirationTtl).toBe(60);
    expect(await store.increment('limits/a', 2, 3600)).toBe(2);
    expect(kv.values.get('limits:a')?.expirationTtl).toBe(3600);
    expect(await store.increment('limits/a', 3)).toBe(5);
  });

  it('uses the binding named by AEH_KV_BINDING', async () => {
    const kv = fakeKv();
    const store = await kvStore({ EVIDENCE: kv }, { AEH_KV_BINDING: 'EVIDENCE' });
    await store.setBytes('a', new Uint8Array([1]));
    expect(kv.values.has('a')).toBe(true);
  });

  it('fails the start naming the missing binding and the fix', () => {
    expect(() => kvStore({ AEH_KV: 'a string, not a namespace' })).toThrow(/needs a KV namespace bound as AEH_KV: .*\[\[kv_namespaces\]\] binding = "AEH_KV"/);
    expect(() => kvStore({}, { AEH_KV_BINDING: 'STORE' })).toThrow(/bound as STORE/);
  });
});

describe('storage: cloudflare-kv read cache', () => {
  const encoder = new TextEncoder();
  const text = (bytes: Uint8Array | null) => (bytes ? new TextDecoder().decode(bytes) : null);
  const clock = () => {
    let time = 1_000_000;
    return { now: () => time, advance: (ms: number) => (time += ms) };
  };

  it('reads a hot key from KV once per AEH_KV_CACHE_MS, and sees other writers after that', async () => {
    const kv = fakeKv();
    const time = clock();
    const store = createKvStore(kv, { cacheMs: 1000, now: time.now });
    kv.values.set('runs:r:certificate.json', { bytes: encoder.encode('v1') });
    for (let i = 0; i < 5; i++) expect(text(await store.getBytes('runs/r/certificate.json'))).toBe('v1');
    expect(kv.reads).toBe(1);
    kv.values.set('runs:r:certificate.json', { bytes: encoder.encode('v2 from another isolate') });
    time.advance(999);
    expect(text(await store.getBytes('runs/r/certificate.json'))).toBe('v1');
    time.advance(1);
    expect(text(await store.getBytes('runs/r/certificate.json'))).toBe('v2 from another isolate');
    expect(kv.reads).toBe(2);
  });

  it('reads its own writes and removals at once', async () => {
    const kv = fakeKv();
    const store = createKvStore(kv, { cacheMs: 60_000 });
    await store.setJson('tasks/t.json', { status: 'queued' });
    expect(await store.getJson('tasks/t.json')).toEqual({ status: 'queued' });
    await store.setJson('tasks/t.json', { status: 'succeeded' });
    expect(await store.getJson('tasks/t.json')).toEqual({ status: 'succeeded' });
    await store.remove('tasks/t.json');
    expect(await store.getJson('tasks/t.json')).toBeNull();
    await store.raw.setItem('tasks:t.json', '{"status":"raw"}');
    expect(await store.getJson('tasks/t.json')).toEqual({ status: 'raw' });
    // Only after the removal and after the raw write did the store have to ask KV.
    expect(kv.reads).toBe(2);
  });

  it('does not cache what a read fetched while a write was in flight', async () => {
    const kv = fakeKv();
    const store = createKvStore(kv, { cacheMs: 60_000 });
    kv.values.set('k', { bytes: encoder.encode('old') });
    const [read] = await Promise.all([store.getBytes('k'), store.setBytes('k', encoder.encode('new'))]);
    expect(['old', 'new']).toContain(text(read));
    expect(text(await store.getBytes('k'))).toBe('new');
  });

  it('never caches large values (traces), nor anything with AEH_KV_CACHE_MS=0', async () => {
    const kv = fakeKv();
    const store = createKvStore(kv, { cacheMs: 60_000, cacheValueBytes: 4 });
    kv.values.set('big', { bytes: encoder.encode('12345') });
    await store.getBytes('big');
    await store.getBytes('big');
    expect(kv.reads).toBe(2);
    const off = await kvStore({ AEH_KV: kv }, { AEH_KV_CACHE_MS: '0' });
    kv.values.set('small', { bytes: encoder.encode('1') });
    kv.reads = 0;
    await off.getBytes('small');
    await off.getBytes('small');
    expect(kv.reads).toBe(2);
  });

  it('decides counters and locks on what KV holds, not on the cache', async () => {
    const kv = fakeKv();
    const store = createKvStore(kv, { cacheMs: 60_000 });
    expect(await store.increment('count', 1)).toBe(1);
    kv.values.set('count', { bytes: encoder.encode('10') });
    expect(await store.increment('count', 1)).toBe(11);
    expect(await store.setIfAbsent('lock', 'a')).toBe(true);
    kv.values.delete('lock');
    expect(await store.setIfAbsent('lock', 'b')).toBe(true);
  });

  it('refuses a malformed AEH_KV_CACHE_MS at start', () => {
    expect(() => kvStore({ AEH_KV: fakeKv() }, { AEH_KV_CACHE_MS: '1s' })).toThrow(/AEH_KV_CACHE_MS must be a whole number of milliseconds/);
  });
});
