import { describe, it, expect } from 'vitest';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, statSync, mkdirSync, utimesSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testStorage } from '../../testing/index.ts';
import { createFsStore, FINGERPRINT_SETTLE_MS, writeFileAtomic } from './fs.ts';

const freshDir = () => mkdtempSync(join(tmpdir(), 'aeh-fs-store-'));

testStorage('fs', async () => createFsStore(freshDir()));

/** Every file below a folder, relative, temp files included. */
function filesBelow(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath: string }>)
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('storage: fs layout', () => {
  it('lays runs out on disk as the contract says', async () => {
    const dir = freshDir();
    const store = createFsStore(dir);
    await store.setJson('runs/r1/certificate.json', { vc_version: '3.0.0' });
    await store.append('runs/r1/trace.jsonl', new TextEncoder().encode('{"event":"start"}\n'));
    expect(JSON.parse(readFileSync(join(dir, 'runs/r1/certificate.json'), 'utf8'))).toEqual({ vc_version: '3.0.0' });
    expect(readFileSync(join(dir, 'runs/r1/trace.jsonl'), 'utf8')).toBe('{"event":"start"}\n');
    expect(filesBelow(dir)).toEqual(['runs/r1/certificate.json', 'runs/r1/trace.jsonl']);
    await store.close();
  });

  it('leaves no temp file behind after many atomic writes', async () => {
    const dir = freshDir();
    const store = createFsStore(dir);
    await Promise.all(Array.from({ length: 20 }, (_, index) => store.setJson('runs/r1/run.json', { index })));
    expect(filesBelow(dir)).toEqual(['runs/r1/run.json']);
    await store.close();
  });

  it('keeps the old file and removes its temp file when the rename fails', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'occupied'), { recursive: true });
    await expect(writeFileAtomic(join(dir, 'occupied'), new Uint8Array([1]))).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['occupied']);
    expect(statSync(join(dir, 'occupied')).isDirectory()).toBe(true);
  });

  it('writes with the requested mode', async () => {
    const path = join(freshDir(), 'secret');
    await writeFileAtomic(path, new TextEncoder().encode('x'), 0o600);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('hides temp files from key listings', async () => {
    const dir = freshDir();
    const store = createFsStore(dir);
    await store.setJson('runs/r1/run.json', 1);
    mkdirSync(join(dir, 'runs/r2'), { recursive: true });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'runs/r2/.run.json.123.aeh-tmp'), 'half');
    expect(await store.keys('runs')).toEqual(['runs/r1/run.json']);
    await store.close();
  });
});

describe('storage: fs change proof (fingerprint)', () => {
  const later = () => Date.now() + 60_000;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 25));

  it('gives no proof for a file changed within FINGERPRINT_SETTLE_MS (timestamps are kept per clock tick)', async () => {
    const store = createFsStore(freshDir());
    await store.setBytes('runs/r1/trace.jsonl', new TextEncoder().encode('{"seq":0}\n'));
    expect(FINGERPRINT_SETTLE_MS).toBeGreaterThanOrEqual(1000);
    expect(await store.fingerprint('runs/r1/trace.jsonl')).toBeNull();
    await store.close();
  });

  it('gives the same proof for untouched bytes, and a new one for a same-size, same-mtime edit in place', async () => {
    const dir = freshDir();
    const store = createFsStore(dir, { now: later });
    await store.setBytes('runs/r1/trace.jsonl', new TextEncoder().encode('{"seq":0,"output":"42 EUR"}\n'));
    const path = join(dir, 'runs/r1/trace.jsonl');
    // Whole seconds, so the mtime can be set back to exactly the same nanosecond value below.
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    const before = statSync(path, { bigint: true });
    const first = await store.fingerprint('runs/r1/trace.jsonl');
    expect(first).toMatch(/^\d+:\d+:\d+:\d+:\d+$/);
    expect(await store.fingerprint('runs/r1/trace.jsonl')).toBe(first);
    await settle();
    // One byte changed in place (same inode, same size), then the mtime set back: only the ctime tells.
    const fd = openSync(path, 'r+');
    writeSync(fd, '9', 20);
    closeSync(fd);
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    const after = statSync(path, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    const second = await store.fingerprint('runs/r1/trace.jsonl');
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    await store.close();
  });

  it('gives a new proof when the file is replaced (new inode), and none once it is deleted or is a folder', async () => {
    const dir = freshDir();
    const store = createFsStore(dir, { now: later });
    await store.setBytes('runs/r1/scores.json', new TextEncoder().encode('{"index":1}'));
    const first = await store.fingerprint('runs/r1/scores.json');
    await settle();
    await store.setBytes('runs/r1/scores.json', new TextEncoder().encode('{"index":1}'));
    expect(await store.fingerprint('runs/r1/scores.json')).not.toBe(first);
    await store.remove('runs/r1/scores.json');
    expect(await store.fingerprint('runs/r1/scores.json')).toBeNull();
    mkdirSync(join(dir, 'runs/r1/folder.json'));
    expect(await store.fingerprint('runs/r1/folder.json')).toBeNull();
    await store.close();
  });

  it('reads small files synchronously and large ones asynchronously, byte for byte either way', async () => {
    const dir = freshDir();
    const store = createFsStore(dir, { syncReadMaxBytes: 16 });
    const small = new TextEncoder().encode('{"a":1}');
    const large = Uint8Array.from({ length: 100_000 }, (_, index) => index % 251);
    await store.setBytes('runs/r1/small.json', small);
    await store.setBytes('runs/r1/large.bin', large);
    expect(await store.getBytes('runs/r1/small.json')).toEqual(small);
    expect(await store.getBytes('runs/r1/large.bin')).toEqual(large);
    expect(await store.getBytes('runs/r1/none.json')).toBeNull();
    mkdirSync(join(dir, 'runs/r1/folder.json'));
    expect(await store.getBytes('runs/r1/folder.json')).toBeNull();
    await store.close();
  });
});
