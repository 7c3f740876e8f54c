/**
 * The file jail (service-spec.md, "Network and file protection"; OWASP Path Traversal, CWE-22/59/176):
 * every request that names a file (`path`, `input_path`, `trace_path`) goes through here.
 *
 * Order of checks, each before any file is touched:
 * 1. malformed input is 400 `bad_request`: not a string, empty, over 4096 characters, NUL or other control
 *    characters, ill-formed Unicode;
 * 2. suspicious spellings are 403 `path_outside_jail` whatever they would resolve to: backslashes, drive
 *    letters, percent-encoded sequences (never decoded here, so refused rather than guessed at), and input
 *    that NFKC normalisation changes (full-width `．．／`, one-dot leaders, ligatures);
 * 3. the path is made absolute against `PROJECT_ROOT`, `.` and `..` are collapsed lexically, symlinks are
 *    resolved (realpath), and the result must lie inside `PROJECT_ROOT` or a system temp directory (only
 *    `PROJECT_ROOT` under `AEH_STRICT_JAIL=1`), compared segment-wise so `/srv/app-evil` is not inside
 *    `/srv/app`. A path that does not exist is 404 only when it would be inside the jail (403 otherwise, so
 *    the jail does not reveal what exists outside it);
 * 4. the service's own secrets are refused even inside the jail: anything in `AEH_DATA_DIR` (signing keys,
 *    the handoff secret, runs) and `.env` / `.env.*` files (where `DASHBOARD_API_KEY` is written), both
 *    learnt from the configuration;
 * 5. only regular files are served: directories, FIFOs, sockets and devices are 403.
 *
 * The returned path is the realpath that was checked; callers open that and nothing else. Contents of a
 * refused file are never read, so never echoed.
 */
import { Problem } from '../problems.ts';
import type { Services } from '../services.ts';

/** Longest path accepted, in UTF-16 code units (PATH_MAX on Linux). */
export const MAX_PATH_LENGTH = 4096;

type JailServices = Pick<Services, 'config' | 'capabilities'>;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const PERCENT_ENCODED = /%[0-9a-f]{2}/i;
const DRIVE_LETTER = /^[a-z]:/i;
const LONE_SURROGATE = /[\ud800-\udfff]/u;
/** Kernel pseudo file systems: never evaluation inputs, even when PROJECT_ROOT is `/`. */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'];
/** `.env` and `.env.local`, `.env.production`...: where the service's key and other secrets are written. */
const ENV_FILE = /^\.env(?:\..*)?$/i;

function malformed(detail: string): Problem {
  return new Problem('bad_request', { detail: `the path is malformed: ${detail}` });
}

function outside(detail: string): Problem {
  return new Problem('path_outside_jail', { detail });
}

/** True when `path` is `root` or below it, segment-wise (both absolute and normalised, as realpath gives them). */
export function within(path: string, root: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(`${root}/`);
}

/** Collapses `.`, `..` and repeated slashes of an absolute POSIX path without touching the file system. */
export function normalizeAbsolute(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

function checkSpelling(requested: unknown): string {
  if (typeof requested !== 'string') throw malformed('it must be a string');
  if (requested.length === 0) throw malformed('it is empty');
  if (requested.length > MAX_PATH_LENGTH) throw malformed(`it is longer than ${MAX_PATH_LENGTH} characters`);
  if (CONTROL.test(requested)) throw malformed('it contains a NUL byte or another control character');
  if (LONE_SURROGATE.test(requested)) throw malformed('it contains ill-formed Unicode (a lone surrogate)');
  if (requested.includes('\\')) throw outside('backslashes are not path separators here; use /');
  if (DRIVE_LETTER.test(requested)) throw outside('drive letters are not paths on this service');
  if (PERCENT_ENCODED.test(requested)) throw outside('percent-encoded sequences are refused in paths; send the path decoded');
  if (requested.normalize('NFKC') !== requested) throw outside('the path changes under Unicode NFKC normalisation (full-width or compatibility characters)');
  return requested;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

/**
 * Resolves symlinks of the longest existing prefix of `path` and appends the rest: where the path is, or
 * would be if it were created. `exists` tells which.
 */
async function locate(services: JailServices, path: string): Promise<{ real: string; exists: boolean }> {
  const files = services.capabilities.files!;
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = await files.realpath(current);
      const joined = missing.length ? `${real === '/' ? '' : real}/${missing.reverse().join('/')}` : real;
      return { real: joined, exists: missing.length === 0 };
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ELOOP') throw outside('the path is a symlink loop');
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw outside('the path cannot be resolved');
      if (current === '/') throw outside('the path cannot be resolved');
      const slash = current.lastIndexOf('/');
      missing.push(current.slice(slash + 1));
      current = slash === 0 ? '/' : current.slice(0, slash);
    }
  }
}

