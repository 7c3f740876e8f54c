// The reference implementation's sources for bench/tau/*.mjs: a checkout given with --src, or the domain
// package the Python drivers load (src/tau2) extracted from a git mirror of
// sierra-research/tau2-bench into a temporary directory. Nothing of it is written into the repository.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where a fetched mirror of tau2-bench usually sits on this machine (a bare git directory). */
export const DEFAULT_MIRROR = '/work/.mirror/sierra-research+tau2-bench/repo';

/**
 * `{ src, commit, cleanup }`: `src` is the directory holding `tau2/` for reference_driver.py's `--src`. With
 * `given`, that directory as it is; else the domain sources of `mirror`'s HEAD, extracted with `git archive`.
 */
export function referenceSources(given, mirror = DEFAULT_MIRROR) {
  if (given) return { src: resolve(given), commit: 'a checkout given with --src', cleanup: () => undefined };
  if (!existsSync(mirror)) throw new Error(`no reference sources: pass --src <tau2-bench checkout>/src, or --mirror <git dir of sierra-research/tau2-bench> (${mirror} is absent)`);
  const dir = mkdtempSync(join(tmpdir(), 'tau2-src-'));
  const commit = execFileSync('git', ['--git-dir', mirror, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  // A mirror may lack its largest blobs (data files); git says so on stderr even when the sources came out whole.
  // The whole package: reference_telecom.py imports telecom's environment, which imports much of it.
  const archive = execFileSync('git', ['--git-dir', mirror, 'archive', 'HEAD', 'src/tau2'], { maxBuffer: 256 * 1024 * 1024, stdio: 'pipe' });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return { src: join(dir, 'src'), commit: `tau2-bench ${commit}`, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
