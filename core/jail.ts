/**
 * The file jail (service-spec.md "Network and file protection"): every request that names a file goes
 * through here. Paths resolve against `PROJECT_ROOT`, symlinks are followed, and only `PROJECT_ROOT` and the
 * system temp directories (only `PROJECT_ROOT` under `AEH_STRICT_JAIL=1`) are allowed.
 * (Foundation version; the identity-and-guards work hardens it against every hostile spelling.)
 */
import { Problem } from './problems.ts';
import type { Services } from './services.ts';

function within(path: string, root: string): boolean {
  const base = root.endsWith('/') ? root : `${root}/`;
  return path === root || path.startsWith(base);
}

/** Resolves a requested path to a real, allowed, regular file; throws 400/403/404/501 problems. */
export async function jailedPath(services: Pick<Services, 'config' | 'capabilities'>, requested: string): Promise<string> {
  const files = services.capabilities.files;
  if (!files) throw new Problem('not_implemented', { detail: 'this runtime has no file system; send the content inline instead of a path' });
  if (typeof requested !== 'string' || requested.length === 0 || requested.length > 4096 || requested.includes('\0')) {
    throw new Problem('bad_request', { detail: 'the path is empty, too long or contains a NUL byte' });
  }
  const root = await files.realpath(services.config.projectRoot);
  const joined = requested.startsWith('/') ? requested : `${root}/${requested}`;
  let real: string;
  try {
    real = await files.realpath(joined);
  } catch {
    throw new Problem('not_found', { detail: 'no such file' });
  }
  const allowed = [root, ...(services.config.strictJail ? [] : files.tempDirs)];
  if (!allowed.some((dir) => within(real, dir))) {
    throw new Problem('path_outside_jail', { detail: 'the path resolves outside PROJECT_ROOT and the allowed directories' });
  }
  const stat = await files.stat(real);
  if (!stat.isFile) throw new Problem('path_outside_jail', { detail: 'the path is not a regular file' });
  return real;
}

/** Reads a jailed file, refusing files over `maxBytes`. */
export async function readJailedFile(services: Pick<Services, 'config' | 'capabilities'>, requested: string, maxBytes = 64 * 1024 * 1024): Promise<Uint8Array> {
  const path = await jailedPath(services, requested);
  const stat = await services.capabilities.files!.stat(path);
  if (stat.size > maxBytes) throw new Problem('payload_too_large', { detail: `the file is larger than ${maxBytes} bytes` });
  return services.capabilities.files!.readFile(path);
}
