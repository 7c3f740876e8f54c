import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jailedPath, normalizeAbsolute, readJailedFile } from './jail.ts';
import { parseConfig } from '../config.ts';
import { isProblem } from '../problems.ts';
import { nodeFiles } from '../../runtime/node/capabilities.ts';

let base: string;
let root: string;

function services(strict: boolean, projectRoot = root) {
  return { config: parseConfig({ PROJECT_ROOT: projectRoot, AEH_STRICT_JAIL: strict ? '1' : '0' }), capabilities: { runtime: { name: 'node', version: '' }, files: nodeFiles() } };
}

async function outcome(path: string, strict = true): Promise<string> {
  try {
    const real = await jailedPath(services(strict), path);
    return `ok:${real}`;
  } catch (error) {
    if (isProblem(error)) return `${error.status}:${error.code}`;
    throw error;
  }
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'aeh-jail-')));
  root = join(base, 'app');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(join(base, 'app-evil'));
  writeFileSync(join(root, 'scenario.json'), '{}');
  writeFileSync(join(root, 'sub', 'nested.json'), '{"n":1}');
  writeFileSync(join(base, 'app-evil', 'secret.json'), '{"secret":true}');
  writeFileSync(join(base, 'outside.json'), 'OUTSIDE-CONTENT');
  symlinkSync(join(base, 'outside.json'), join(root, 'escape.json'));
  symlinkSync(join(base, 'app-evil'), join(root, 'evil-dir'));
  symlinkSync(join(root, 'scenario.json'), join(root, 'inner-link.json'));
  symlinkSync(join(root, 'loop-a'), join(root, 'loop-b'));
  symlinkSync(join(root, 'loop-b'), join(root, 'loop-a'));
  symlinkSync('/etc', join(root, 'etc-link'));
  execFileSync('mkfifo', [join(root, 'pipe.json')]);
});

