/**
 * `aeh bench tau --domain retail|airline|telecom|all --agent <agent> [--trials 4]`: τ-bench as written (issue 27 item 4,
 * issue 34). Each domain's split (the release's data shipped in catalog/data/tau-bench, or `--data` /
 * `AEH_TAU_DATA_DIR`) becomes one scenario (plugins/shims/tau/tasks.ts: the policy, τ-bench's tool names, its
 * rules and each task's reward basis), and they run as one suite against the agent through the API, so the suite
 * is certified: its signed runs carry the scenarios, which name the release, the split and the rules. Prints
 * τ-bench's leaderboard table (pass^1…pass^k per domain, with its reward bases, the split and the rules), then
 * each task's attempts, and with `--report` writes the suite's HTML report. Exit 0 when the benchmark ran
 * (whatever it measured), 3 on an error. `aeh bench agentdojo` is bench-agentdojo.ts.
 */
import { parseArgs } from 'node:util';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, line, type Io } from '../io.ts';
import { BENCH_USAGE } from '../usage.ts';
import { openClient } from '../client.ts';
import { agentOption } from './agent-option.ts';
import { stallMsOf } from '../stall.ts';
import { runBenchSuite, writeSuiteReport } from './bench-suite.ts';
import { BUNDLED_TAU_RELEASE, TAU_RULES, tauScenario, type TauDomain, type TauRewardType } from '../../plugins/shims/tau/index.ts';
import { passHatK } from '../../core/domain/verdict.ts';
import type { RunRecord } from '../../core/domain/runs.ts';
import type { TaskVerdict } from '../../core/domain/verdict.ts';


const DOMAINS: TauDomain[] = ['retail', 'airline', 'telecom'];

/** The package's own τ-bench data (catalog/data/tau-bench, tau2-bench's layout), from the sources or from dist/. */
export const packageRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []));
export const BUNDLED_TAU_DIR = join(packageRoot, 'catalog', 'data', 'tau-bench', 'domains');

/** The node file system as the τ-bench reader wants it (read and stat, nothing else). */
export const localFiles = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };

function parse(argv: string[], io: Io) {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: {
      domain: { type: 'string' }, agent: { type: 'string' }, trials: { type: 'string', default: '4' }, split: { type: 'string', default: 'base' },
      tasks: { type: 'string' }, data: { type: 'string' }, report: { type: 'string' }, json: { type: 'boolean', default: false },
      url: { type: 'string' }, key: { type: 'string' }, 'poll-ms': { type: 'string', default: '500' }, 'stall-s': { type: 'string' },
    },
  });
  const domains = (values.domain === 'all' ? DOMAINS : [...new Set((values.domain ?? '').split(','))]) as TauDomain[];
  const trials = Number(values.trials);
  const limit = values.tasks === undefined ? undefined : Number(values.tasks);
  // The release's data ships with the package; a data directory of one's own overrides it.
  const data = values.data ?? io.env.AEH_TAU_DATA_DIR ?? BUNDLED_TAU_DIR;
  const chosen = agentOption(values.agent, io.cwd);
  const stallMs = stallMsOf(values['stall-s']);
  const problem = positionals[0] !== 'tau' ? 'the benchmark is "tau" or "agentdojo" (aeh bench tau …, aeh bench agentdojo …)'
    : !domains.every((domain) => DOMAINS.includes(domain)) ? `--domain must be ${DOMAINS.join(', ')} or all (a comma list too)`
    : !chosen.agent ? '--agent is required (a registered agent, a spec, or a spec file)'
    : !(Number.isInteger(trials) && trials >= 1 && trials <= 20) ? `--trials must be a whole number from 1 to 20, got "${values.trials}"`
    : limit !== undefined && !(Number.isInteger(limit) && limit >= 1) ? `--tasks must be a whole number of tasks, got "${values.tasks}"`
    : typeof stallMs === 'string' ? stallMs
    : chosen.problem;
  if (problem) {
    line(io.stderr, `aeh bench: ${problem}`);
    line(io.stderr, `usage: ${BENCH_USAGE}`);
    return undefined;
  }
  return { values, domains, bundled: data === BUNDLED_TAU_DIR, agent: chosen.agent!, trials, limit, data: resolve(io.cwd, data), pollMs: Number(values['poll-ms']), stallMs: stallMs as number };
}

/** One domain's outcome: its run and every task's attempts. */
interface DomainResult {
  domain: TauDomain;
  run: RunRecord;
  tasks: TaskVerdict[];
  /** pass^1…pass^k over the tasks' attempts (τ-bench's estimator; pass^1 too when k is 1). */
  passHat: Array<number | null>;
  rewardBasis: Record<string, TauRewardType[]>;
}

/** `DB×NL_ASSERTION 112, DB 2`: each reward basis and how many of the tasks run are scored on it. */
function basisSummary(result: DomainResult): string {
  const counts = new Map<string, number>();
  for (const task of result.tasks) {
    const basis = (result.rewardBasis[task.task_id] ?? []).join('×') || 'none (no criteria)';
    counts.set(basis, (counts.get(basis) ?? 0) + 1);
  }
  return [...counts].map(([basis, count]) => `${basis} ${count}`).join(', ');
}

