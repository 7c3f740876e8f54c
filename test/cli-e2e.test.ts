/**
 * `aeh` end to end: `node bin/aeh.mjs …` as a child process (the compiled CLI, as `npx aeh` runs it), and
 * `--url` against a real service listening on a socket (startNodeService on port 0).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { startNodeService, type NodeService } from '../runtime/node/start.ts';
import { silentLogger } from '../core/capabilities.ts';
import { CLI_KEY, projectWithFixtures, REPO, runCli, spawnCli } from './cli-io.ts';

let cwd: string;

// dist/ (what bin/aeh.mjs runs) is built once for all suites by test/global-setup.ts.
beforeAll(() => {
  cwd = projectWithFixtures();
});

describe('cli: node bin/aeh.mjs as a child process', () => {
  it('prints usage on stderr and exits 3 without a command', async () => {
    const result = await spawnCli([], { cwd });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('usage: aeh <command>');
  }, 60_000);

  it('evaluate: exit 1 on fail with a JUnit file, plain progress lines in CI, the embedded fs store in the project', async () => {
    const result = await spawnCli(['evaluate', 'fail.json', '--format', 'junit', '--output', 'reports/junit.xml'], { cwd });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^progress: succeeded 2\/2$/m);
    expect(result.stderr).not.toContain('\r');
    expect(result.stderr).toContain('wrote reports/junit.xml (fail)');
    const xml = readFileSync(join(cwd, 'reports', 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<failure type="SECURITY.SECRET_LEAK"');
    expect(readFileSync(join(cwd, '.aeh', 'index', 'runs', '00000000.txt'), 'utf8')).toMatch(/^1 run_/);
  }, 90_000);

  it('evaluate: exit 2 on a warning, 0 with --allow-warning', async () => {
    // The fixture's failed check is must-pass by default (exit 1); these flags leave the verdict to the index.
    const relaxed = ['--must-pass', 'none', '--fail-on-severity', 'none'];
    const warned = await spawnCli(['evaluate', 'warning.json', ...relaxed], { cwd });
    expect(warned.code, warned.stderr).toBe(2);
    const allowed = await spawnCli(['evaluate', 'warning.json', '--allow-warning', '--json', ...relaxed], { cwd });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout).compliance.status).toBe('warning');
  }, 90_000);

  it('serve --port 0 --json prints its address, serves, and stops on SIGTERM with exit 0', async () => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'aeh.mjs'), 'serve', '--port', '0', '--json'], {
      cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, DASHBOARD_API_KEY: CLI_KEY, AEH_STORAGE: 'memory' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!).url);
        });
        child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/api/info`, { headers: { 'x-api-key': CLI_KEY } })).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});

describe('cli: --url against a running service', () => {
  let service: NodeService;

  beforeAll(async () => {
    const root = projectWithFixtures();
    service = await startNodeService({ PROJECT_ROOT: root, PORT: '0', HOST: '127.0.0.1', DASHBOARD_API_KEY: CLI_KEY, AEH_STORAGE: 'memory' }, root, silentLogger);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('evaluates over HTTP with the same exit codes, and the run is the service\'s', async () => {
    const fail = await runCli(['evaluate', 'fail.json', '--url', service.url, '--key', CLI_KEY, '--json'], { cwd, env: { DASHBOARD_API_KEY: undefined } });
    expect(fail.code, fail.stderr).toBe(1);
    const run = JSON.parse(fail.stdout);
    const stored = await (await fetch(`${service.url}/api/v1/runs/${run.run_id}`, { headers: { 'x-api-key': CLI_KEY } })).json();
    expect(stored).toMatchObject({ run_id: run.run_id, compliance: { status: 'fail' } });
    // The key may come from the environment instead (AEH_API_KEY), and a trailing slash on the URL is fine.
    const pass = await runCli(['evaluate', 'pass.json', '--url', `${service.url}/`], { cwd, env: { DASHBOARD_API_KEY: undefined, AEH_API_KEY: CLI_KEY } });
    expect(pass.code, pass.stderr).toBe(0);
  });

  it('saves artifacts over HTTP that aeh verify accepts with the service\'s JWKS URL', async () => {
    const evaluated = await runCli(['evaluate', 'warning.json', '--url', service.url, '--key', CLI_KEY, '--artifacts', 'remote-evidence', '--allow-warning', '--must-pass', 'none', '--fail-on-severity', 'none'], { cwd });
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const verified = await runCli(['verify', 'remote-evidence/certificate.json', '--trace', 'remote-evidence/trace.jsonl', '--jwks', `${service.url}/.well-known/jwks.json`, '--json'], { cwd });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).status).toBe('valid');
  });

  it('exits 3 with 401 for a wrong key, and 3 when nothing listens', async () => {
    const wrong = await runCli(['evaluate', 'pass.json', '--url', service.url, '--key', 'f'.repeat(64)], { cwd });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/^evaluate failed: 401 unauthorized/);
    const nowhere = await runCli(['scenarios', '--url', 'http://127.0.0.1:9', '--key', CLI_KEY], { cwd });
    expect(nowhere.code).toBe(3);
    expect(nowhere.stderr).toMatch(/^aeh scenarios: fetch failed/);
  });

  it('scenarios, mutate, spec-to-eval and doctor work over HTTP too', async () => {
    const remote = ['--url', service.url, '--key', CLI_KEY, '--json'];
    expect(JSON.parse((await runCli(['scenarios', 'dispute', ...remote], { cwd })).stdout).items[0].id).toBe('fin-card-dispute-triage');
    expect(JSON.parse((await runCli(['mutate', 'pass.json', '--type', 'typo', ...remote], { cwd })).stdout).type).toBe('typo');
    const spec = await runCli(['spec-to-eval', join(REPO, 'plugins', 'spec-to-eval', 'fixtures', 'retail-bullets.md'), ...remote], { cwd });
    expect(JSON.parse(spec.stdout).source).toBe('structured');
    const doctor = await runCli(['doctor', ...remote], { cwd });
    expect(doctor.code).toBe(0);
    expect(JSON.parse(doctor.stdout).checks.length).toBeGreaterThan(3);
  });

  it('spawned: evaluate --url with the key from AEH_API_KEY', async () => {
    const result = await spawnCli(['evaluate', 'pass.json', '--url', service.url, '--format', 'markdown'], { cwd, env: { DASHBOARD_API_KEY: undefined, AEH_API_KEY: CLI_KEY } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^### ✅ CLI fixture: everything passes: \*\*pass\*\* \(index 1\.00\)/);
  }, 60_000);
});
