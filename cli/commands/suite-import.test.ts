import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/cli-io.ts';
import { etaOf, formatDuration } from '../progress.ts';

function project(): { cwd: string; env: Record<string, string> } {
  const cwd = mkdtempSync(join(tmpdir(), 'aeh-cli-suite-'));
  const catalog = join(cwd, 'catalog');
  mkdirSync(catalog);
  for (const id of ['cli-a', 'cli-b', 'cli-c']) {
    writeFileSync(join(catalog, `${id}.json`), JSON.stringify({
      id, title: id, industry: 'Finance', use_case: 'Support', tags: ['clitest'], policy_ref: 'NIST AI 100-1',
      agent: { adapter: 'scripted', replies: {} }, topology: [],
      tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] }],
    }));
  }
  writeFileSync(join(cwd, 'good.json'), JSON.stringify({ adapter: 'scripted', replies: { t1: 'Your balance is 42 EUR.' } }));
  writeFileSync(join(cwd, 'bad.json'), JSON.stringify({ adapter: 'scripted', replies: { t1: 'No idea.' } }));
  return { cwd, env: { AEH_CATALOG_DIRS: catalog } };
}

describe('cli: aeh suite', () => {
  it('launches a suite, draws a progress bar on a terminal and prints each agent\'s summary', async () => {
    const { cwd, env } = project();
    const result = await runCli(['suite', 'run', '--query', 'tag=clitest', '--agent', '@good.json', '--agent', '@bad.json', '--name', 'cli', '--poll-ms', '20'], { cwd, env, tty: true });
    expect(result.stderr).toMatch(/\[[#-]{30}\] \d+\/6/);
    expect(result.stdout).toMatch(/suite suite_\w+ \(cli\): finished, 6 runs over 3 scenarios/);
    expect(result.stdout).toMatch(/spec:\w+: index 1\.000, pass rate 100%, 3\/3 ended/);
    expect(result.stdout).toMatch(/pass rate 0%, 3\/3 ended; failures: LOGIC\.TASK_FAILED ×3/);
    expect(result.stdout).toMatch(/certificate: issued \(\/api\/v1\/verify\/suite\/suite_\w+\)/);
    expect(result.code).toBe(1);
  }, 30_000);

  it('takes a scenario file beside catalog ids, and the verdict flags for every run', async () => {
    const { cwd, env } = project();
    writeFileSync(join(cwd, 'mine.json'), JSON.stringify({
      id: 'cli-mine', title: 'mine', industry: 'Finance', use_case: 'Support', tags: [], policy_ref: 'NIST AI 100-1',
      agent: { adapter: 'scripted', replies: {} }, topology: [],
      tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] }],
    }));
    const passing = await runCli(['suite', 'run', '--scenarios', 'mine.json,cli-a', '--agent', '@good.json', '--json', '--poll-ms', '20'], { cwd, env });
    expect(passing.code, passing.stderr).toBe(0);
    expect(JSON.parse(passing.stdout).runs.map((run: { scenario_id: string; compliance: string }) => [run.scenario_id, run.compliance])).toEqual([['cli-mine', 'pass'], ['cli-a', 'pass']]);
    // The wrong answer fails the declared check; relaxed by flags, the runs stand on their index (0: fail all the same).
    const failing = await runCli(['suite', 'run', '--scenarios', 'mine.json', '--agent', '@bad.json', '--must-pass', 'none', '--fail-on-severity', 'none', '--json', '--poll-ms', '20'], { cwd, env });
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout).verdict).toEqual({ must_pass: [], fail_on_severity: 'none' });
  }, 30_000);

  it('exits 0 when every run passed, and answers --json', async () => {
    const { cwd, env } = project();
    const result = await runCli(['suite', 'run', '--scenarios', 'cli-a,cli-b', '--agent', '@good.json', '--json', '--poll-ms', '20'], { cwd, env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'finished', agents: [{ pass_rate: 1 }] });
    expect(result.stderr).toBe('');
  }, 30_000);

  it('reports a refused suite with its paths and exit 3', async () => {
    const { cwd, env } = project();
    const result = await runCli(['suite', 'run', '--scenarios', 'cli-a,nope'], { cwd, env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/\/scenarios\/1: no catalog scenario has id "nope"/);
  });
});

describe('cli: aeh import', () => {
  it('writes the scenario of a CSV file with -o', async () => {
    const { cwd } = project();
    writeFileSync(join(cwd, 'data.csv'), 'input,expected,metrics,tags\nWhat is my balance?,42 EUR,task_success,finance\n=1+1,2,,\n');
    const result = await runCli(['import', 'data.csv', '-o', 'scenario.json', '--id', 'balances'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: \/rows\/2\/input: starts with "="/);
    const scenario = JSON.parse(readFileSync(join(cwd, 'scenario.json'), 'utf8'));
    expect(scenario).toMatchObject({ id: 'balances', tags: ['finance'], tasks: [{ id: 'row-1', expected: { contains: '42 EUR' } }, { id: 'row-2', input: '=1+1' }] });
  });

  it('answers --json with the API\'s answer, beside the file -o writes; a refused dataset\'s problems too (exit 1)', async () => {
    const { cwd } = project();
    writeFileSync(join(cwd, 'data.csv'), 'input,expected\nWhat is my balance?,42 EUR\n');
    const result = await runCli(['import', 'data.csv', '-o', 'scenario.json', '--id', 'balances', '--json'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({ rows: 1, scenario: { id: 'balances', tasks: [{ id: 'row-1' }] } });
    expect(JSON.parse(readFileSync(join(cwd, 'scenario.json'), 'utf8'))).toEqual(answer.scenario);
    writeFileSync(join(cwd, 'bad.jsonl'), '{"expected": "b"}\n');
    const refused = await runCli(['import', 'bad.jsonl', '--json'], { cwd });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: '/rows/1/input' })] });
  });

  it('lists the problems of a dataset by row and exits 1', async () => {
    const { cwd } = project();
    writeFileSync(join(cwd, 'bad.jsonl'), '{"input": "a", "expected": "b"}\n{"expected": "b"}\nnot json\n');
    const result = await runCli(['import', 'bad.jsonl'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\/rows\/2\/input: is required/);
    expect(result.stderr).toMatch(/\/rows\/3: is not a JSON object/);
  });
});

describe('cli: progress ETA', () => {
  it('estimates the time left from the pace since progress began', () => {
    expect(etaOf(null, 1000, 1, 10)).toBeNull();
    expect(etaOf({ at: 0, done: 0 }, 10_000, 2, 10)).toBe(40_000);
    expect(etaOf({ at: 0, done: 0 }, 10_000, 10, 10)).toBeNull();
    expect(formatDuration(65_000)).toBe('1m05s');
    expect(formatDuration(4_200)).toBe('4s');
  });
});
