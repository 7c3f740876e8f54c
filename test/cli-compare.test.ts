/**
 * The regression gate and reports on the command line, as a pipeline calls them: `aeh evaluate --baseline
 * latest --max-regression 0.05` (exit 4 on a regression, printing what regressed), `aeh compare`, `aeh report`
 * and `--report`, and JUnit and Markdown links made absolute by AEH_PUBLIC_URL or `--url`. The agent is a real
 * HTTP agent on 127.0.0.1 whose answers change between runs while its address (its agent key) stays the same;
 * the store is the embedded `fs` store, so runs of one command are there for the next.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { projectWithFixtures, runCli, CLI_KEY } from './cli-io.ts';
import { startNodeService, type NodeService } from '../runtime/node/start.ts';
import { silentLogger } from '../core/capabilities.ts';

const GOOD: Record<string, string> = { t1: 'Your balance is 42 EUR.', t2: 'Your card is blocked.' };
const replies: Record<string, string> = { ...GOOD };
let server: Server;
let cwd: string;
let env: Record<string, string | undefined>;

const runIdOf = (text: string) => /run (run_[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? '';

beforeAll(async () => {
  server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw || '{}');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ output: replies[body.task_id] ?? '' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cwd = projectWithFixtures();
  writeFileSync(join(cwd, 'gate.json'), JSON.stringify({
    id: 'cli-gate', title: 'CLI gate', industry: 'testing', use_case: 'ci_gate', tags: ['cli'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'http', url: `http://127.0.0.1:${port}/agent` }, topology: [],
    tasks: [
      { id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] },
      { id: 't2', input: 'Is my card blocked?', expected: { contains: 'blocked' }, metrics: [{ id: 'task_success' }] },
    ],
  }));
  // The embedded fs store under cwd/.aeh keeps the runs between commands.
  env = { AEH_STORAGE: undefined, AEH_ALLOW_HOSTS: '127.0.0.1' };
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('cli: the regression gate', () => {
  let second = '';
  let third = '';

  it('passes the first run with --baseline latest (nothing earlier), then an unchanged one', async () => {
    const first = await runCli(['evaluate', 'gate.json', '--baseline', 'latest', '--max-regression', '0.05'], { cwd, env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('gate: no earlier succeeded run of this scenario and agent to compare with; nothing to gate yet');
    const again = await runCli(['evaluate', 'gate.json', '--baseline', 'latest', '--max-regression', '0.05'], { cwd, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`no regression beyond 0.05: ${runIdOf(again.stdout)} against latest = ${runIdOf(first.stdout)}`);
    second = runIdOf(again.stdout);
  });

  it('exits 4 when the run regresses beyond the threshold and prints what regressed; --report writes the HTML report', async () => {
    replies.t1 = 'I do not know your balance.';
    const result = await runCli(['evaluate', 'gate.json', '--baseline', 'latest', '--max-regression', '0.05', '--report', 'out/report.html'], { cwd, env });
    expect(result.code, result.stderr).toBe(4);
    third = runIdOf(result.stdout);
    // The wrong answer fails t1's declared check (expected.contains): the run fails whatever its index.
    expect(result.stdout).toMatch(/^fail CLI gate: index 0\.5/);
    expect(result.stdout).toContain('decided by must_pass: 1 task failed: task t1 task_success LOGIC.TASK_FAILED');
    expect(result.stderr).toContain(`REGRESSED beyond 0.05: ${third} against latest = ${second}`);
    expect(result.stderr).toMatch(/ {2}index: index 1\.000 → 0\.\d+ \(-0\.\d+, more than 0\.05 lower\)/);
    expect(result.stderr).toMatch(/ {2}dimension: reliability 1\.000 → 0\.500/);
    expect(result.stderr).toContain('  new_failure: t1/task_success: new LOGIC.TASK_FAILED');
    expect(result.stderr).toContain('  t1: pass → fail (regressed); new LOGIC.TASK_FAILED (task_success)');
    const html = readFileSync(join(cwd, 'out', 'report.html'), 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(third);
    expect(html).toContain('I do not know your balance.');
  });

  it('a drop within the threshold is no index regression, but a new failure still is; --baseline <run_id> compares with that run', async () => {
    const within = await runCli(['evaluate', 'gate.json', '--baseline', second, '--max-regression', '0.9'], { cwd, env });
    // The index drop is within 0.9, but t1's failure is new against that run: still a regression.
    expect(within.code, within.stderr).toBe(4);
    expect(within.stderr).not.toContain('  index:');
    const same = await runCli(['evaluate', 'gate.json', '--baseline', third], { cwd, env });
    // Nothing regressed against the run with the same answers: the run's own verdict (fail) decides.
    expect(same.code, same.stderr).toBe(1);
    expect(same.stderr).toContain('no regression beyond 0');
  });

  it('--baseline pinned without a pinned baseline is an error (3); an unknown run id too', async () => {
    const pinned = await runCli(['evaluate', 'gate.json', '--baseline', 'pinned'], { cwd, env });
    expect(pinned.code).toBe(3);
    expect(pinned.stderr).toMatch(/gate failed: 404 not_found no baseline is pinned for scenario cli-gate/);
    const unknown = await runCli(['evaluate', 'gate.json', '--baseline', 'run_nope'], { cwd, env });
    expect(unknown.code).toBe(3);
  });

  it('aeh baseline pins a run for its scenario and agent, which --baseline pinned then gates against; shows and unpins it', async () => {
    const pinned = await runCli(['baseline', 'pin', second], { cwd, env });
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toMatch(new RegExp(`^pinned cli-gate {2}agent \\S+ {2}run ${second} {2}index 1 {2}pass`));
    const shown = await runCli(['baseline', 'show', 'cli-gate', '--json'], { cwd, env });
    expect(JSON.parse(shown.stdout).items.map((item: { run_id: string }) => item.run_id)).toEqual([second]);
    const gated = await runCli(['evaluate', 'gate.json', '--baseline', 'pinned', '--max-regression', '0.05'], { cwd, env });
    expect(gated.code, gated.stderr).toBe(4); // t1 still answers badly: regressed against the pinned good run
    expect(gated.stderr).toContain(`against baseline = ${second}`);
    const unpinned = await runCli(['baseline', 'unpin', 'cli-gate'], { cwd, env });
    expect(unpinned.code, unpinned.stderr).toBe(0);
    expect(unpinned.stdout).toContain(`unpinned cli-gate`);
    expect((await runCli(['baseline', 'show', 'cli-gate'], { cwd, env })).stdout).toContain('no baseline is pinned for cli-gate');
    const unknown = await runCli(['baseline', 'pin', 'run_nope'], { cwd, env });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/baseline pin failed: 404/);
    for (const args of [['baseline'], ['baseline', 'pin'], ['baseline', 'drop', 'x'], ['baseline', 'pin', second, '--agent', 'a']]) {
      const refused = await runCli(args, { cwd, env });
      expect(refused.code, args.join(' ')).toBe(3);
      expect(refused.stderr).toContain('usage: aeh baseline');
    }
  });

  it('refuses --max-regression without --baseline, or out of range', async () => {
    for (const args of [['--max-regression', '0.05'], ['--baseline', 'latest', '--max-regression', '2'], ['--baseline', 'latest', '--max-regression', 'x']]) {
      const result = await runCli(['evaluate', 'gate.json', ...args], { cwd, env });
      expect(result.code, args.join(' ')).toBe(3);
      expect(result.stderr).toMatch(/--max-regression/);
    }
  });

  it('aeh compare prints the comparison and exits 4 on a regression, 0 without; --json is the API answer', async () => {
    const text = await runCli(['compare', second, third, '--max-regression', '0.05'], { cwd, env });
    expect(text.code, text.stderr).toBe(4);
    expect(text.stdout).toContain(`REGRESSED beyond 0.05: ${third} against ${second}`);
    expect(text.stdout).toContain('tasks: 2 (1 regressed, 0 improved, 1 same); failures 1 new, 0 fixed, 0 unchanged; 1 answer(s) changed');
    expect(text.stdout).toContain('usage: 2 → 2 agent calls; — → — tokens'); // this agent reports no usage: never zero
    const json = await runCli(['compare', second, third, '--json', '--answers', '5'], { cwd, env });
    expect(json.code).toBe(4);
    const body = JSON.parse(json.stdout);
    expect(body.tasks[0].answer).toEqual({ base: GOOD.t1, head: 'I do not know your balance.' });
    const back = await runCli(['compare', third, second], { cwd, env });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain('t1: fail → pass (improved); fixed LOGIC.TASK_FAILED (task_success)');
    expect((await runCli(['compare', second], { cwd, env })).code).toBe(3);
    expect((await runCli(['compare', 'run_nope', third], { cwd, env })).code).toBe(3);
  });

  it('aeh compare compares two suites (suite:<id>), exit 4 on a regression', async () => {
    writeFileSync(join(cwd, 'good.json'), JSON.stringify({ adapter: 'scripted', replies: { '*': 'dispute' } }));
    writeFileSync(join(cwd, 'bad.json'), JSON.stringify({ adapter: 'scripted', replies: { '*': 'no idea' } }));
    const suiteEnv = { ...env, AEH_CATALOG_DIRS: cwd };
    const runSuite = async (agent: string) => JSON.parse((await runCli(['suite', 'run', '--scenarios', 'cli-pass', '--agent', agent, '--json'], { cwd, env: suiteEnv })).stdout).suite_id as string;
    const good = await runSuite('@good.json');
    const bad = await runSuite('@bad.json');
    const regressed = await runCli(['compare', `suite:${good}`, `suite:${bad}`, '--max-regression', '0.05'], { cwd, env: suiteEnv });
    expect(regressed.code, regressed.stderr).toBe(4);
    expect(regressed.stdout).toContain(`REGRESSED beyond 0.05: suite ${bad} against ${good}`);
    expect(regressed.stdout).toMatch(/new_failure: cli-pass \(spec:[0-9a-f]{16}\): classify\/task_success: new LOGIC\.TASK_FAILED/);
    expect(regressed.stdout).toMatch(/runs: 1 of 1 pairs compared, 1 regressed/);
    expect((await runCli(['compare', `suite:${bad}`, `suite:${good}`], { cwd, env: suiteEnv })).code).toBe(0);
    const report = await runCli(['report', bad, '-o', 'out/suite.html'], { cwd, env: suiteEnv });
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'out', 'suite.html'), 'utf8')).toContain(`<code>${bad}</code>`);
  });

  it('aeh report writes a run\'s HTML report, to a file or stdout; an unknown run is exit 3', async () => {
    const saved = await runCli(['report', third, '-o', 'out/third.html'], { cwd, env });
    expect(saved.code, saved.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'out', 'third.html'), 'utf8')).toContain('<h2 id="transcripts">Transcripts</h2>');
    const printed = await runCli(['report', third], { cwd, env });
    expect(printed.stdout.startsWith('<!doctype html>')).toBe(true);
    const described = await runCli(['report', third, '-o', 'out/again.html', '--json'], { cwd, env });
    expect(described.code, described.stderr).toBe(0);
    expect(JSON.parse(described.stdout)).toEqual({ id: third, path: join(cwd, 'out', 'again.html'), bytes: readFileSync(join(cwd, 'out', 'again.html')).length });
    const inline = JSON.parse((await runCli(['report', third, '--json'], { cwd, env })).stdout);
    expect(inline).toMatchObject({ id: third, bytes: Buffer.byteLength(inline.html) });
    expect(inline.html.startsWith('<!doctype html>')).toBe(true);
    const missing = await runCli(['report', 'run_nope', '-o', 'out/none.html'], { cwd, env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/report failed: 404/);
    expect(existsSync(join(cwd, 'out', 'none.html'))).toBe(false);
  });
});

describe('cli: absolute links in JUnit and Markdown', () => {
  it('uses AEH_PUBLIC_URL when the service has one', async () => {
    const publicEnv = { ...env, AEH_PUBLIC_URL: 'https://aeh.example.com/eval' };
    const markdown = await runCli(['evaluate', 'gate.json', '--format', 'markdown'], { cwd, env: publicEnv });
    const runId = /Run \[`(run_[^`]+)`\]/.exec(markdown.stdout)?.[1];
    expect(runId).toBeTruthy();
    expect(markdown.stdout).toContain(`[certificate](https://aeh.example.com/eval/v1/certificates/${runId}) · [verify](https://aeh.example.com/eval/api/v1/verify/${runId}) · [report](https://aeh.example.com/eval/api/v1/runs/${runId}/report)`);
    const junit = await runCli(['evaluate', 'gate.json', '--format', 'junit'], { cwd, env: publicEnv });
    expect(junit.stdout).toMatch(/<property name="certificate_url" value="https:\/\/aeh\.example\.com\/eval\/v1\/certificates\/run_[^"]+"\/>/);
    expect(junit.stdout).toMatch(/<property name="report_url" value="https:\/\/aeh\.example\.com\/eval\/api\/v1\/runs\/run_[^"]+\/report"\/>/);
  });

  it('uses --url against a running service without a public URL; paths in-process', async () => {
    const service: NodeService = await startNodeService({ PROJECT_ROOT: cwd, PORT: '0', HOST: '127.0.0.1', DASHBOARD_API_KEY: CLI_KEY, AEH_STORAGE: 'memory', AEH_ALLOW_HOSTS: '127.0.0.1' }, cwd, silentLogger);
    try {
      const markdown = await runCli(['evaluate', 'gate.json', '--format', 'markdown', '--url', service.url, '--key', CLI_KEY], { cwd, env });
      expect(markdown.stdout).toMatch(new RegExp(`\\[certificate\\]\\(${service.url.replace(/[.]/g, '\\.')}/v1/certificates/run_`));
    } finally {
      await service.stop();
    }
    const local = await runCli(['evaluate', 'gate.json', '--format', 'markdown'], { cwd, env });
    expect(local.stdout).toMatch(/\[certificate\]\(\/v1\/certificates\/run_[^)]+\) · \[verify\]\(\/api\/v1\/verify\/run_[^)]+\)\n/);
  });
});
