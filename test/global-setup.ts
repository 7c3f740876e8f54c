/**
 * Vitest's global setup, run once in the main process before any test file:
 * - Builds dist/ once: several suites start the compiled service (`npm start`'s path), and letting each rebuild
 *   on its own would race tsc writes against running servers.
 * - Gives the run a temporary folder of its own and removes it at the end (issue 36): the suite makes hundreds
 *   of folders (every `testApp` its project root, stores, signers' keys, CLI projects), and a run left ~660 of
 *   them in /tmp. `TMPDIR` is set before the workers start, so `os.tmpdir()` in every worker and in every process
 *   they spawn with the environment (the CLI, the service, bash's `mktemp`) points into it; nothing a test makes
 *   needs cleaning up one by one.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = join(import.meta.dirname, '..');
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  // Vitest calls a global setup once per project, in one process: `npm run test:all` runs two, and each call
  // made a run folder inside the last one's. Project roots three folders deep broke the tests that climb out of
  // them (`../../../../etc/passwd` landed in /tmp, which the jail allows) and Chromium's socket path grew past
  // its limit. The first call makes the folder and removes it; later ones use it.
  if (process.env.AEH_TEST_RUN_TMPDIR) return () => undefined;
  const previous = process.env.TMPDIR;
  const systemTmp = tmpdir();
  const runTmp = mkdtempSync(join(systemTmp, 'aeh-test-run-'));
  // tsx keeps its transform cache in <tmpdir>/tsx-<uid> (the offload workers load the TypeScript sources through
  // it): a cache, not a leftover, and a fresh one per run would transform every source again in every run.
  const tsxCache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
  mkdirSync(join(systemTmp, tsxCache), { recursive: true });
  symlinkSync(join(systemTmp, tsxCache), join(runTmp, tsxCache));
  process.env.TMPDIR = runTmp;
  process.env.AEH_TEST_RUN_TMPDIR = runTmp;
  return () => {
    delete process.env.AEH_TEST_RUN_TMPDIR;
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(runTmp, { recursive: true, force: true });
  };
}
