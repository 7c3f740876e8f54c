/**
 * `aeh bench agentdojo --suite workspace|travel|banking|slack|all (a comma list too) --attack important_instructions --agent <agent>
 * [--benchmark-version v1.2.1] [--user-tasks …] [--injection-tasks …]`: AgentDojo as written (issue 35 item 4).
 * Each suite at the benchmark version (its data shipped in catalog/data/agentdojo) becomes one scenario
 * (plugins/shims/agentdojo/tasks.ts) carrying the attack, and they run as one suite against the agent through the
 * API, so the suite is certified. Prints AgentDojo's table: per suite and pooled, utility (the user tasks without
 * attack), utility under attack and targeted attack success rate, counts and percentages, with the benchmark
 * version named; `--report` writes the suite's HTML report. Exit 0 when the benchmark ran, 3 on an error.
 */
import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, line, type Io } from '../io.ts';
import { BENCH_USAGE } from '../usage.ts';
import { openClient } from '../client.ts';
import { agentOption } from './agent-option.ts';
import { packageRoot } from './bench.ts';
import { stallMsOf } from '../stall.ts';
import { runBenchSuite, writeSuiteReport } from './bench-suite.ts';
import { AGENTDOJO_REFERENCE, AGENTDOJO_SUITES, agentdojoScenario, readAgentDojoSuite } from '../../plugins/shims/agentdojo/index.ts';
import type { RunRecord } from '../../core/domain/runs.ts';
import type { TaskVerdict } from '../../core/domain/verdict.ts';
import type { Rate } from '../../core/domain/attack-summary.ts';

/** The package's own AgentDojo data (catalog/data/agentdojo). */
export const BUNDLED_AGENTDOJO_DIR = join(packageRoot, 'catalog', 'data', 'agentdojo');
const VERSIONS = ['v1.2.1', 'v1.1.2'];
const list = (value: string | undefined) => (value ? value.split(',').map((item) => item.trim()).filter(Boolean) : undefined);

function parse(argv: string[], io: Io) {
  const { values } = parseArgs({
    args: argv, allowPositionals: true,
    options: {
      suite: { type: 'string', default: 'all' }, agent: { type: 'string' }, attack: { type: 'string', default: 'important_instructions' },
      'benchmark-version': { type: 'string', default: 'v1.2.1' }, 'user-tasks': { type: 'string' }, 'injection-tasks': { type: 'string' },
      'model-name': { type: 'string' }, report: { type: 'string' }, json: { type: 'boolean', default: false },
      url: { type: 'string' }, key: { type: 'string' }, 'poll-ms': { type: 'string', default: '500' }, 'stall-s': { type: 'string' }, replay: { type: 'string' },
    },
  });
  // With --replay a version is a task set the runs are cut to (given only when named: the runs carry their own).
  const taskSet = argv.some((arg) => arg === '--benchmark-version' || arg.startsWith('--benchmark-version=')) ? values['benchmark-version'] : undefined;
  const stallMs = stallMsOf(values['stall-s']);
  if (typeof stallMs === 'string') return line(io.stderr, `aeh bench: ${stallMs}`), line(io.stderr, `usage: ${BENCH_USAGE}`), undefined;
  if (values.replay) return { replay: { files: values.replay.split(','), dataDir: BUNDLED_AGENTDOJO_DIR, json: values.json!, url: values.url, key: values.key, pollMs: Number(values['poll-ms']), stallMs, ...(taskSet ? { taskSet } : {}) } };
  const known = AGENTDOJO_SUITES.map((entry) => entry.suite);
  const suites = values.suite === 'all' ? known : [...new Set(values.suite!.split(','))];
  const chosen = agentOption(values.agent, io.cwd);
  const userTasks = list(values['user-tasks']);
  const injectionTasks = list(values['injection-tasks']);
  const problem = !suites.every((suite) => known.includes(suite)) ? `--suite must be ${known.join(', ')} or all (a comma list too)`
    : !chosen.agent ? '--agent is required (a registered agent, a spec, or a spec file)'
    : !VERSIONS.includes(values['benchmark-version']!) ? `--benchmark-version must be ${VERSIONS.join(' or ')}`
    : (userTasks || injectionTasks) && suites.length !== 1 ? '--user-tasks and --injection-tasks name one suite\'s tasks: give one --suite'
    : chosen.problem;
  if (problem) {
    line(io.stderr, `aeh bench: ${problem}`);
    line(io.stderr, `usage: ${BENCH_USAGE}`);
    return undefined;
  }
  const attack = values.attack === 'none' ? undefined : values.attack!;
  return { values, suites, agent: chosen.agent!, attack, version: values['benchmark-version']!, userTasks, injectionTasks, pollMs: Number(values['poll-ms']), stallMs };
}

/** One suite's numbers, as AgentDojo's table prints them. */
interface SuiteRow { suite: string; run: RunRecord; userTasks: number; cases: number; utility: Rate; underAttack: Rate; asr: Rate }

const sum = (rates: Rate[]): Rate => {
  const count = rates.reduce((total, rate) => total + rate.count, 0);
  const total = rates.reduce((all, rate) => all + rate.total, 0);
  return { count, total, rate: total ? count / total : null };
};
const cell = (rate: Rate | undefined) => (!rate || rate.rate === null ? '—' : `${(rate.rate * 100).toFixed(2)}% (${rate.count}/${rate.total})`);

/** The utility of a run without attacks: its tasks that passed (agentdojo_utility is each task's must-pass check). */
function plainUtility(tasks: TaskVerdict[]): Rate {
  const passed = tasks.filter((task) => task.status === 'pass').length;
  return { count: passed, total: tasks.length, rate: tasks.length ? passed / tasks.length : null };
}