/** τ-bench's leaderboard table (pass^1…pass^k per domain), the rules, then each domain's task attempts. */
function printTable(io: Io, heading: string, suite: any, results: DomainResult[], trials: number): void {
  const fixed = (value: number | null) => (value === null ? '—' : value.toFixed(3)).padStart(7);
  line(io.stdout, `${heading} · ${trials} trial${trials === 1 ? '' : 's'} · suite ${suite.suite_id}`);
  line(io.stdout, `  ${'domain'.padEnd(8)} ${'tasks'.padStart(5)} ${Array.from({ length: trials }, (_, index) => `pass^${index + 1}`.padStart(7)).join(' ')}  ${'verdict'.padEnd(8)} reward basis`);
  for (const result of results) {
    line(io.stdout, `  ${result.domain.padEnd(8)} ${String(result.tasks.length).padStart(5)} ${result.passHat.map(fixed).join(' ')}  ${String(result.run.compliance?.status ?? result.run.status).padEnd(8)} ${basisSummary(result)}`);
  }
  line(io.stdout, `  rules: ${TAU_RULES}`);
  for (const result of results) {
    line(io.stdout, `${result.domain} · run ${result.run.run_id} · ${result.run.compliance?.status ?? result.run.status}`);
    for (const task of result.tasks) line(io.stdout, `  ${task.task_id.padEnd(12)} ${task.passed}/${task.attempts} ${task.status}`);
  }
  line(io.stdout, `certificate: ${suite.certificate?.status}${suite.certificate?.verify_url ? ` (${suite.certificate.verify_url})` : ''}`);
}

/** Runs `aeh bench`; returns the exit code. */
export async function benchCommand(argv: string[], io: Io): Promise<number> {
  if (argv.find((arg) => !arg.startsWith('-')) === 'agentdojo') return (await import('./bench-agentdojo.ts')).benchAgentDojoCommand(argv, io);
  const args = parse(argv, io);
  if (!args) return EXIT.error;
  const release = args.bundled ? BUNDLED_TAU_RELEASE : undefined;
  const split = args.values.split!;
  let built;
  try {
    built = await Promise.all(args.domains.map((domain) => tauScenario(domain, { dir: args.data, files: localFiles }, { split, release, guidelinesFrom: { dir: BUNDLED_TAU_DIR, files: localFiles } })));
  } catch (error) {
    line(io.stderr, `aeh bench: ${(error as Error).message}`);
    return EXIT.error;
  }
  const scenarios = built.map(({ scenario }) => ({ ...scenario, trials: args.trials, ...(args.limit ? { tasks: scenario.tasks.slice(0, args.limit) } : {}) }));
  const heading = `τ-bench · ${release ?? `data from ${args.data}`} · ${split} split`;
  const client = await openClient({ url: args.values.url, key: args.values.key, env: io.env, cwd: io.cwd });
  try {
    // The suite's name is in its signed manifest; each run's scenario (release, split, rules, reward bases) in its signed evidence.
    const name = `τ-bench ${args.domains.join(' + ')} · ${split} split · ${release ?? 'data directory'} · rules tau2-bench a2c0247`;
    const launched = await runBenchSuite(client, io, { name, scenarios, labels: args.domains, agent: args.agent, json: args.values.json!, pollMs: args.pollMs, stallMs: args.stallMs });
    if (typeof launched === 'number') return launched;
    const { suite } = launched;
    const results: DomainResult[] = [];
    for (const [index, { run }] of launched.runs.entries()) {
      // Every task's attempts are in scores.json (runs:export); the run record lists only those that did not pass every one.
      const scores = await client.request<{ verdict?: { tasks?: TaskVerdict[] } }>('GET', `/api/v1/runs/${run.run_id}/evidence/scores.json`);
      const tasks = (scores.status === 200 ? scores.body.verdict?.tasks : undefined) ?? run.verdict?.tasks ?? [];
      const passHat = Array.from({ length: args.trials }, (_, k) => passHatK(tasks, k + 1));
      results.push({ domain: args.domains[index], run, tasks, passHat, rewardBasis: built[index].rewardBasis });
    }
    if (args.values.report) {
      const failed = await writeSuiteReport(client, io, suite.suite_id, args.values.report);
      if (failed !== undefined) return failed;
    }
    if (args.values.json) {
      const domains = results.map(({ domain, run, tasks, passHat, rewardBasis }) => ({ domain, run_id: run.run_id, compliance: run.compliance, trials: run.trials, pass_hat: passHat, tasks, reward_basis: rewardBasis }));
      // One domain: its run's fields at the top too, as before there were several.
      const single = results.length === 1 ? { run_id: domains[0].run_id, compliance: domains[0].compliance, trials: domains[0].trials, tasks: domains[0].tasks } : {};
      line(io.stdout, JSON.stringify({ suite_id: suite.suite_id, release: release ?? null, split, rules: TAU_RULES, ...single, domains, certificate: suite.certificate }, null, 2));
    } else printTable(io, heading, suite, results, args.trials);
    return results.every((result) => result.run.status === 'succeeded') ? EXIT.pass : EXIT.error;
  } finally {
    await client.close();
  }
}
