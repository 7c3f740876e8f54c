// Whether dist/ is older than any source file (shared by build.mjs --if-stale and start.mjs).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const stamp = join(root, 'dist', '.build-stamp');
const SOURCES = ['index.ts', 'core', 'plugins', 'runtime', 'cli', 'testing', 'types', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newestSource(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestSource(join(path, entry)));
  return newest;
}

/** True when dist/ is missing or older than a source file. */
export function distIsStale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return SOURCES.some((source) => newestSource(join(root, source)) > built);
}
