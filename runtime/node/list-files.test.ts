import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listFiles } from './list-files.ts';

describe('node: listFiles', () => {
  it('lists the files with the extension in every folder below, sorted, without following links', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-list-'));
    mkdirSync(join(root, 'b', 'deep', 'deeper'), { recursive: true });
    mkdirSync(join(root, 'a'));
    for (const file of ['z.json', 'a/one.json', 'a/notes.txt', 'b/deep/deeper/two.json', 'b/three.JSON']) writeFileSync(join(root, file), '{}');
    const outside = mkdtempSync(join(tmpdir(), 'aeh-list-outside-'));
    writeFileSync(join(outside, 'linked.json'), '{}');
    symlinkSync(outside, join(root, 'link-to-folder'));
    symlinkSync(join(outside, 'linked.json'), join(root, 'link.json'));
    expect(await listFiles(root, '.json')).toEqual(['a/one.json', 'b/deep/deeper/two.json', 'z.json'].map((file) => join(root, file)));
  });

  it('rejects for a folder that does not exist, with its code', async () => {
    await expect(listFiles(join(tmpdir(), 'aeh-no-such-folder-4f1c'), '.json')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