/** The directories a path may resolve into: `PROJECT_ROOT` (real) and, unless strict, the temp dirs. */
async function allowedRoots(services: JailServices): Promise<string[]> {
  const files = services.capabilities.files!;
  let root: string;
  try {
    root = await files.realpath(services.config.projectRoot);
  } catch (error) {
    throw new Problem('unavailable', { detail: 'PROJECT_ROOT does not exist or cannot be read', cause: error });
  }
  return [root, ...(services.config.strictJail ? [] : files.tempDirs)];
}

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * Why a path inside the jail is still refused: it is in the data directory (`config.dataDir`, made absolute
 * against `PROJECT_ROOT` when relative) or is a `.env` file, by its own name, its real name or its target.
 */
async function serviceSecret(services: JailServices, lexical: string, real: string): Promise<string | undefined> {
  const { dataDir, projectRoot } = services.config;
  const data = await locate(services, normalizeAbsolute(dataDir.startsWith('/') ? dataDir : `${projectRoot}/${dataDir}`));
  if (within(real, data.real)) return "the service's data directory (AEH_DATA_DIR: signing keys, handoff secret) is never served";
  if (ENV_FILE.test(basename(lexical)) || ENV_FILE.test(basename(real))) return ".env files hold the service's secrets and are never served";
  const envFile = await locate(services, normalizeAbsolute(`${projectRoot}/.env`));
  if (envFile.exists && real === envFile.real) return ".env files hold the service's secrets and are never served";
  return undefined;
}

/**
 * Resolves a requested path to the real path of an allowed, existing, regular file.
 * Throws 400 `bad_request` (malformed), 403 `path_outside_jail`, 404 `not_found`, or 501 `not_implemented`
 * on runtimes without a file system.
 */
export async function jailedPath(services: JailServices, requested: string): Promise<string> {
  const files = services.capabilities.files;
  if (!files) throw new Problem('not_implemented', { detail: 'this runtime has no file system; send the content inline instead of a path' });
  const spelled = checkSpelling(requested);
  const roots = await allowedRoots(services);
  const absolute = normalizeAbsolute(spelled.startsWith('/') ? spelled : `${roots[0]}/${spelled}`);
  const { real, exists } = await locate(services, absolute);
  if (!roots.some((root) => within(real, root))) {
    throw outside(services.config.strictJail
      ? 'the path resolves outside PROJECT_ROOT (AEH_STRICT_JAIL=1 allows nothing else)'
      : 'the path resolves outside PROJECT_ROOT and the system temp directories');
  }
  if (PSEUDO_ROOTS.some((root) => within(real, root))) throw outside('kernel pseudo-files (/proc, /sys, /dev) are never served');
  // Before the existence check: a refused file is refused whether it exists or not.
  const secret = await serviceSecret(services, absolute, real);
  if (secret) throw outside(secret);
  if (!exists) throw new Problem('not_found', { detail: 'no such file' });
  const stat = await files.stat(real).catch(() => null);
  if (!stat) throw new Problem('not_found', { detail: 'no such file' });
  if (!stat.isFile) throw outside('the path is not a regular file (a directory, FIFO, socket or device)');
  return real;
}

/** Reads a jailed file, refusing files over `maxBytes` with 413 before reading them. */
export async function readJailedFile(services: JailServices, requested: string, maxBytes = 64 * 1024 * 1024): Promise<Uint8Array> {
  const path = await jailedPath(services, requested);
  const files = services.capabilities.files!;
  const stat = await files.stat(path);
  if (stat.size > maxBytes) throw new Problem('payload_too_large', { detail: `the file is larger than ${maxBytes} bytes` });
  const bytes = await files.readFile(path);
  // The file may have grown between stat and read.
  if (bytes.byteLength > maxBytes) throw new Problem('payload_too_large', { detail: `the file is larger than ${maxBytes} bytes` });
  return bytes;
}
