// Whether dist/ is older than any source file (shared by build.mjs --if-stale and start.mjs).
import { readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const stamp = join(root, 'dist', '.build-stamp');
const SOURCES = ['index.ts', 'core', 'plugins', 'runtime', 'cli', 'testing', 'types', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
// tsconfig.build.json leaves tests out of dist/: a changed test needs no build, and skipping them saves a quarter
// of the stats `npm start` makes before it can start (issue 36).
const NOT_BUILT = /\.test\.tsx?$/;

/**
 * Whether a file under `dir` (or the folder itself: an entry removed or renamed) changed after `built`. One
 * readdir per folder, whose entries say which are folders, and one stat per file; it stops at the first change.
 */
function changedUnder(dir, built) {
  if (statSync(dir).mtimeMs > built) return true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // A link is followed, as the compiler follows it.
    const folder = entry.isDirectory() || (entry.isSymbolicLink() && statSync(path).isDirectory());
    if (folder ? changedUnder(path, built) : !NOT_BUILT.test(entry.name) && statSync(path).mtimeMs > built) return true;
  }
  return false;
}

/** True when dist/ is missing or older than a source file (of the repository at `repo`: tests give another). */
export function distIsStale(repo = root) {
  const built = statSync(join(repo, 'dist', '.build-stamp'), { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  return SOURCES.some((source) => {
    const stat = statSync(join(repo, source), { throwIfNoEntry: false });
    if (!stat) return false;
    return stat.isDirectory() ? changedUnder(join(repo, source), built) : stat.mtimeMs > built;
  });
}
