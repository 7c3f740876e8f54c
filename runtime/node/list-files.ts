/** Lists the files below a folder with an extension, recursively, as sorted absolute paths (Node's `FileAccess.listFiles`). */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

export async function listFiles(dir: string, extension: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await fsp.readdir(dir, { withFileTypes: true, recursive: true });
  for (const entry of entries) {
    if (entry.isFile() && entry.name.endsWith(extension)) found.push(join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name));
  }
  return found.sort();
}
