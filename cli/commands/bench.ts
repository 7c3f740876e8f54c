/**
 * `aeh bench tau --domain retail|airline --agent <agent> [--trials 4]`: τ-bench as written (issue 27 item 4). The
 * split's tasks (τ-bench's data directory: `--data`, else `AEH_TAU_DATA_DIR`) become one scenario
 * (plugins/shims/tau/tasks.ts: the domain policy as instructions, τ-bench's tool names, gold actions, required
 * outputs, the simulated user's instructions and guidelines), run as a suite against the agent through the API,
 * so the suite is certified. Prints the benchmark's table (pass^1…pass^k) and each task's outcome, and with
 * `--report` writes the suite's HTML report. Exit 0 when the benchmark ran (whatever it measured), 3 on an error.
 */
import { parseArgs } from 'node:util';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { BENCH_USAGE } from '../usage.ts';
import { openClient, type ApiClient } from '../client.ts';
import { createProgress } from '../progress.ts';
import { agentOption } from './agent-option.ts';
import { tauScenario, type TauDomain } from '../../plugins/shims/tau/index.ts';
import { trialsLine } from '../../core/domain/verdict-text.ts';
import type { RunRecord } from '../../core/domain/runs.ts';
import type { TaskVerdict } from '../../core/domain/verdict.ts';


const DOMAINS = ['retail', 'airline'];

/** The package's own τ-bench data (catalog/data/tau-bench, tau2-bench's layout), from the sources or from dist/. */
const packageRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []));
export const BUNDLED_TAU_DIR = join(packageRoot, 'catalog', 'data', 'tau-bench', 'domains');

/** The node file system as the τ-bench reader wants it (read and stat, nothing else). */
const localFiles = { readFile: (path: string) => readFile(path), stat: async (path: string) => ({ isFile: (await stat(path)).isFile(), size: 0 }) };

function parse(argv: string[], io: Io) {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: {
      domain: { type: 'string' }, agent: { type: 'string' }, trials: { type: 'string', default: '4' }, split: { type: 'string', default: 'base' },
      tasks: { type: 'string' }, data: { type: 'string' }, report: { type: 'string' }, json: { type: 'boolean', default: false },
      url: { type: 'string' }, key: { type: 'string' }, 'poll-ms': { type: 'string', default: '500' },
    },
  });
  const trials = Number(values.trials);
  const limit = values.tasks === undefined ? undefined : Number(values.tasks);
  const data = values.data ?? io.env.AEH_TAU_DATA_DIR;
  const chosen = agentOption(values.agent, io.cwd);
  const problem = positionals[0] !== 'tau' ? 'the benchmark is "tau" (aeh bench tau …)'
    : !DOMAINS.includes(values.domain ?? '') ? `--domain must be ${DOMAINS.join(' or ')}`
    : !chosen.agent ? '--agent is required (a registered agent, a spec, or a spec file)'
    : !(Number.isInteger(trials) && trials >= 1 && trials <= 20) ? `--trials must be a whole number from 1 to 20, got "${values.trials}"`
    : limit !== undefined && !(Number.isInteger(limit) && limit >= 1) ? `--tasks must be a whole number of tasks, got "${values.tasks}"`
    : !data ? 'τ-bench\'s data directory is needed: --data DIR or AEH_TAU_DATA_DIR (docs/shims.md, "τ-bench domains")'
    : chosen.problem;
  if (problem) {
    line(io.stderr, `aeh bench: ${problem}`);
    line(io.stderr, `usage: ${BENCH_USAGE}`);
    return undefined;
  }
  return { values, domain: values.domain as TauDomain, agent: chosen.agent!, trials, limit, data: resolve(io.cwd, data!), pollMs: Number(values['poll-ms']) };
}

