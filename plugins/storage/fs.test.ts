import { describe, it, expect } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, statSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testStorage } from '../../test/conformance/storage.ts';
import { createFsStore, writeFileAtomic } from './fs.ts';

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
