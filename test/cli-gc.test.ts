/**
 * Issue 27 item 5 through the command line: `aeh gc` on a project's `.aeh/` (fs storage, in-process), and a
 * deleted run's certificate verified alone by `aeh verify --certificate-only`.
 */
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectWithFixtures, runCli } from './cli-io.ts';

const FS = { AEH_STORAGE: undefined };

describe('cli: aeh gc', () => {
  it('deletes all but the newest run (dry first), and the deleted run\'s certificate still verifies on its own', async () => {
    const cwd = projectWithFixtures();
    for (let n = 0; n < 2; n++) expect((await runCli(['evaluate', 'pass.json', '--artifacts', `evidence-${n}`], { cwd, env: FS })).code).toBe(0);
    const oldest = JSON.parse(readFileSync(join(cwd, 'evidence-0', 'run.json'), 'utf8')).run_id;

    const dry = await runCli(['gc', '--keep-runs', '1', '--dry-run', '--json'], { cwd, env: FS });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, rules: { keep_runs: 1 }, runs: { examined: 2, deleted: 1, deleted_ids: [oldest] } });
    expect(existsSync(join(cwd, '.aeh', 'runs', oldest, 'trace.jsonl'))).toBe(true);

    const done = await runCli(['gc', '--keep-runs', '1'], { cwd, env: FS });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('rules: keep_runs=1');
    expect(done.stdout).toMatch(/deleted 1 of 2 run\(s\)/);
    expect(done.stdout).toContain(oldest);
    expect(readdirSync(join(cwd, '.aeh', 'runs', oldest)).sort()).toEqual(['certificate.json', 'deleted.json']);

    const alone = await runCli(['verify', `.aeh/runs/${oldest}/certificate.json`, '--certificate-only', '--jwks', 'evidence-0/jwks.json'], { cwd });
    expect(alone.code, alone.stdout + alone.stderr).toBe(0);
    expect(alone.stdout).toContain('not re-hashed (certificate only)');
    // A certificate changed after signing fails on its own too.
    const certificate = JSON.parse(readFileSync(join(cwd, '.aeh', 'runs', oldest, 'certificate.json'), 'utf8'));
    writeFileSync(join(cwd, 'forged.json'), JSON.stringify({ ...certificate, compliance: { ...certificate.compliance, score: 1 - certificate.compliance.score / 2 } }));
    const forged = await runCli(['verify', 'forged.json', '--certificate-only', '--jwks', 'evidence-0/jwks.json', '--json'], { cwd });
    expect(forged.code).toBe(1);
    expect(JSON.parse(forged.stdout).status).toBe('invalid');
  });

  it('refuses bad values with the API\'s problem, exit 3, and --certificate-only with --trace', async () => {
    const cwd = projectWithFixtures();
    for (const [option, value] of [['--keep-runs', '0'], ['--keep-runs', 'many'], ['--max-age-days', '-3']]) {
      const result = await runCli(['gc', `${option}=${value}`], { cwd });
      expect(result.code, `${option} ${value}`).toBe(3);
      expect(result.stderr).toMatch(/gc failed: 400 validation_failed/);
      expect(result.stderr).toContain(option === '--keep-runs' ? '/keep_runs' : '/max_age_days');
    }
    const both = await runCli(['verify', 'c.json', '--certificate-only', '--trace', 't.jsonl', '--jwks', 'k.json'], { cwd });
    expect(both.code).toBe(3);
    expect(both.stderr).toContain('--certificate-only');
  });
});