/** Waits for the suite's one run to end; the suite as the API answers it then. */
async function follow(client: ApiClient, suiteId: string, io: Io, quiet: boolean, pollMs: number): Promise<any> {
  const progress = createProgress(io, quiet);
  for (;;) {
    const suite = (await client.request('GET', `/api/v1/suites/${suiteId}`)).body;
    const run = suite?.runs?.[0];
    const task = run?.task_id ? (await client.request('GET', `/api/v1/tasks/${run.task_id}`)).body : undefined;
    progress.update(task?.status ?? suite?.status ?? 'launching', task?.progress?.done ?? 0, task?.progress?.total ?? 0);
    if (suite?.status === 'finished' && suite.certificate?.status !== 'pending') {
      progress.finish();
      return suite;
    }
    await new Promise((done) => setTimeout(done, pollMs));
  }
}

/** The benchmark's table: pass^1…pass^k, then each task's attempts. */
function printTable(io: Io, title: string, run: RunRecord, suite: any, tasks: TaskVerdict[]): void {
  line(io.stdout, `${title}: ${run.compliance?.status ?? run.status} · run ${run.run_id} · suite ${suite.suite_id}`);
  if (run.trials) {
    line(io.stdout, '  k   pass^k');
    run.trials.pass_hat.forEach((value, index) => line(io.stdout, `  ${String(index + 1).padEnd(3)} ${value === null ? '—' : value.toFixed(3)}`));
    line(io.stdout, `  ${trialsLine(run.trials)}`);
  }
  for (const task of tasks) line(io.stdout, `  ${task.task_id.padEnd(12)} ${task.passed}/${task.attempts} ${task.status}`);
  line(io.stdout, `  certificate: ${suite.certificate?.status}${suite.certificate?.verify_url ? ` (${suite.certificate.verify_url})` : ''}`);
}

/** Runs `aeh bench`; returns the exit code. */
export async function benchCommand(argv: string[], io: Io): Promise<number> {
  const args = parse(argv, io);
  if (!args) return EXIT.error;
  let built;
  try {
    built = await tauScenario(args.domain, { dir: args.data, files: localFiles }, { split: args.values.split, guidelinesFrom: { dir: BUNDLED_TAU_DIR, files: localFiles } });
  } catch (error) {
    line(io.stderr, `aeh bench: ${(error as Error).message}`);
    return EXIT.error;
  }
  const scenario = { ...built.scenario, trials: args.trials, ...(args.limit ? { tasks: built.scenario.tasks.slice(0, args.limit) } : {}) };
  const client = await openClient({ url: args.values.url, key: args.values.key, env: io.env, cwd: io.cwd });
  try {
    const accepted = await client.request('POST', '/api/v1/suites', { name: scenario.title, scenarios: [{ scenario }], agents: [args.agent] });
    if (accepted.status !== 202) return printProblem(io, 'bench', accepted), EXIT.error;
    const suite = await follow(client, accepted.body.suite_id, io, args.values.json!, args.pollMs);
    const entry = suite.runs[0];
    if (!entry?.run_id) return line(io.stderr, `aeh bench: the run was refused: ${entry?.error?.detail ?? 'no run'}`), EXIT.error;
    const run = (await client.request<RunRecord>('GET', `/api/v1/runs/${entry.run_id}`)).body;
    // Every task's attempts are in scores.json (runs:export); the run record lists only those that did not pass every one.
    const scores = await client.request<{ verdict?: { tasks?: TaskVerdict[] } }>('GET', `/api/v1/runs/${entry.run_id}/evidence/scores.json`);
    const tasks = (scores.status === 200 ? scores.body.verdict?.tasks : undefined) ?? run.verdict?.tasks ?? [];
    if (args.values.report) {
      const report = await client.request('GET', `/api/v1/suites/${suite.suite_id}/report`);
      if (report.status !== 200) return printProblem(io, 'bench --report', report), EXIT.error;
      writeFileSync(resolve(io.cwd, args.values.report), report.text);
      line(io.stderr, `wrote ${args.values.report}`);
    }
    if (args.values.json) line(io.stdout, JSON.stringify({ suite_id: suite.suite_id, run_id: run.run_id, compliance: run.compliance, trials: run.trials, tasks, certificate: suite.certificate }, null, 2));
    else printTable(io, scenario.title, run, suite, tasks);
    return run.status === 'succeeded' ? EXIT.pass : EXIT.error;
  } finally {
    await client.close();
  }
}
