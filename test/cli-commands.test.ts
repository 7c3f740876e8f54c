/**
 * The other `aeh` commands in-process, as a user runs them: the command table and its usage errors, catalog
 * search, mutate, spec-to-eval, doctor (exit 1 on a failing check), keys, and verify's usage.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectWithFixtures, runCli, REPO } from './cli-io.ts';
import { COMMAND_NAMES } from '../cli/main.ts';

let cwd: string;
beforeAll(() => {
  cwd = projectWithFixtures();
});

describe('cli: aeh (command table)', () => {
  it('prints usage and exits 3 without a command, 0 for help', async () => {
    const none = await runCli([], { cwd });
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/^usage: aeh <command>/);
    for (const name of COMMAND_NAMES) expect(none.stderr).toContain(`  ${name} `);
    expect(none.stdout).toBe('');
  });

  it('prints the command table on stdout for aeh --help, -h and help (exit 0), as its peers do', async () => {
    for (const asked of [['--help'], ['-h'], ['help']]) {
      const help = await runCli(asked, { cwd });
      expect(help.code, asked[0]).toBe(0);
      expect(help.stderr, asked[0]).toBe('');
      expect(help.stdout, asked[0]).toMatch(/^usage: aeh <command>/);
      for (const name of COMMAND_NAMES) expect(help.stdout).toContain(`  ${name} `);
    }
    const one = await runCli(['help', 'verify'], { cwd });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('usage: aeh verify <certificate.json>');
  });

  it('takes --json on every command, as docs/cli.md says', async () => {
    // A bogus option after --json: parsing stops at the first option a command does not know, before it does
    // anything, so the error names the bogus one only when --json was accepted.
    const before: Record<string, string[]> = { suite: ['list'], keys: ['rotate'], baseline: ['show', 'x'] };
    for (const name of COMMAND_NAMES) {
      const result = await runCli([name, ...(before[name] ?? []), '--json', '--no-such-option'], { cwd });
      expect(result.code, name).toBe(3);
      expect(result.stderr, name).toContain("Unknown option '--no-such-option'");
      expect(result.stderr, name).not.toContain("'--json'");
      expect((await runCli([name, '--help'], { cwd })).stdout, name).toContain('[--json]');
    }
  });

  it('--help on any command prints its summary and usage and exits 0', async () => {
    for (const [command, usage] of [['evaluate', 'usage: aeh evaluate <path|scenario-id>'], ['verify', 'usage: aeh verify <certificate.json>'], ['doctor', 'usage: aeh doctor [--json]'], ['serve', 'usage: aeh serve [--port N]']]) {
      const result = await runCli([command!, '--help'], { cwd });
      expect(result.code, command).toBe(0);
      expect(result.stdout, command).toContain(usage);
    }
  });

  it('refuses an unknown command with exit 3', async () => {
    const result = await runCli(['evalute', 'x.json'], { cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('aeh: unknown command "evalute"');
  });

  it('reports unknown options as usage errors (exit 3), not crashes', async () => {
    for (const command of ['scenarios', 'mutate', 'spec-to-eval', 'doctor', 'serve']) {
      const result = await runCli([command, '--no-such-option'], { cwd });
      expect(result.code, command).toBe(3);
      expect(result.stderr, command).toMatch(new RegExp(`^aeh ${command}: Unknown option '--no-such-option'`));
      expect(result.stderr, command).toMatch(new RegExp(`^usage: aeh ${command}`, 'm'));
    }
  });
});

describe('cli: aeh scenarios', () => {
  it('lists matches as id, industry, title lines with a count on stderr', async () => {
    const result = await runCli(['scenarios', 'dispute'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('fin-card-dispute-triage\tfinance\tCard dispute intake at a retail bank\n');
    expect(result.stderr).toMatch(/^\d+ of \d+\n$/);
  });

  it('--json answers the search document with facets; filters narrow it', async () => {
    const result = await runCli(['scenarios', '--industry', 'finance', '--limit', '2', '--json'], { cwd });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.items).toHaveLength(2);
    expect(body.items.every((item: { industry: string }) => item.industry === 'finance')).toBe(true);
    // Disjunctive facets: the industry counts ignore the industry filter, so other industries stay selectable.
    expect(body.facets.industry.finance).toBe(body.total);
    expect(Object.keys(body.facets.industry).length).toBeGreaterThan(1);
  });

  it('exits 3 with the problem when the service refuses the query', async () => {
    const result = await runCli(['scenarios', '--limit', 'many'], { cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^scenarios failed: 400 validation_failed/);
  });
});

describe('cli: aeh mutate', () => {
  it('--json answers the mutation with its changes; the same seed gives the same output', async () => {
    const first = await runCli(['mutate', 'pass.json', '--type', 'typo', '--seed', '7', '--json'], { cwd });
    expect(first.code, first.stderr).toBe(0);
    const body = JSON.parse(first.stdout);
    expect(body).toMatchObject({ type: 'typo', seed: 7 });
    expect(body.changes.length).toBeGreaterThan(0);
    expect(body.changes[0]).toMatchObject({ task_id: expect.any(String), before: expect.any(String), after: expect.any(String) });
    const again = await runCli(['mutate', 'pass.json', '--type', 'typo', '--seed', '7', '--json'], { cwd });
    expect(again.stdout).toBe(first.stdout);
  });

  it('prints the mutated scenario on stdout and the changed inputs on stderr; accepts a catalog id and a chain', async () => {
    const result = await runCli(['mutate', 'fin-card-dispute-triage', '--type', 'typo,case'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe('fin-card-dispute-triage');
    expect(result.stderr).toMatch(/^classify: ".*" → ".*"$/m);
  });

  it('--count prints every variant', async () => {
    const result = await runCli(['mutate', 'pass.json', '--type', 'typo', '--count', '3'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(3);
  });

  it('exits 3 for an unknown mutator (naming the known ones) or a missing --type', async () => {
    const unknown = await runCli(['mutate', 'pass.json', '--type', 'shout'], { cwd });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^mutate failed: 400 validation_failed .*typo/);
    const missing = await runCli(['mutate', 'pass.json'], { cwd });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^usage: aeh mutate/);
  });
});

describe('cli: aeh spec-to-eval', () => {
  const prd = join(REPO, 'plugins', 'spec-to-eval', 'fixtures', 'retail-bullets.md');
  // Converted on the command's own thread: each command starts its own service, whose worker pool loaded the
  // converter cold for every conversion (~1 CPU-s each, 7 s of this file's 12). What these tests check is the
  // command (its output, lines and exit codes); that the pool gives the same answers, pitfalls included, is
  // test/hostile/spec-budget.test.ts's, and cli-e2e converts through a started service.
  const inline = () => ({ cwd, env: { AEH_METRIC_WORKERS: '0' } });

  it('turns a PRD into scenario stubs (exit 0)', async () => {
    const result = await runCli(['spec-to-eval', prd], inline());
    expect(result.code, result.stderr).toBe(0);
    const scenarios = JSON.parse(result.stdout);
    expect(scenarios.length).toBeGreaterThan(0);
    expect(scenarios[0].tasks.length).toBeGreaterThan(3);
    const json = JSON.parse((await runCli(['spec-to-eval', prd, '--json'], inline())).stdout);
    expect(json).toMatchObject({ source: 'structured', prd: { title: 'Returns Assistant', industry: 'Retail' } });
  });

  it('lists pitfalls with line numbers and exits 1', async () => {
    writeFileSync(join(cwd, 'bad.md'), '# PRD: Returns\n\n**Industry:** TBD\n**Use Case:** Returns\n\n## Tasks\n- refund a parcel\n');
    const result = await runCli(['spec-to-eval', 'bad.md'], inline());
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^spec-to-eval failed: 422 spec_parse_failed/);
    expect(result.stderr).toMatch(/^ {2}line 3: malformed_industry: /m);
    const json = await runCli(['spec-to-eval', 'bad.md', '--json'], inline());
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).pitfalls).toContainEqual(expect.objectContaining({ code: 'malformed_industry', line: 3 }));
  });

  it('prints warnings with their line on stderr and still converts', async () => {
    writeFileSync(join(cwd, 'loose.md'), '# Returns\n\nSome text.\n\n## Tasks\n- refund a parcel\n');
    const result = await runCli(['spec-to-eval', 'loose.md'], inline());
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: line 1: .*PRD:/m);
    expect(JSON.parse(result.stdout)[0].tasks).toHaveLength(1);
  });

  it('exits 3 for a missing file or missing argument', async () => {
    const missing = await runCli(['spec-to-eval', 'nowhere.md'], inline());
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^aeh spec-to-eval: .*ENOENT/);
    expect((await runCli(['spec-to-eval'], inline())).code).toBe(3);
  });
});

describe('cli: aeh doctor', () => {
  it('prints every check and exits 0 when none fails (warnings allowed)', async () => {
    const result = await runCli(['doctor'], { cwd });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/^ok {3}storage: /m);
    expect(result.stdout).toMatch(/^WARN llm_provider: /m);
    expect(result.stdout).toMatch(/^ {5}fix: set AEH_LLM_BASE_URL/m);
    expect(result.stdout).toMatch(/^overall: warn$/m);
    const json = JSON.parse((await runCli(['doctor', '--json'], { cwd })).stdout);
    expect(json.status).toBe('warn');
    expect(json.checks.map((check: { id: string }) => check.id)).toContain('catalog');
  });

  it('exits 1 when a check fails (a plugin in aeh.config.mjs reports its dependency down)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-doctor-'));
    writeFileSync(join(root, 'aeh.config.mjs'), `export default { plugins: [{ name: 'vector-db', setup(host) {
      host.doctorChecks.register({ id: 'vector_db', run: async () => ({ status: 'fail', message: 'vector database unreachable', hint: 'start it' }) }, 'vector-db');
    } }] };\n`);
    const result = await runCli(['doctor'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FAIL vector_db: vector database unreachable');
    expect(result.stdout).toContain('     fix: start it');
    expect(result.stdout).toMatch(/^overall: fail$/m);
    const json = await runCli(['doctor', '--json'], { cwd: root });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).status).toBe('fail');
  });

  it('exits 1 with a startup finding when the service cannot even start', async () => {
    const result = await runCli(['doctor', '--json'], { cwd, env: { DASHBOARD_API_KEY: 'too-short' } });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.checks[0]).toMatchObject({ id: 'startup', status: 'fail', message: expect.stringContaining('DASHBOARD_API_KEY') });
    expect(result.stdout).not.toContain('too-short');
  });
});

describe('cli: aeh keys and aeh verify usage', () => {
  it('keys rotate --json names the new key and the retired one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-keys-'));
    const first = await runCli(['keys', 'rotate', '--json'], { cwd: root });
    expect(first.code, first.stderr).toBe(0);
    const second = JSON.parse((await runCli(['keys', 'rotate', '--json'], { cwd: root })).stdout);
    expect(second.retired).toBe(JSON.parse(first.stdout).kid);
    expect(JSON.parse(readFileSync(join(root, '.aeh', 'keys', 'local-signer.json'), 'utf8'))).toBeTruthy();
    expect((await runCli(['keys'], { cwd: root })).code).toBe(3);
  });

  it('verify without its required options exits 3 with the usage line', async () => {
    const result = await runCli(['verify', 'certificate.json'], { cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^usage: aeh verify/);
  });
});