describe('core: file jail', () => {
  it('serves regular files inside PROJECT_ROOT, relative or absolute, through inner symlinks', async () => {
    expect(await outcome('scenario.json')).toBe(`ok:${root}/scenario.json`);
    expect(await outcome('./sub/../sub/nested.json')).toBe(`ok:${root}/sub/nested.json`);
    expect(await outcome(`${root}/sub/nested.json`)).toBe(`ok:${root}/sub/nested.json`);
    expect(await outcome('inner-link.json')).toBe(`ok:${root}/scenario.json`);
    expect(new TextDecoder().decode(await readJailedFile(services(true), 'sub/nested.json'))).toBe('{"n":1}');
  });

  it.each([
    ['../outside.json', '403:path_outside_jail'],
    // Enough `..` to reach / from any depth: a path resolves no higher than the root.
    [`${'../'.repeat(64)}etc/passwd`, '403:path_outside_jail'],
    ['/etc/passwd', '403:path_outside_jail'],
    ['sub/../../outside.json', '403:path_outside_jail'],
    ['escape.json', '403:path_outside_jail'],
    ['evil-dir/secret.json', '403:path_outside_jail'],
    ['../app-evil/secret.json', '403:path_outside_jail'],
    ['etc-link/passwd', '403:path_outside_jail'],
    ['../missing-outside.json', '403:path_outside_jail'],
    ['loop-a', '403:path_outside_jail'],
    ['pipe.json', '403:path_outside_jail'],
    ['sub', '403:path_outside_jail'],
    ['/proc/self/environ', '403:path_outside_jail'],
    ['/dev/zero', '403:path_outside_jail'],
    ['%2e%2e/outside.json', '403:path_outside_jail'],
    ['..%2foutside.json', '403:path_outside_jail'],
    ['%252e%252e/outside.json', '403:path_outside_jail'],
    ['．．／outside.json', '403:path_outside_jail'],
    ['\u2024\u2024/outside.json', '403:path_outside_jail'],
    ['..\\outside.json', '403:path_outside_jail'],
    ['sub\\nested.json', '403:path_outside_jail'],
    ['C:/Windows/win.ini', '403:path_outside_jail'],
    ['c:scenario.json', '403:path_outside_jail'],
    ['scenario.json\0.png', '400:bad_request'],
    ['', '400:bad_request'],
    ['a\nb', '400:bad_request'],
    ['\ud800.json', '400:bad_request'],
    ['a/'.repeat(2049), '400:bad_request'],
    ['missing.json', '404:not_found'],
    ['sub/missing/deeper.json', '404:not_found'],
    ['scenario.json/child', '404:not_found'],
  ])('%j → %s (strict jail)', async (path, expected) => {
    expect(await outcome(path)).toBe(expected);
  });

  it('refuses a sibling whose name extends the root (/srv/app-evil vs /srv/app) in either mode', async () => {
    expect(await outcome(`${base}/app-evil/secret.json`)).toBe('403:path_outside_jail');
    expect(await outcome(`${root}-evil/secret.json`)).toBe('403:path_outside_jail');
  });

  it('allows the system temp directories unless AEH_STRICT_JAIL=1', async () => {
    expect(await outcome(`${base}/outside.json`, false)).toBe(`ok:${base}/outside.json`);
    expect(await outcome('escape.json', false)).toBe(`ok:${base}/outside.json`);
    expect(await outcome(`${base}/outside.json`, true)).toBe('403:path_outside_jail');
    expect(await outcome('/etc/passwd', false)).toBe('403:path_outside_jail');
  });

  it('refuses non-string input as malformed', async () => {
    await expect(jailedPath(services(true), 42 as unknown as string)).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('answers 501 on a runtime without a file system', async () => {
    const noFiles = { config: services(true).config, capabilities: { runtime: { name: 'workerd', version: '' } } };
    await expect(jailedPath(noFiles, 'scenario.json')).rejects.toMatchObject({ code: 'not_implemented' });
  });

  it('refuses files over the size cap without reading them', async () => {
    await expect(readJailedFile(services(true), 'sub/nested.json', 3)).rejects.toMatchObject({ code: 'payload_too_large' });
  });

  it('collapses dot segments lexically', () => {
    expect(normalizeAbsolute('/a/./b/../c//d/')).toBe('/a/c/d');
    expect(normalizeAbsolute('/../../x')).toBe('/x');
  });
});

const segment = fc.constantFrom('..', '.', '', 'sub', 'scenario.json', 'nested.json', 'escape.json', 'evil-dir', 'secret.json', 'etc-link', 'passwd',
  'app-evil', 'app', 'outside.json', '%2e%2e', '．．', '\\..', 'C:', 'loop-a', 'inner-link.json', '\u0000', 'proc', 'self');

describe('core: file jail properties (fast-check)', () => {
  it('never resolves outside PROJECT_ROOT under the strict jail, and only answers 200/400/403/404', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 8 }), fc.boolean(), async (segments, absolute) => {
        const path = (absolute ? `${root}/` : '') + segments.join('/');
        const result = await outcome(path);
        if (result.startsWith('ok:')) {
          const real = result.slice(3);
          expect(real === root || real.startsWith(`${root}/`)).toBe(true);
          expect(real).not.toContain('outside.json');
          expect(real).not.toContain('app-evil');
        } else {
          expect(['400:bad_request', '403:path_outside_jail', '404:not_found']).toContain(result);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('never lets arbitrary strings escape the default jail (PROJECT_ROOT and temp dirs)', async () => {
    const allowed = [root, ...nodeFiles().tempDirs];
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60, unit: 'binary' }), async (path) => {
        const result = await outcome(path, false);
        if (result.startsWith('ok:')) {
          const real = result.slice(3);
          expect(allowed.some((dir) => real.startsWith(`${dir}/`))).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('core: the jail refuses the service\'s own secrets (issue 13 item 6)', () => {
  it('refuses AEH_DATA_DIR (from the configuration, relative to PROJECT_ROOT when relative) and .env files', async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'aeh-jail-secrets-')));
    mkdirSync(join(project, 'state', 'keys'), { recursive: true });
    writeFileSync(join(project, 'state', 'keys', 'key.json'), '{}');
    writeFileSync(join(project, '.env'), 'DASHBOARD_API_KEY=x');
    writeFileSync(join(project, '.ENV.local'), 'X=1');
    writeFileSync(join(project, 'env.json'), '{}');
    const jail = (dataDir: string) => ({ config: parseConfig({ PROJECT_ROOT: project, AEH_DATA_DIR: dataDir }), capabilities: { runtime: { name: 'node', version: '' }, files: nodeFiles() } });
    const code = (dataDir: string, path: string) => jailedPath(jail(dataDir), path).then(() => 'ok', (error) => (isProblem(error) ? error.code : 'thrown'));
    expect(await code('state', 'state/keys/key.json')).toBe('path_outside_jail');
    expect(await code(join(project, 'state'), `${project}/state/keys/key.json`)).toBe('path_outside_jail');
    expect(await code(join(project, 'state'), 'state/keys/missing.json')).toBe('path_outside_jail');
    expect(await code(join(project, 'elsewhere'), 'state/keys/key.json')).toBe('ok');
    expect(await code('state', '.env')).toBe('path_outside_jail');
    expect(await code('state', '.ENV.local')).toBe('path_outside_jail');
    expect(await code('state', 'env.json')).toBe('ok');
  });
});
