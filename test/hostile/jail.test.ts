import { describe, it, expect, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from '../helpers.ts';
import { probePlugin } from './kit.ts';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-JAIL';
let base: string;
let root: string;
let strict: TestApp;
let relaxed: TestApp;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'aeh-hostile-jail-')));
  root = join(base, 'app');
  mkdirSync(join(root, 'scenarios'), { recursive: true });
  mkdirSync(join(base, 'app-evil'));
  writeFileSync(join(root, 'scenarios', 'ok.json'), '{"id":"ok"}');
  writeFileSync(join(base, 'app-evil', 'secret.json'), SECRET);
  writeFileSync(join(base, 'secret.txt'), SECRET);
  symlinkSync(join(base, 'secret.txt'), join(root, 'link-out.json'));
  symlinkSync('/etc/passwd', join(root, 'passwd.json'));
  symlinkSync('/proc/self/environ', join(root, 'environ.json'));
  execFileSync('mkfifo', [join(root, 'fifo.json')]);
  strict = await testApp({ env: { PROJECT_ROOT: root, AEH_STRICT_JAIL: '1' }, plugins: [probePlugin] });
  relaxed = await testApp({ env: { PROJECT_ROOT: root }, plugins: [probePlugin] });
});

async function read(t: TestApp, path: unknown) {
  const response = await t.json('POST', '/test/read', { body: { path } });
  expect(JSON.stringify(response.body)).not.toContain(SECRET);
  expect(JSON.stringify(response.body)).not.toContain('root:x:0:0');
  return response;
}

describe('hostile: file jail over HTTP', () => {
  it('reads a file inside PROJECT_ROOT', async () => {
    expect((await read(strict, 'scenarios/ok.json')).body).toEqual({ bytes: 11 });
  });

  it.each([
    ['../secret.txt', 403, 'path_outside_jail'],
    ['../../../../../../../etc/passwd', 403, 'path_outside_jail'],
    ['/etc/passwd', 403, 'path_outside_jail'],
    ['scenarios/../../secret.txt', 403, 'path_outside_jail'],
    ['link-out.json', 403, 'path_outside_jail'],
    ['passwd.json', 403, 'path_outside_jail'],
    ['environ.json', 403, 'path_outside_jail'],
    ['/proc/self/environ', 403, 'path_outside_jail'],
    ['/dev/urandom', 403, 'path_outside_jail'],
    ['fifo.json', 403, 'path_outside_jail'],
    ['scenarios', 403, 'path_outside_jail'],
    ['../app-evil/secret.json', 403, 'path_outside_jail'],
    ['%2e%2e/secret.txt', 403, 'path_outside_jail'],
    ['%2E%2E%2Fsecret.txt', 403, 'path_outside_jail'],
    ['..%c0%afsecret.txt', 403, 'path_outside_jail'],
    ['．．/secret.txt', 403, 'path_outside_jail'],
    ['..／secret.txt', 403, 'path_outside_jail'],
    ['..\\secret.txt', 403, 'path_outside_jail'],
    ['C:\\Windows\\win.ini', 403, 'path_outside_jail'],
    ['D:/secret.txt', 403, 'path_outside_jail'],
    ['scenarios/ok.json\u0000.txt', 400, 'bad_request'],
    ['x'.repeat(4097), 400, 'bad_request'],
    ['', 400, 'bad_request'],
    [42, 400, 'bad_request'],
    [['scenarios/ok.json'], 400, 'bad_request'],
    ['scenarios/missing.json', 404, 'not_found'],
  ])('%j → %i %s', async (path, status, code) => {
    const response = await read(strict, path);
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
  });

  it('refuses the sibling-prefix directory in both modes', async () => {
    for (const t of [strict, relaxed]) {
      const response = await read(t, `${root}-evil/secret.json`);
      // The relaxed jail allows the temp dirs, where this test's folders live; the strict one never does.
      expect(response.status).toBe(t === strict ? 403 : 200);
    }
    expect((await read(strict, `${root}-evil/secret.json`)).body.code).toBe('path_outside_jail');
  });

  it('answers 403, not 404, for a missing file outside the jail (no existence oracle)', async () => {
    expect((await read(strict, '/etc/definitely-missing')).status).toBe(403);
    expect((await read(strict, '../missing.txt')).status).toBe(403);
  });

  it('audits refusals without echoing the path contents', async () => {
    await read(strict, '../secret.txt');
    const audit = await strict.json('GET', '/api/v1/audit');
    expect(audit.body.items[0]).toMatchObject({ path: '/test/read', outcome: 'refused', status: 403, detail: 'path_outside_jail' });
  });
});
