/**
 * Builds dist/ once before any test file runs: several suites start the compiled service (`npm start`'s
 * path), and letting each rebuild on its own would race tsc writes against running servers.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export default function buildOnce(): void {
  const root = join(import.meta.dirname, '..');
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
}
