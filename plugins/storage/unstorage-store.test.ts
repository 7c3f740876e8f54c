import { describe, it, expect } from 'vitest';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import type { StoreCapabilities } from '../../core/storage.ts';
import { createStore, storageKey } from './unstorage-store.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bare = (capabilities?: StoreCapabilities) => createStore('bare', createStorage({ driver: memoryDriver() }), capabilities);

describe('core: storageKey', () => {
  it('maps slash paths to unstorage keys, ignoring empty segments', () => {
    expect(storageKey('runs/r1/certificate.json')).toBe('runs:r1:certificate.json');
    expect(storageKey('/runs//r1/')).toBe('runs:r1');
    expect(storageKey('.hidden/file')).toBe('.hidden:file');
    expect(storageKey('a/.../b..c/.d.')).toBe('a:...:b..c:.d.');
    expect(storageKey('')).toBe('');
  });

  it.each(['..', '.', 'runs/../../etc/passwd', './x', 'a/.', 'a/..', 'a/./b', '/../x', 'runs//../x', 'a:b', 'a\\b', 'a?b', 'a\0b'])('refuses %j', (key) => {
    expect(() => storageKey(key)).toThrow(/invalid storage key segment/);
  });
});

describe('core: createStore fallbacks (a driver without capabilities)', () => {
  it('appends by read-modify-write without losing concurrent appends', async () => {
    const store = bare();
    await Promise.all(Array.from({ length: 30 }, (_, index) => store.append('log', encoder.encode(`${index},`))));
    const values = decoder.decode((await store.getBytes('log'))!).split(',').filter(Boolean).map(Number);
    expect(values.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, index) => index));
  });

  it('increments and sets-if-absent safely within one process', async () => {
    const store = bare();
    await Promise.all(Array.from({ length: 25 }, () => store.increment('n', 2)));
    expect(await store.getJson('n')).toBe(50);
    const wins = await Promise.all(Array.from({ length: 10 }, () => store.setIfAbsent('lock', 'me')));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('writes a burst of increments to one key as two writes, each caller getting the value after its own', async () => {
    let writes = 0;
    const raw = createStorage({ driver: memoryDriver() });
    const store = createStore('bare', raw, { async writeAtomic(key, bytes) { writes++; await raw.setItemRaw(storageKey(key), bytes); } });
    const values = await Promise.all(Array.from({ length: 25 }, () => store.increment('n', 2)));
    expect(await store.getJson('n')).toBe(50);
    expect(values).toEqual(Array.from({ length: 25 }, (_, index) => 2 * (index + 1)));
    expect(writes).toBe(1);
    // One under way, the rest wait for it and go as one.
    const first = store.increment('n', 1);
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const rest = await Promise.all([store.increment('n', 1), store.increment('n', -3), store.increment('n', 5)]);
    expect([await first, ...rest]).toEqual([51, 52, 49, 54]);
    expect(writes).toBe(3);
    // A failed write fails every increment of its batch, and the next batch starts from the stored value.
    await store.setBytes('m', encoder.encode('not json'));
    await expect(Promise.all([store.increment('m'), store.increment('m')])).rejects.toThrow();
    await store.remove('m');
    expect(await Promise.all([store.increment('m'), store.increment('m')])).toEqual([1, 2]);
  });

  it('keeps serialising a key after a failed operation', async () => {
    const store = bare();
    await store.setBytes('n', encoder.encode('not json'));
    await expect(store.increment('n')).rejects.toThrow();
    await store.remove('n');
    expect(await store.increment('n')).toBe(1);
  });

  it('streams stored bytes in chunks and sizes them', async () => {
    const store = bare();
    const bytes = Uint8Array.from({ length: 200_000 }, (_, index) => index % 256);
    await store.setBytes('big', bytes);
    const chunks: Uint8Array[] = [];
    for await (const chunk of (await store.stream('big')) as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.reduce((total, chunk) => total + chunk.length, 0)).toBe(200_000);
    expect(await store.size('big')).toBe(200_000);
    expect(await store.freeBytes()).toBeNull();
  });

  it('uses the driver capabilities when it has them', async () => {
    const calls: string[] = [];
    const store = bare({
      async writeAtomic() { calls.push('writeAtomic'); },
      async append() { calls.push('append'); },
      async increment() { calls.push('increment'); return 7; },
      async setIfAbsent() { calls.push('setIfAbsent'); return true; },
      async size() { calls.push('size'); return 3; },
      async freeBytes() { calls.push('freeBytes'); return 10; },
      async close() { calls.push('close'); },
    });
    await store.setJson('a', 1);
    await store.append('a', new Uint8Array(1));
    expect(await store.increment('a')).toBe(7);
    expect(await store.setIfAbsent('a', 'x')).toBe(true);
    expect(await store.size('a')).toBe(3);
    expect(await store.freeBytes()).toBe(10);
    await store.close();
    expect(calls).toEqual(['writeAtomic', 'append', 'increment', 'setIfAbsent', 'size', 'freeBytes', 'close']);
  });

  it('reads values unstorage serialised as JSON or Buffer objects back as bytes', async () => {
    const raw = createStorage({ driver: memoryDriver() });
    const store = createStore('bare', raw);
    await raw.setItem('doc', { a: 1 });
    expect(await store.getJson('doc')).toEqual({ a: 1 });
    await raw.setItemRaw('buf', { type: 'Buffer', data: [104, 105] });
    expect(decoder.decode((await store.getBytes('buf'))!)).toBe('hi');
  });
});
