import { describe, it, expect, beforeAll } from 'vitest';
import { scriptedScenario } from '../evaluation-fixtures.ts';
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

describe('hostile: the service\'s own secrets inside the jail (issue 13 item 6)', () => {
  const KEY_LINE = 'DASHBOARD_API_KEY=PLANTED-KEY-0123456789abcdef0123456789abcdef';
  let app: TestApp;
  let dataDir: string;
  let tempData: TestApp;

  beforeAll(async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'aeh-hostile-secrets-')));
    mkdirSync(join(project, '.aeh', 'keys'), { recursive: true });
    mkdirSync(join(project, 'config'), { recursive: true });
    writeFileSync(join(project, '.env'), `${KEY_LINE}\n`);
    writeFileSync(join(project, '.env.production'), `${KEY_LINE}\n`);
    writeFileSync(join(project, 'config', '.env.local'), `${KEY_LINE}\n`);
    writeFileSync(join(project, '.aeh', 'keys', 'local-signer.json'), '{"d":"PLANTED-PRIVATE-KEY"}');
    writeFileSync(join(project, '.aeh', 'handoff.key'), 'PLANTED-HANDOFF-SECRET');
    symlinkSync(join(project, '.env'), join(project, 'innocent.json'));
    symlinkSync(join(project, '.aeh', 'keys', 'local-signer.json'), join(project, 'key.json'));
    writeFileSync(join(project, 'pw.json'), 'pw=Hunter2-Secret!');
    writeFileSync(join(project, 'multi.json'), '{\n  "id": "x",\n  "token": Hunter2-Secret\n}');
    app = await testApp({ env: { PROJECT_ROOT: project }, plugins: [probePlugin] });
    // A data directory outside PROJECT_ROOT, in the temp dirs the relaxed jail allows.
    dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'aeh-hostile-data-')));
    writeFileSync(join(dataDir, 'handoff.key'), 'PLANTED-HANDOFF-SECRET');
    tempData = await testApp({ env: { PROJECT_ROOT: project, AEH_DATA_DIR: dataDir }, plugins: [probePlugin] });
  });

  async function refused(t: TestApp, path: string) {
    const response = await t.json('POST', '/test/read', { body: { path } });
    expect(response.status, path).toBe(403);
    expect(response.body.code).toBe('path_outside_jail');
    return response;
  }

  it.each(['.env', './.env', '.env.production', 'config/.env.local', 'innocent.json', '.aeh/keys/local-signer.json', '.aeh/handoff.key', 'key.json', '.aeh/missing.json', 'config/../.env'])(
    'refuses %s although it lies under PROJECT_ROOT', async (path) => {
      await refused(app, path);
    },
  );

  it('refuses AEH_DATA_DIR outside PROJECT_ROOT, by absolute path, learnt from the configuration', async () => {
    await refused(tempData, join(dataDir, 'handoff.key'));
    await refused(tempData, join(dataDir, 'runs', 'missing.json'));
  });

  it('refuses .env as a scenario path and never quotes it', async () => {
    const response = await app.json('POST', '/api/evaluate', { body: { path: '.env' } });
    expect(response.status).toBe(403);
    expect(JSON.stringify(response.body)).not.toContain('PLANTED-KEY');
  });

  it('says where a scenario file is not JSON, without quoting it', async () => {
    const flat = await app.json('POST', '/api/evaluate', { body: { path: 'pw.json' } });
    expect(flat.status).toBe(400);
    expect(flat.body.detail).toBe('the scenario file is invalid JSON at line 1, column 1');
    const multi = await app.json('POST', '/api/evaluate', { body: { path: 'multi.json' } });
    expect(multi.body.detail).toBe('the scenario file is invalid JSON at line 3, column 12');
    for (const response of [flat, multi]) expect(JSON.stringify(response.body)).not.toContain('Hunter2');
  });

  it('says where a request body is not JSON, without quoting it', async () => {
    const response = await app.request('POST', '/api/evaluate', { raw: '{"scenario": pw=Hunter2-Secret!}', headers: { 'content-type': 'application/json' } });
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(body).toMatchObject({ code: 'invalid_json', detail: 'the body is invalid JSON at line 1, column 14' });
    expect(JSON.stringify(body)).not.toContain('Hunter2');
  });

  it('still reads an ordinary scenario file next to them', async () => {
    writeFileSync(join(app.config.projectRoot, 'ok.json'), JSON.stringify(scriptedScenario('ok')));
    expect((await app.json('POST', '/test/read', { body: { path: 'ok.json' } })).status).toBe(200);
  });
});
