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

  it('forgets every key on clear', async () => {
    const { indexed } = await both(async (storage) => {
      await storage.setItem('a:b', 1);
      await storage.clear();
    });
    expect(await indexed.getKeys('a')).toEqual([]);
    expect(await indexed.getKeys('')).toEqual([]);
  });
});
