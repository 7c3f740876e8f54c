/**
 * `npm start`'s check that dist/ is current (scripts/stale.mjs), on a repository made for the test: it runs before
 * every start (issue 36), so it stops at the first change and skips what the build leaves out (tests).
 */
import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distIsStale } from '../scripts/stale.mjs';

const BEFORE = new Date('2026-01-01T00:00:00Z');
const BUILT = new Date('2026-01-02T00:00:00Z');
const AFTER = new Date('2026-01-03T00:00:00Z');

/** A repository whose sources all predate its build stamp. */
function builtRepository(): string {
  const repo = mkdtempSync(join(tmpdir(), 'aeh-stale-'));
  for (const dir of ['dist', 'core/domain', 'plugins/metrics']) mkdirSync(join(repo, dir), { recursive: true });
  const files = ['package.json', 'core/app.ts', 'core/domain/scenario.ts', 'plugins/metrics/refusal.ts', 'plugins/metrics/refusal.test.ts'];
  for (const file of files) writeFileSync(join(repo, file), '');
  for (const path of [...files, 'core/domain', 'core', 'plugins/metrics', 'plugins']) utimesSync(join(repo, path), BEFORE, BEFORE);
  writeFileSync(join(repo, 'dist', '.build-stamp'), '');
  utimesSync(join(repo, 'dist', '.build-stamp'), BUILT, BUILT);
  return repo;
}

describe('scripts: distIsStale', () => {
  it('is false when every source predates the build, and true without a build', () => {
    const repo = builtRepository();
    expect(distIsStale(repo)).toBe(false);
    rmSync(join(repo, 'dist', '.build-stamp'));
    expect(distIsStale(repo)).toBe(true);
  });

  it('is true when a source file deep in a folder, or a top-level file, changed after the build', () => {
    const repo = builtRepository();
    utimesSync(join(repo, 'core/domain/scenario.ts'), AFTER, AFTER);
    expect(distIsStale(repo)).toBe(true);
    const other = builtRepository();
    utimesSync(join(other, 'package.json'), AFTER, AFTER);
    expect(distIsStale(other)).toBe(true);
  });

  it('is true when a file was added or removed (its folder changed), false when only a test changed', () => {
    const repo = builtRepository();
    utimesSync(join(repo, 'plugins/metrics/refusal.test.ts'), AFTER, AFTER);
    expect(distIsStale(repo), 'tests are not built').toBe(false);
    rmSync(join(repo, 'plugins/metrics/refusal.test.ts'));
    expect(distIsStale(repo), 'the folder changed').toBe(true);
  });
});
