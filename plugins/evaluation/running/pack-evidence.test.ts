import { describe, it, expect } from 'vitest';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { createStore, storageKey } from '../../storage/unstorage-store.ts';
import { readEvidence } from '../../../core/domain/packed-evidence.ts';
import { nobleSha3 } from '../../../core/domain/hash.ts';
import { storeWorld } from './pack-evidence.ts';
import type { Json } from '../../../core/shim.ts';

const decoder = new TextDecoder();

// The file is judged and signed as stored: its text must be the sidecar's JSON, byte for byte.
describe('pack-evidence: world.json', () => {
  const database = { users: Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`u${index}`, { name: `User ${index}`, email: `u${index}@example.com`, note: 'é "quoted" \\ \u2028' }])) };
  it.each([
    ['units and a count', { initial: { db: database }, units: [{ task_id: 't1', diff: { db: [{ op: 'replace', path: '/users/u1/name', value: 'Ann' }] } }], unchanged: 3 }],
    ['no units', { initial: { db: database }, units: [], unchanged: 0 }],
    ['a small initial world, stored whole', { initial: { db: { a: 1 } }, units: [], unchanged: 1 }],
  ])('stores exactly JSON.stringify of the sidecar (%s)', async (_name, sidecar) => {
    const raw = createStorage({ driver: memoryDriver() });
    const store = createStore('memory', raw, { writeAtomic: (key, value) => raw.setItemRaw(storageKey(key), value.slice()) });
    await storeWorld(store, 'run-1', 'world.json', sidecar as unknown as Json, nobleSha3);
    const bytes = await readEvidence(store, 'run-1', 'world.json');
    expect(decoder.decode(bytes!)).toBe(JSON.stringify(sidecar));
  });
});
