/**
 * The storage conformance suite: every storage driver (memory, fs, redis, a team's own) runs it, so the engine
 * and the certification code can rely on the same `Store` behaviour whatever `AEH_STORAGE` says.
 *
 * Usage, beside a driver: `testStorage('fs', async () => createFsStore(mkdtempSync(...)))`.
 */
import { describe, it, expect, afterEach } from 'vitest';
import type { Store } from '../core/storage.ts';
import { nobleSha3, sha3Hex } from '../core/domain/hash.ts';

/** Options for `testStorage`. */
export interface StorageConformanceOptions {
  /** Expected `store.driver`; defaults to the suite name. */
  driver?: string;
  /** Skip the suite (for example when the backing service is not reachable). */
  skip?: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  const bytes = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

type FreshStore = () => Promise<Store>;

/** Values: JSON and bytes round-trip, has, remove and keys. */
function valueTests(fresh: FreshStore): void {
  it('round-trips JSON and answers null for absent keys', async () => {
    const store = await fresh();
    expect(await store.getJson('runs/none/run.json')).toBeNull();
    const value = { run_id: 'r1', nested: { list: [1, 2.5, null, true], text: 'ünïcode ✓ \u2028' }, empty: {} };
    await store.setJson('runs/r1/run.json', value);
    expect(await store.getJson('runs/r1/run.json')).toEqual(value);
    await store.setJson('runs/r1/run.json', { replaced: true });
    expect(await store.getJson('runs/r1/run.json')).toEqual({ replaced: true });
  });

  it('round-trips JSON scalars', async () => {
    const store = await fresh();
    for (const [index, value] of [0, 42, 'text', false, [1, 'a']].entries()) {
      await store.setJson(`scalars/${index}`, value);
      expect(await store.getJson(`scalars/${index}`)).toEqual(value);
    }
  });

  it('round-trips every byte value', async () => {
    const store = await fresh();
    const bytes = Uint8Array.from({ length: 512 }, (_, index) => index % 256);
    await store.setBytes('blobs/all-bytes.bin', bytes);
    expect(await store.getBytes('blobs/all-bytes.bin')).toEqual(bytes);
    expect(await store.size('blobs/all-bytes.bin')).toBe(512);
    expect(await store.getBytes('blobs/absent.bin')).toBeNull();
    expect(await store.size('blobs/absent.bin')).toBeNull();
  });

  it('keeps what was written when the caller later changes its buffer', async () => {
    const store = await fresh();
    const bytes = encoder.encode('original');
    await store.setBytes('blobs/copy.bin', bytes);
    bytes.fill(0);
    expect(decoder.decode((await store.getBytes('blobs/copy.bin'))!)).toBe('original');
  });

  it('answers has and remove', async () => {
    const store = await fresh();
    expect(await store.has('flags/on')).toBe(false);
    await store.setJson('flags/on', true);
    expect(await store.has('flags/on')).toBe(true);
    await store.remove('flags/on');
    expect(await store.has('flags/on')).toBe(false);
    expect(await store.getJson('flags/on')).toBeNull();
    await expect(store.remove('flags/never-existed')).resolves.toBeUndefined();
  });

  it('lists keys below a prefix as slash paths, and only below it', async () => {
    const store = await fresh();
    await store.setJson('runs/r1/run.json', 1);
    await store.setJson('runs/r1/scores.json', 2);
    await store.setJson('runs/r2/run.json', 3);
    await store.setJson('runsx/r9/run.json', 4);
    await store.setJson('tasks/t1.json', 5);
    expect((await store.keys('runs')).sort()).toEqual(['runs/r1/run.json', 'runs/r1/scores.json', 'runs/r2/run.json']);
    expect((await store.keys('runs/r1')).sort()).toEqual(['runs/r1/run.json', 'runs/r1/scores.json']);
    expect(await store.keys('nothing')).toEqual([]);
  });
}

/** Appends, streams, hashing and change proofs. */
function appendAndStreamTests(fresh: FreshStore): void {
  it('appends in order, creating the value on first append', async () => {
    const store = await fresh();
    for (let index = 0; index < 20; index++) await store.append('runs/r1/trace.jsonl', encoder.encode(`{"i":${index}}\n`));
    const lines = decoder.decode((await store.getBytes('runs/r1/trace.jsonl'))!).trim().split('\n');
    expect(lines).toEqual(Array.from({ length: 20 }, (_, index) => `{"i":${index}}`));
  });

  it('loses no append when many run at once', async () => {
    const store = await fresh();
    await Promise.all(Array.from({ length: 50 }, (_, index) => store.append('logs/concurrent', encoder.encode(`${index}\n`))));
    const lines = decoder.decode((await store.getBytes('logs/concurrent'))!).trim().split('\n').map(Number);
    expect(lines.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index));
  });

  it('streams a large value byte for byte, and null for an absent one', async () => {
    const store = await fresh();
    const big = Uint8Array.from({ length: 3 * 1024 * 1024 + 7 }, (_, index) => (index * 31) % 251);
    await store.setBytes('runs/big/trace.jsonl', big);
    const stream = await store.stream('runs/big/trace.jsonl');
    expect(stream).not.toBeNull();
    const streamed = await readAll(stream!);
    expect(streamed.length).toBe(big.length);
    expect(Buffer.from(streamed).equals(Buffer.from(big))).toBe(true);
    expect(await store.stream('runs/none/trace.jsonl')).toBeNull();
  });

