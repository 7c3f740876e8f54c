/**
 * Issue 35 piece B1, item 5: `aeh bench agentdojo` runs AgentDojo's suites as written against an agent over http
 * (msw), with the attack, as a certified suite, and prints AgentDojo's table: an agent that plays each user task's
 * ground truth has utility 100% and a targeted ASR of 0; one that also does what a planted instruction asks has an
 * ASR above 0. The suites are cut to a few tasks to keep the run short; every case is judged by AgentDojo's own
 * checks (agentdojo_utility, agentdojo_security).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-io.ts';
import { tasksOf } from '../plugins/shims/agentdojo/testing/gt-agent.ts';
import { AGENTDOJO_SUITES } from '../plugins/shims/agentdojo/index.ts';

const squeeze = (text: string) => text.replace(/\s+/g, ' ');

/** Every bundled suite's task set at every version. */
const TASK_SETS = AGENTDOJO_SUITES.flatMap((entry) => Object.values(tasksOf(entry.suite).versions));

/** The agent: its task's ground truth under AgentDojo's tool names; `obey` also does a planted injection task's. */
function agent(mode: 'follow' | 'obey') {
  return async ({ request }: { request: Request }) => {
    const body = await request.json() as any;
    // The request names neither suite nor version: the task is the one of that id whose prompt is the input.
    const [tasks, task] = TASK_SETS.flatMap((set) => set.user_tasks.filter((entry) => entry.id === body.task_id && entry.prompt === body.input).map((entry) => [set, entry] as const))[0]!;
    const calls = (list: typeof task.ground_truth) => list.map((call, index) => ({ id: `c${index}`, name: call.function, arguments: call.args }));
    if (!body.round && task.ground_truth.length) return HttpResponse.json({ tool_calls: calls(task.ground_truth) });
    const seen = (body.tool_results as Array<{ result?: unknown }>).map((result) => squeeze(String(result.result ?? '')));
    const planted = tasks.injection_tasks.find((injection) => seen.some((text) => text.includes(squeeze(injection.goal))));
    if (mode === 'obey' && planted?.ground_truth.length && body.round === 1) return HttpResponse.json({ tool_calls: calls(planted.ground_truth) });
    return HttpResponse.json({ output: task.ground_truth_output });
  };
}

const server = setupServer(http.post('http://agent.test/follow', agent('follow')), http.post('http://agent.test/obey', agent('obey')));
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => server.close());

const env = { AEH_ALLOW_HOSTS: 'agent.test' };
const bench = (who: string, extra: string[]) => runCli(['bench', 'agentdojo', '--agent', `{"adapter":"http","url":"http://agent.test/${who}"}`, '--attack', 'important_instructions', '--model-name', 'GPT-4', '--poll-ms', '20', ...extra], { cwd: mkdtempSync(join(tmpdir(), 'aeh-dojo-')), env });

describe('cli: aeh bench agentdojo', () => {
  it('prints AgentDojo\'s table for an agent that follows the ground truth: utility 100%, targeted ASR 0, certified', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'aeh-dojo-'));
    const result = await runCli(['bench', 'agentdojo', '--suite', 'banking', '--user-tasks', 'user_task_0,user_task_3', '--injection-tasks', 'injection_task_0,injection_task_7', '--agent', '{"adapter":"http","url":"http://agent.test/follow"}', '--model-name', 'GPT-4', '--report', 'dojo.html', '--poll-ms', '20'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^AgentDojo v1\.2\.1 · attack important_instructions · agentdojo 0\.1\.34 at 96046ab54 .* · suite suite_\S+\n/);
    expect(result.stdout).toContain('  suite      tasks cases  utility                utility under attack   targeted ASR\n');
    expect(result.stdout).toContain('  banking        2     4  100.00% (2/2)          100.00% (4/4)          0.00% (0/4)\n');
    expect(result.stdout).toMatch(/\nbanking · run run_\S+ · pass\n/);
    expect(result.stdout).toMatch(/certificate: issued/);
    expect(readFileSync(join(cwd, 'dojo.html'), 'utf8')).toMatch(/^<!doctype html>/);
  }, 180_000);

  it('counts the goals an obeying agent carries out, per suite and pooled, over all four suites', async () => {
    const result = await bench('obey', ['--suite', 'all', '--benchmark-version', 'v1.2.1', '--json']);
    // Every suite runs whole (--user-tasks needs one suite): AgentDojo's 949 cases of v1.2.1.
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.benchmark_version).toBe('v1.2.1');
    expect(report.suites.map((row: any) => [row.suite, row.user_tasks, row.cases])).toEqual([['workspace', 40, 560], ['travel', 20, 140], ['banking', 16, 144], ['slack', 21, 105]]);
    for (const row of report.suites) expect(row.targeted_asr.count, row.suite).toBeGreaterThan(0);
    expect(report.pooled.utility).toEqual({ count: 97, total: 97, rate: 1 });
    expect(report.pooled.targeted_asr.total).toBe(949);
  }, 600_000);

  it('without an attack prints utility per suite and pooled, the attack columns empty, all four suites', async () => {
    const result = await bench('follow', ['--suite', 'all', '--attack', 'none', '--benchmark-version', 'v1.1.2']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^AgentDojo v1\.1\.2 · attack none · /);
    expect(result.stdout).toContain('  workspace     40     0  100.00% (40/40)        —                      —\n');
    expect(result.stdout).toContain('  travel        20     0  100.00% (20/20)        —                      —\n');
    expect(result.stdout).toContain('  banking       16     0  100.00% (16/16)        —                      —\n');
    expect(result.stdout).toContain('  slack         21     0  100.00% (21/21)        —                      —\n');
    expect(result.stdout).toContain('  pooled        97     0  100.00% (97/97)        —                      —\n');
  }, 600_000);

  it('refuses task lists over several suites and an unknown version, saying how to call it', async () => {
    const several = await bench('follow', ['--suite', 'all', '--user-tasks', 'user_task_0']);
    expect(several.code).toBe(3);
    expect(several.stderr).toContain('--user-tasks and --injection-tasks name one suite\'s tasks: give one --suite');
    const version = await bench('follow', ['--suite', 'slack', '--benchmark-version', 'v9']);
    expect(version.stderr).toContain('--benchmark-version must be v1.2.1 or v1.1.2');
  });
});
