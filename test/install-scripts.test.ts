/**
 * npm 11 warns about, and npm 12 skips, dependencies' install scripts that package.json's `allowScripts` does not
 * cover (issue 26 item 3). Every dependency with an install script is decided there: bun, deno and workerd run
 * theirs (each puts its native binary where node_modules/.bin points; bun's bin is a placeholder until then, and
 * the runtime tests start all three), esbuild, msgpackr-extract and msw do not (esbuild's API and
 * msgpackr-extract's prebuilt addon load from their platform packages without it; msw's only copies a browser
 * worker into a public folder this project does not have). `.ci/run` installs with `--strict-allow-scripts`
 * and fails on any npm warning.
 */
import { describe, it, expect } from 'vitest';
import { openSync, readFileSync, readSync, realpathSync, statSync, closeSync } from 'node:fs';
import { join } from 'node:path';

const repoRoot = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };

/** The packages of the lockfile that have an install script, by name. */
const withScripts = Object.entries(lock.packages)
  .filter(([, entry]) => entry.hasInstallScript)
  .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
  .sort();

/** The first bytes of the file a node_modules/.bin entry points to. */
function head(binary: string): string {
  const fd = openSync(realpathSync(join(repoRoot, 'node_modules', '.bin', binary)), 'r');
  try {
    const bytes = Buffer.alloc(2);
    readSync(fd, bytes, 0, 2, 0);
    return bytes.toString('latin1');
  } finally {
    closeSync(fd);
  }
}

describe('install scripts (package.json allowScripts)', () => {
  it('decides every dependency that has one, and names none that has none', () => {
    expect(Object.keys(manifest.allowScripts).sort()).toEqual(withScripts);
  });

  it('allows exactly the ones the tests need', () => {
    expect(Object.entries(manifest.allowScripts).filter(([, allowed]) => allowed).map(([name]) => name).sort()).toEqual(['bun', 'deno', 'workerd']);
  });

  it.each(['bun', 'deno', 'workerd'])('ran %s\'s: node_modules/.bin/%s is its native binary, not a script or a placeholder', (binary) => {
    expect(head(binary)).not.toBe('#!');
    expect(statSync(realpathSync(join(repoRoot, 'node_modules', '.bin', binary))).size).toBeGreaterThan(1_000_000);
  });
});