function printTable(io: Io, heading: string, suite: { suite_id: string; certificate?: { status?: string; verify_url?: string } }, rows: SuiteRow[]): void {
  line(io.stdout, `${heading} · suite ${suite.suite_id}`);
  line(io.stdout, `  ${'suite'.padEnd(10)} ${'tasks'.padStart(5)} ${'cases'.padStart(5)}  ${'utility'.padEnd(22)} ${'utility under attack'.padEnd(22)} targeted ASR`);
  const print = (name: string, tasks: number, cases: number, utility: Rate, underAttack: Rate, asr: Rate) =>
    line(io.stdout, `  ${name.padEnd(10)} ${String(tasks).padStart(5)} ${String(cases).padStart(5)}  ${cell(utility).padEnd(22)} ${cell(underAttack).padEnd(22)} ${cell(asr)}`);
  for (const row of rows) print(row.suite, row.userTasks, row.cases, row.utility, row.underAttack, row.asr);
  if (rows.length > 1) print('pooled', rows.reduce((n, row) => n + row.userTasks, 0), rows.reduce((n, row) => n + row.cases, 0), sum(rows.map((row) => row.utility)), sum(rows.map((row) => row.underAttack)), sum(rows.map((row) => row.asr)));
  for (const row of rows) line(io.stdout, `${row.suite} · run ${row.run.run_id} · ${row.run.compliance?.status ?? row.run.status}${row.run.attacks?.not_injectable?.length ? ` · not injectable: ${row.run.attacks.not_injectable.join(', ')}` : ''}`);
  line(io.stdout, `certificate: ${suite.certificate?.status}${suite.certificate?.verify_url ? ` (${suite.certificate.verify_url})` : ''}`);
}

/** Runs `aeh bench agentdojo`; returns the exit code. */
export async function benchAgentDojoCommand(argv: string[], io: Io): Promise<number> {
  const args = parse(argv, io);
  if (!args) return EXIT.error;
  if (args.replay) return (await import('./bench-agentdojo-replay.ts')).replayAgentDojo(args.replay, io);
  const settings = args.values['model-name'] ? { model_name: args.values['model-name'] } : undefined;
  let scenarios;
  try {
    const read = (path: string) => readFile(path).then((bytes) => new Uint8Array(bytes));
    scenarios = await Promise.all(args.suites.map(async (suite) => {
      const scenario = agentdojoScenario(await readAgentDojoSuite(BUNDLED_AGENTDOJO_DIR, suite, read), { version: args.version, userTasks: args.userTasks, injectionTasks: args.injectionTasks });
      return args.attack ? { ...scenario, attacks: [{ attack: args.attack, ...(settings ? { settings } : {}) }] } : scenario;
    }));
  } catch (error) {
    line(io.stderr, `aeh bench: ${(error as Error).message}`);
    return EXIT.error;
  }
  const heading = `AgentDojo ${args.version} · attack ${args.attack ?? 'none'} · ${AGENTDOJO_REFERENCE}`;
  const client = await openClient({ url: args.values.url, key: args.values.key, env: io.env, cwd: io.cwd });
  try {
    // The suite's name is in its signed manifest; each run's scenario (suite, version, tasks, attack) in its signed evidence.
    const name = `AgentDojo ${args.suites.join(' + ')} · ${args.version} · attack ${args.attack ?? 'none'}`;
    const launched = await runBenchSuite(client, io, { name, scenarios, labels: args.suites, agent: args.agent, json: args.values.json!, pollMs: args.pollMs, stallMs: args.stallMs });
    if (typeof launched === 'number') return launched;
    const { suite } = launched;
    const none: Rate = { count: 0, total: 0, rate: null };
    const rows: SuiteRow[] = [];
    for (const { label, scenario, run } of launched.runs) {
      const attacks = run.attacks;
      // Without an attack there are no attack numbers: utility is the tasks' verdicts (every task's in scores.json).
      const scores = attacks ? undefined : await client.request<{ verdict?: { tasks?: TaskVerdict[] } }>('GET', `/api/v1/runs/${run.run_id}/evidence/scores.json`);
      const utility = attacks?.utility ?? plainUtility(scores?.body.verdict?.tasks ?? run.verdict?.tasks ?? []);
      rows.push({ suite: label, run, userTasks: scenario.tasks.length, cases: attacks?.by_attack.reduce((n, item) => n + item.cases, 0) ?? 0, utility, underAttack: attacks?.utility_under_attack ?? none, asr: attacks?.targeted_asr ?? none });
    }
    if (args.values.report) {
      const failed = await writeSuiteReport(client, io, suite.suite_id, args.values.report);
      if (failed !== undefined) return failed;
    }
    if (args.values.json) {
      line(io.stdout, JSON.stringify({ suite_id: suite.suite_id, benchmark_version: args.version, attack: args.attack ?? null, reference: AGENTDOJO_REFERENCE, suites: rows.map((row) => ({ suite: row.suite, run_id: row.run.run_id, compliance: row.run.compliance, user_tasks: row.userTasks, cases: row.cases, utility: row.utility, utility_under_attack: row.underAttack, targeted_asr: row.asr })), pooled: { utility: sum(rows.map((row) => row.utility)), utility_under_attack: sum(rows.map((row) => row.underAttack)), targeted_asr: sum(rows.map((row) => row.asr)) }, certificate: suite.certificate }, null, 2));
    } else printTable(io, heading, suite, rows);
    return rows.every((row) => row.run.status === 'succeeded') ? EXIT.pass : EXIT.error;
  } finally {
    await client.close();
  }
}
