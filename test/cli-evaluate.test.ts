/**
 * `aeh evaluate` in-process, as a pipeline calls it: exit codes for pass, fail, warning (and --allow-warning)
 * and error; every output format; --output; --artifacts followed by an offline `aeh verify`; progress on a
 * terminal and in CI; usage errors.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { projectWithFixtures, runCli } from './cli-io.ts';

let cwd: string;
beforeAll(() => {
  cwd = projectWithFixtures();
});

function junitCases(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' || name === 'property' }).parse(xml);
  const suite = parsed.testsuites.testsuite;
  return { suites: parsed.testsuites, suite, cases: suite.testcase as Array<Record<string, any>> };
}

describe('cli: aeh evaluate exit codes', () => {
  it('exits 0 when the scenario passes, with a one-line summary on stdout', async () => {
    const result = await runCli(['evaluate', 'pass.json'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^pass CLI fixture: everything passes: index 1, 0 failure\(s\), run run_/);
  });

  it('exits 1 when the scenario fails, listing each failure with its taxonomy code', async () => {
    const result = await runCli(['evaluate', 'fail.json'], { cwd });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^fail /);
    expect(result.stdout).toContain('SECURITY.SECRET_LEAK leak/secret_leak');
    expect(result.stdout).toContain('LOGIC.TASK_FAILED classify/task_success');
  });

  it('exits 1 when a declared check fails whatever the index; relaxed by flags, exits 2 on the warning, and 0 with --allow-warning', async () => {
    // Half the tasks miss their expected answer: by default that fails the run (a declared check is must-pass).
    const gated = await runCli(['evaluate', 'warning.json'], { cwd });
    expect(gated.code, gated.stderr).toBe(1);
    expect(gated.stdout).toMatch(/^fail .*index 0\.5/);
    expect(gated.stdout).toContain('decided by must_pass: 1 task failed: task wrong task_success LOGIC.TASK_FAILED');
    const relaxed = ['--must-pass', 'none', '--fail-on-severity', 'none'];
    const warned = await runCli(['evaluate', 'warning.json', ...relaxed], { cwd });
    expect(warned.code, warned.stderr).toBe(2);
    expect(warned.stdout).toMatch(/^warning .*index 0\.5/);
    expect(warned.stdout).toContain('decided by index: no gate failed; the index 0.5 is below 0.8');
    const allowed = await runCli(['evaluate', 'warning.json', '--allow-warning', ...relaxed], { cwd });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/^warning /);
    const bad = await runCli(['evaluate', 'warning.json', '--min-pass-rate', '2'], { cwd });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('--min-pass-rate must be a number from 0 to 1, got "2"');
  });

  it('exits 3 when the run cannot complete (the agent address is refused by the SSRF guard)', async () => {
    const result = await runCli(['evaluate', 'error.json'], { cwd });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^error /);
    expect(result.stdout).toContain('INFRA.SSRF_BLOCKED');
  });

  it('exits 3 and names the problem when the service refuses the scenario', async () => {
    const result = await runCli(['evaluate', 'invalid.json'], { cwd });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/evaluate failed: 400 validation_failed/);
    expect(result.stderr).toContain('no_such_metric');
  });

  it('exits 3 for an unknown catalog id or a file that is not JSON', async () => {
    const unknown = await runCli(['evaluate', 'no-such-scenario-anywhere'], { cwd });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/404 not_found/);
    writeFileSync(join(cwd, 'broken.json'), '{"id": ');
    const broken = await runCli(['evaluate', 'broken.json'], { cwd });
    expect(broken.code).toBe(3);
    expect(broken.stderr).toMatch(/^aeh evaluate: .*JSON/);
  });

  it('evaluates a catalog scenario by id', async () => {
    const result = await runCli(['evaluate', 'fin-card-dispute-triage', '--json'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ scenario_id: 'fin-card-dispute-triage', status: 'succeeded', compliance: { status: 'pass' } });
  });
});

describe('cli: aeh evaluate output formats', () => {
  it('--json prints the run record alone (no progress), whatever the outcome', async () => {
    const result = await runCli(['evaluate', 'fail.json', '--json'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const run = JSON.parse(result.stdout);
    expect(run).toMatchObject({ scenario_id: 'cli-fail', status: 'succeeded', compliance: { status: 'fail' } });
    expect(run.failures.map((failure: { code: string }) => failure.code).sort()).toEqual(['LOGIC.TASK_FAILED', 'SECURITY.SECRET_LEAK']);
  });

  it('JUnit: valid XML, one test case per task and metric, failures typed by taxonomy code, unmeasured metrics skipped', async () => {
    const result = await runCli(['evaluate', 'pass.json', '--format', 'junit'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    const { suites, suite, cases } = junitCases(result.stdout);
    // One case per task and metric, and the verdict as a case of its own.
    expect(cases.map((testcase) => testcase.name)).toEqual(['classify · task_success', 'explain · ai_disclosure', 'explain · llm_judge', 'verdict']);
    expect(cases.every((testcase) => testcase.classname === 'cli-pass')).toBe(true);
    // No language-model provider: the judge did not measure, so it is skipped, never counted as passed.
    expect(cases[2].skipped).toMatchObject({ message: 'not measured' });
    expect(cases[0].failure).toBeUndefined();
    expect(cases[3].failure).toBeUndefined();
    expect(suites).toMatchObject({ tests: '4', failures: '0', errors: '0', skipped: '1' });
    const property = (name: string) => suite.properties.property.find((entry: { name: string }) => entry.name === name)?.value;
    expect(property('compliance')).toBe('pass');
    expect(property('decided_by')).toBe('index');

    const failed = junitCases((await runCli(['evaluate', 'fail.json', '--format', 'junit'], { cwd })).stdout);
    // Two failing checks and the failed verdict, typed by the gate that decided it.
    expect(failed.suites).toMatchObject({ tests: '3', failures: '3', errors: '0', skipped: '0' });
    expect(failed.cases.find((testcase) => testcase.name === 'verdict')!.failure.type).toBe('must_pass');
    const leak = failed.cases.find((testcase) => testcase.name === 'leak · secret_leak')!;
    expect(leak.failure.type).toBe('SECURITY.SECRET_LEAK');
    expect(leak.failure['#text']).toMatch(/^SECURITY\.SECRET_LEAK \[critical\]/);
    expect(failed.suite.name).toBe('CLI fixture: leaks a secret <and> fails');
  });

  it('JUnit: a run that could not complete has an error test case and its tasks are skipped', async () => {
    const result = await runCli(['evaluate', 'error.json', '--format', 'junit'], { cwd });
    expect(result.code).toBe(3);
    const { suites, cases } = junitCases(result.stdout);
    expect(suites.errors).toBe('1');
    expect(cases.find((testcase) => testcase.name === 'run')!.error.type).toBe('ssrf_blocked');
    expect(cases.find((testcase) => testcase.name === 'classify · task_success')!.skipped).toBeDefined();
    expect(cases.find((testcase) => testcase.name === 'classify · engine')!.failure.type).toBe('INFRA.SSRF_BLOCKED');
  });

  it('Markdown for a pull-request comment: status heading, dimension table, failures table', async () => {
    const result = await runCli(['evaluate', 'warning.json', '--format', 'markdown', '--allow-warning', '--must-pass', 'none', '--fail-on-severity', 'none'], { cwd });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('### ⚠️ CLI fixture: half the tasks fail: **warning** (index 0.50)');
    expect(result.stdout).toContain('Decided by **index**: no gate failed; the index 0.5 is below 0.8');
    expect(result.stdout).toContain('Policy: no severity gate · must pass: none · min pass rate 1 · pass at 0.8');
    expect(result.stdout).toContain('| safety | security | reliability | fairness | explainability | privacy | resilience |');
    expect(result.stdout).toContain('| — | — | 0.50 | — | — | — | — |');
    expect(result.stdout).toMatch(/\| wrong \| task_success \| `LOGIC.TASK_FAILED` \| high \| output does not equal "return" \|/);
  });

  it('--output writes the report to a file (creating its folder) and says so on stderr', async () => {
    const written = await runCli(['evaluate', 'pass.json', '--format', 'junit', '--output', 'reports/junit.xml'], { cwd });
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toBe('');
    expect(written.stderr).toContain('wrote reports/junit.xml (pass)');
    expect(XMLValidator.validate(readFileSync(join(cwd, 'reports', 'junit.xml'), 'utf8'))).toBe(true);
    // A path that cannot be written is an I/O error, reported with exit 3, not a crash.
    writeFileSync(join(cwd, 'a-file'), '');
    const blocked = await runCli(['evaluate', 'pass.json', '--output', 'a-file/report.txt'], { cwd });
    expect(blocked.code).toBe(3);
    expect(blocked.stderr).toMatch(/^aeh evaluate: .*(ENOTDIR|EEXIST)/m);
  });
});

describe('cli: aeh evaluate --artifacts and the offline gate', () => {
  it('saves the certificate, trace, sidecars and JWKS, which aeh verify accepts offline; a changed trace is refused', async () => {
    const evaluated = await runCli(['evaluate', 'fail.json', '--artifacts', 'evidence'], { cwd, env: { AEH_STORAGE: undefined } });
    expect(evaluated.code, evaluated.stderr).toBe(1);
    const dir = join(cwd, 'evidence');
    expect(readdirSync(dir).sort()).toEqual(['certificate.json', 'failures.json', 'jwks.json', 'run.json', 'scenario.json', 'scores.json', 'summary.json', 'trace.jsonl']);
    expect(evaluated.stderr).toContain('saved certificate.json, trace.jsonl, ');
    const certificate = JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8'));
    expect(Object.keys(certificate.evidence_ledger).sort()).toEqual(['failures.json', 'scenario.json', 'scores.json', 'summary.json']);
    expect(certificate.compliance.status).toBe('fail');

    const verifyArgs = ['verify', 'evidence/certificate.json', '--trace', 'evidence/trace.jsonl', '--sidecars', 'evidence', '--jwks', 'evidence/jwks.json'];
    const verified = await runCli(verifyArgs, { cwd });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout.trim().split('\n').at(-1)).toBe('valid');

    writeFileSync(join(dir, 'trace.jsonl'), readFileSync(join(dir, 'trace.jsonl'), 'utf8').replace('CANARY', 'CANARX'));
    const tampered = await runCli([...verifyArgs, '--json'], { cwd });
    expect(tampered.code).toBe(1);
    const report = JSON.parse(tampered.stdout);
    expect(report.status).toBe('invalid');
    expect(report.checks.find((check: { id: string }) => check.id === 'trace_hash').ok).toBe(false);
  });
});

describe('cli: aeh evaluate progress and usage', () => {
  it('draws a progress bar on a terminal and plain lines in CI', async () => {
    const tty = await runCli(['evaluate', 'pass.json'], { cwd, tty: true, env: { CI: undefined } });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toMatch(/\r\[[#-]{30}\] \d+\/\d+ /);
    expect(tty.stderr.endsWith('\n')).toBe(true);
    const ci = await runCli(['evaluate', 'pass.json'], { cwd, tty: true, env: { CI: 'true' } });
    expect(ci.stderr).not.toContain('\r');
    expect(ci.stderr).toMatch(/^progress: \w+ \d+\/\d+$/m);
    expect(ci.stderr.trim().split('\n').at(-1)).toMatch(/^progress: succeeded (\d+)\/\1$/);
  });

  it('refuses bad usage with exit 3 and the usage line', async () => {
    for (const argv of [['evaluate'], ['evaluate', 'a.json', 'b.json'], ['evaluate', 'pass.json', '--format', 'xml'], ['evaluate', 'pass.json', '--timeout', 'soon'], ['evaluate', 'pass.json', '--timeout', '0']]) {
      const result = await runCli(argv, { cwd });
      expect(result.code, argv.join(' ')).toBe(3);
      expect(result.stderr, argv.join(' ')).toContain('usage: aeh evaluate <path|scenario-id>');
      expect(result.stdout).toBe('');
    }
    const unknownOption = await runCli(['evaluate', 'pass.json', '--fromat', 'junit'], { cwd });
    expect(unknownOption.code).toBe(3);
    expect(unknownOption.stderr).toMatch(/^aeh evaluate: Unknown option '--fromat'/);
  });
});
