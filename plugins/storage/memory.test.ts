import { describe, expect, it } from 'vitest';
import { testStorage } from '../../testing/index.ts';
import { parseConfig } from '../../core/config.ts';
import { createHost } from '../../core/plugin-host.ts';
import { loadPlugins } from '../../core/plugin.ts';
import storageMemory from './memory.ts';

testStorage('memory', async () => {
  const host = createHost(parseConfig({ AEH_STORAGE: 'memory' }), { runtime: { name: 'test', version: '0' } });
  loadPlugins(host, [storageMemory]);
  const driver = host.storageDrivers.list().find((candidate) => candidate.accepts('memory'))!;
  return driver.create(host.config);
});

describe('memory store appends (issue 36: a growing buffer, not a copy of the whole value per append)', () => {
  const memoryStore = async () => {
    const host = createHost(parseConfig({ AEH_STORAGE: 'memory' }), { runtime: { name: 'test', version: '0' } });
    loadPlugins(host, [storageMemory]);
    return host.storageDrivers.list().find((candidate) => candidate.accepts('memory'))!.create(host.config);
  };
  const bytes = (text: string) => new TextEncoder().encode(text);
  const text = (value: Uint8Array | null) => (value ? new TextDecoder().decode(value) : null);

  it('keeps parallel appends in order, and a value read before an append never changes', async () => {
    const store = await memoryStore();
    await Promise.all(Array.from({ length: 300 }, (_, index) => store.append('runs/r/trace.jsonl', bytes(`${index}\n`))));
    const before = await store.getBytes('runs/r/trace.jsonl');
    expect(text(before)).toBe(Array.from({ length: 300 }, (_, index) => `${index}\n`).join(''));
    const copy = before!.slice();
    await store.append('runs/r/trace.jsonl', bytes('more\n'));
    expect(before).toEqual(copy);
    expect(text(await store.getBytes('runs/r/trace.jsonl'))).toBe(`${text(copy)}more\n`);
  });

  it('appends after a value written whole, and after a removal, to what is stored', async () => {
    const store = await memoryStore();
    await store.append('k', bytes('a'));
    await store.setBytes('k', bytes('written'));
    await store.append('k', bytes('+b'));
    expect(text(await store.getBytes('k'))).toBe('written+b');
    await store.remove('k');
    await store.append('k', bytes('c'));
    expect(text(await store.getBytes('k'))).toBe('c');
    await store.setJson('n', { a: 1 });
    await store.append('n', bytes('\n'));
    expect(text(await store.getBytes('n'))).toBe('{"a":1}\n');
  });
});
