import { describe, it, expect, afterEach } from 'vitest';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashPool, WORKER_SOURCE, type HashPool } from './fs-hash-pool.ts';
import { Problem } from '../../core/problems.ts';

const pools: HashPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function pool(options: Parameters<typeof createHashPool>[0] = {}): HashPool {
  const created = createHashPool(options);
  pools.push(created);
  return created;
}

function fileOf(bytes: Uint8Array): string {
  const path = join(mkdtempSync(join(tmpdir(), 'aeh-hash-pool-')), 'trace.jsonl');
  writeFileSync(path, bytes);
  return path;
}

const sha3 = (bytes: Uint8Array) => createHash('sha3-256').update(bytes).digest('hex');

describe('storage: fs hashing pool', () => {
  it('hashes a file in a worker exactly as node:crypto hashes its bytes, across slice boundaries', async () => {
    const hashing = pool({ minBytes: 0 });
    for (const size of [0, 1, 64 << 10, (64 << 10) + 1, (1 << 20) + 7]) {
      const bytes = randomFillSync(new Uint8Array(size));
      expect(await hashing.sha3(fileOf(bytes))).toEqual({ hex: sha3(bytes), bytes: size });
    }
  });

  it('answers many files at once, more than it has workers', async () => {
    const hashing = pool({ minBytes: 0, size: 2 });
    const files = Array.from({ length: 9 }, (_, index) => randomFillSync(new Uint8Array(100_000 + index)));
    const digests = await Promise.all(files.map((bytes) => hashing.sha3(fileOf(bytes))));
    expect(digests.map((digest) => digest?.hex)).toEqual(files.map(sha3));
  });

  it('leaves small files, missing ones and a pool of size 0 to the caller (undefined: hash in-thread)', async () => {
    const small = fileOf(new Uint8Array(100));
    expect(await pool({ minBytes: 1000 }).sha3(small)).toBeUndefined();
    expect(await pool({ minBytes: 0 }).sha3(join(tmpdir(), 'aeh-no-such-file', 'trace.jsonl'))).toBeUndefined();
    expect(await pool({ minBytes: 0, size: 0 }).sha3(small)).toBeUndefined();
  });

  it('declines a directory before any worker sees it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'aeh-hash-pool-'));
    mkdirSync(join(folder, 'dir'));
    expect(await pool({ minBytes: 0 }).sha3(join(folder, 'dir'))).toBeUndefined();
  });

  it('falls back (undefined) when a worker cannot start or dies, and stops spawning after repeated failures', async () => {
    const bytes = randomFillSync(new Uint8Array(1000));
    const broken = pool({ minBytes: 0, size: 1, source: 'throw new Error("no worker runtime here")' });
    for (let attempt = 0; attempt < 5; attempt++) expect(await broken.sha3(fileOf(bytes))).toBeUndefined();
    const dying = pool({ minBytes: 0, size: 1, source: `require('node:worker_threads').parentPort.on('message', () => process.exit(1));` });
    expect(await dying.sha3(fileOf(bytes))).toBeUndefined();
  });

  it('ends a worker that outlives its budget with a 503 problem rather than a hang, and serves the next file', async () => {
    const hung = pool({ minBytes: 0, size: 1, timeoutMs: 50, source: `require('node:worker_threads').parentPort.on('message', () => {});` });
    const refused = await hung.sha3(fileOf(new Uint8Array(10))).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Problem);
    expect((refused as Problem).status).toBe(503);
    expect((refused as Problem).detail).toMatch(/took longer than/);
    const healthy = pool({ minBytes: 0, size: 1, timeoutMs: 60_000, source: WORKER_SOURCE });
    const bytes = randomFillSync(new Uint8Array(10));
    expect((await healthy.sha3(fileOf(bytes)))?.hex).toBe(sha3(bytes));
  });

  it('after close, declines (undefined) and leaves files in flight to their callers', async () => {
    const hashing = pool({ minBytes: 0, size: 1 });
    const bytes = randomFillSync(new Uint8Array(1 << 20));
    const inFlight = [hashing.sha3(fileOf(bytes)), hashing.sha3(fileOf(bytes)), hashing.sha3(fileOf(bytes))];
    await hashing.close();
    for (const answer of await Promise.all(inFlight)) expect(answer === undefined || answer?.hex === sha3(bytes)).toBe(true);
    expect(await hashing.sha3(fileOf(bytes))).toBeUndefined();
  });
});