  it('feeds a large value into a hash byte for byte (hashInto), and answers null for an absent one', async () => {
    const store = await fresh();
    const big = Uint8Array.from({ length: 2 * 1024 * 1024 + 13 }, (_, index) => (index * 17) % 253);
    await store.setBytes('runs/big/trace.jsonl', big);
    const chunks: Uint8Array[] = [];
    // A copy: the chunk handed to update() is only valid during the call (a driver may reuse its buffer).
    const recorder = { update: (chunk: Uint8Array) => (chunks.push(Uint8Array.from(chunk)), recorder), digest: () => new Uint8Array() };
    expect(await store.hashInto('runs/big/trace.jsonl', recorder)).toBe(big.length);
    expect(Buffer.concat(chunks).equals(Buffer.from(big))).toBe(true);
    expect(await store.hashInto('runs/none/trace.jsonl', recorder)).toBeNull();
  });

  it("gives a value's SHA3-256 as lower-case hex (sha3), wherever the driver hashes it, and null for an absent one", async () => {
    const store = await fresh();
    // Large enough that a driver hashing off the request thread (fs: a worker) takes it.
    const big = Uint8Array.from({ length: 2 * 1024 * 1024 + 13 }, (_, index) => (index * 31) % 251);
    await store.setBytes('runs/big/trace.jsonl', big);
    expect(await store.sha3('runs/big/trace.jsonl', nobleSha3)).toBe(sha3Hex(big));
    expect(await store.sha3('runs/none/trace.jsonl', nobleSha3)).toBeNull();
  });

  it('gives a change proof, if any, that differs once the bytes change, and none for an absent value', async () => {
    const store = await fresh();
    expect(await store.fingerprint('runs/none/trace.jsonl')).toBeNull();
    await store.setBytes('runs/fp/scores.json', encoder.encode('{"index":0.5}'));
    const before = await store.fingerprint('runs/fp/scores.json');
    await store.setBytes('runs/fp/scores.json', encoder.encode('{"index":0.9}'));
    const after = await store.fingerprint('runs/fp/scores.json');
    // null means "read the bytes": always sound. Two equal proofs must mean equal bytes.
    if (before !== null && after !== null) expect(after).not.toBe(before);
    await store.remove('runs/fp/scores.json');
    expect(await store.fingerprint('runs/fp/scores.json')).toBeNull();
  });
}

/** Atomic operations, readers during replacement, refused keys and free space. */
function atomicityTests(fresh: FreshStore): void {
  it('increments atomically', async () => {
    const store = await fresh();
    expect(await store.increment('stats/runs')).toBe(1);
    expect(await store.increment('stats/runs', 5)).toBe(6);
    await Promise.all(Array.from({ length: 50 }, () => store.increment('stats/concurrent')));
    expect(await store.increment('stats/concurrent', 0)).toBe(50);
  });

  it('lets exactly one of many callers set an absent key', async () => {
    const store = await fresh();
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => store.setIfAbsent('locks/run-1', `owner-${index}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.setIfAbsent('locks/run-1', 'late')).toBe(false);
    const winner = results.indexOf(true);
    expect(decoder.decode((await store.getBytes('locks/run-1'))!)).toBe(`owner-${winner}`);
  });

  it('never shows a reader half of a value being replaced', async () => {
    const store = await fresh();
    const value = (fill: string) => ({ fill, payload: fill.repeat(256 * 1024) });
    await store.setJson('runs/r1/certificate.json', value('a'));
    const writes = ['b', 'c', 'd', 'e'].map((fill) => store.setJson('runs/r1/certificate.json', value(fill)));
    const reads = Array.from({ length: 20 }, () => store.getJson<{ fill: string; payload: string }>('runs/r1/certificate.json'));
    for (const read of await Promise.all(reads)) {
      expect(read).not.toBeNull();
      expect(read!.payload).toBe(read!.fill.repeat(256 * 1024));
    }
    await Promise.all(writes);
  });

  it.each(['runs/../secret', 'runs/./x', 'a:b', 'runs/x\\y', 'q?x', 'nul\0byte'])('refuses the key %j', async (key) => {
    const store = await fresh();
    await expect(store.setJson(key, 1)).rejects.toThrow(/invalid storage key segment/);
    await expect(store.getJson(key)).rejects.toThrow(/invalid storage key segment/);
  });

  it('reports free space as a number or null', async () => {
    const free = await (await fresh()).freeBytes();
    expect(free === null || (typeof free === 'number' && free >= 0)).toBe(true);
  });
}

/** Registers the conformance tests for one driver; `create` must return a fresh, empty store each call. */
export function testStorage(name: string, create: () => Promise<Store>, options: StorageConformanceOptions = {}): void {
  describe.skipIf(options.skip ?? false)(`storage conformance: ${name}`, () => {
    const opened: Store[] = [];
    const fresh = async () => {
      const store = await create();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it('names its driver', async () => {
      expect((await fresh()).driver).toBe(options.driver ?? name);
    });

    valueTests(fresh);
    appendAndStreamTests(fresh);
    atomicityTests(fresh);
  });
}
