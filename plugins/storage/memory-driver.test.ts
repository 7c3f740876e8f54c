import { describe, expect, it } from 'vitest';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { indexedMemoryDriver } from './memory-driver.ts';

/** The same writes on the plain memory driver and the indexed one. */
async function both(write: (storage: ReturnType<typeof createStorage>) => Promise<void>) {
  const plain = createStorage({ driver: memoryDriver() });
  const indexed = createStorage({ driver: indexedMemoryDriver() });
  await write(plain);
  await write(indexed);
  return { plain, indexed };
}

describe('storage: indexed memory driver', () => {
  it('lists the keys under a folder as the plain driver does, in the same order, after writes, removals and rewrites', async () => {
    const { plain, indexed } = await both(async (storage) => {
      for (const key of ['runs:r1:trace.jsonl', 'runs:r1:run.json', 'runs:r2:run.json', 'tasks:t1', 'top', 'runs:r10:run.json']) await storage.setItem(key, key);
      await storage.setItemRaw('runs:r1:plan.bin', new Uint8Array([1]));
      await storage.removeItem('runs:r1:run.json');
      await storage.setItem('runs:r1:run.json', 'again');
      await storage.setItem('runs:r1:trace.jsonl', 'rewritten in place');
      await storage.removeItem('runs:r2:run.json');
      await storage.removeItem('no:such:key');
    });
    for (const base of ['', 'runs', 'runs:r1', 'runs:r1:', 'runs:r2', 'runs:r10', 'tasks', 'top', 'none']) {
      expect(await indexed.getKeys(base), base).toEqual(await plain.getKeys(base));
    }
    expect(await indexed.getKeys('runs:r1')).toEqual(['runs:r1:trace.jsonl', 'runs:r1:plan.bin', 'runs:r1:run.json']);
    expect(await indexed.getKeys('runs:r2')).toEqual([]);
  });

  it('appends in place: the value is every append in order, and bytes handed out before never change', async () => {
    const driver = indexedMemoryDriver();
    const storage = createStorage({ driver });
    const text = (value: unknown) => new TextDecoder().decode(value as Uint8Array);
    const bytesOf = (value: unknown) => (value === undefined ? null : value instanceof Uint8Array ? value : new TextEncoder().encode(String(value)));
    const reads: Array<[Uint8Array, string]> = [];
    let expected = '';
    for (let index = 0; index < 300; index++) {
      const chunk = `${index},`.repeat(index % 7 + 1);
      driver.append('runs:r1:trace.jsonl', new TextEncoder().encode(chunk), bytesOf);
      expected += chunk;
      if (index % 50 === 0) reads.push([(await storage.getItemRaw('runs:r1:trace.jsonl')) as Uint8Array, expected]);
    }
    expect(text(await storage.getItemRaw('runs:r1:trace.jsonl'))).toBe(expected);
    for (const [read, then] of reads) expect(text(read)).toBe(then);
    expect(await storage.getKeys('runs:r1')).toEqual(['runs:r1:trace.jsonl']);
    // A value another writer stored (a plugin's string) is read by bytesOf and appended to.
    await storage.setItem('plugin:log', 'from a plugin;');
    driver.append('plugin:log', new TextEncoder().encode('appended'), bytesOf);
    expect(text(await storage.getItemRaw('plugin:log'))).toBe('from a plugin;appended');
    // An older, shorter value written back is appended to without touching the newer value's bytes.
    driver.append('a:b', new TextEncoder().encode('one'), bytesOf);
    const older = (await storage.getItemRaw('a:b')) as Uint8Array;
    driver.append('a:b', new TextEncoder().encode('two'), bytesOf);
    const newer = (await storage.getItemRaw('a:b')) as Uint8Array;
    await storage.setItemRaw('a:b', older);
    driver.append('a:b', new TextEncoder().encode('three'), bytesOf);
    expect([text(await storage.getItemRaw('a:b')), text(newer), text(older)]).toEqual(['onethree', 'onetwo', 'one']);
  });

  it('forgets every key on clear', async () => {
    const { indexed } = await both(async (storage) => {
      await storage.setItem('a:b', 1);
      await storage.clear();
    });
    expect(await indexed.getKeys('a')).toEqual([]);
    expect(await indexed.getKeys('')).toEqual([]);
  });
});
