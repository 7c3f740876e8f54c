/**
 * `aeh evaluate <path|scenario-id>`: runs one evaluation (in-process, or against `--url`), follows its
 * progress, and reports the run as text, JSON, JUnit XML or Markdown. Exit 0 pass, 1 fail, 2 warning
 * (0 with `--allow-warning`), 3 error.
 */
import { attackLines } from '../../core/domain/attack-summary.ts';
import { parseArgs } from 'node:util';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient, type ApiClient, type ApiResponse } from '../client.ts';
import { createProgress } from '../progress.ts';
import { EVALUATE_USAGE } from '../usage.ts';
import { saveArtifacts } from '../artifacts.ts';
import { gateRun, parseThreshold, VERDICT_OPTIONS, verdictOption } from './evaluate-options.ts';
import { saveReport } from './report.ts';
import { agentOption } from './agent-option.ts';
import { buildResults, taskScoresFrom, type ReportInput, type ReportLinks } from '../report/model.ts';
import { toJunit } from '../report/junit.ts';
import { toMarkdown } from '../report/markdown.ts';
import { redactedReport } from '../report/redact.ts';
import { usageLine } from '../../core/domain/usage-text.ts';
import { failureWhere, trialsLine, verdictLine } from '../../core/domain/verdict-text.ts';
import { normalizeScenario } from '../../core/domain/scenario-load.ts';
import { aesFormat } from '../../plugins/aes/format.ts';
import { parseBoundedJson } from '../../core/guards/json.ts';
import type { RunRecord } from '../../core/domain/runs.ts';
import type { Scenario } from '../../core/domain/scenario.ts';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

async function scenarioFor(client: ApiClient, target: string, cwd: string): Promise<{ body: Record<string, unknown>; scenario?: Scenario }> {
  const path = resolve(cwd, target);
  if (existsSync(path)) {
    const document = parseBoundedJson(readFileSync(path, 'utf8'));
    let scenario: Scenario | undefined;
    try {
      scenario = normalizeScenario(document, { formats: [aesFormat] });
    } catch {
      // the service names what is wrong
    }
    return { body: { scenario: document }, scenario };
  }
  const found = await client.request(`GET`, `/api/scenarios/${encodeURIComponent(target)}`);
  const scenario = found.status === 200 ? ((found.body.scenario ?? found.body) as Scenario) : undefined;
  return { body: { scenario_id: target }, scenario };
}

function writeCreatingFolder(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function exitFor(run: RunRecord, allowWarning: boolean): number {
  if (run.status !== 'succeeded') return EXIT.error;
  switch (run.compliance?.status) {
    case 'pass': return EXIT.pass;
    case 'warning': return allowWarning ? EXIT.pass : EXIT.warning;
    case 'fail': return EXIT.fail;
    default: return EXIT.error;
  }
}

const FORMATS = ['text', 'json', 'junit', 'markdown'];

/** Options of `aeh evaluate`, parsed; undefined (after printing the usage) when they are wrong. */
function parseEvaluateArgs(argv: string[], io: Io) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' }, key: { type: 'string' }, format: { type: 'string', default: 'text' }, output: { type: 'string' },
      artifacts: { type: 'string' }, summary: { type: 'string' },
      'allow-warning': { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, timeout: { type: 'string', default: '600' },
      report: { type: 'string' }, baseline: { type: 'string' }, 'max-regression': { type: 'string' },
      agent: { type: 'string' }, cache: { type: 'boolean', default: false },
      attack: { type: 'string', multiple: true }, 'injection-tasks': { type: 'string' },
      ...VERDICT_OPTIONS,
    },
  });
  const chosen = agentOption(values.agent, io.cwd);
  const verdict = verdictOption(values);
  const format = values.json ? 'json' : values.format!;
  const timeoutSeconds = Number(values.timeout);
  const threshold = parseThreshold(values['max-regression'] ?? '0');
  const problem = !(timeoutSeconds > 0) ? `--timeout must be a positive number of seconds, got "${values.timeout}"`
    : !FORMATS.includes(format) ? `unknown --format "${format}"`
    : threshold === undefined ? `--max-regression must be a number from 0 to 1, got "${values['max-regression']}"`
    : values['max-regression'] !== undefined && !values.baseline ? '--max-regression needs --baseline latest|pinned|<run_id>'
    : values['injection-tasks'] !== undefined && !values.attack?.length ? '--injection-tasks needs --attack NAME'
    : verdict.problem ?? chosen.problem;
  if (positionals.length !== 1 || problem) {
    if (problem) line(io.stderr, `aeh evaluate: ${problem}`);
    line(io.stderr, `usage: ${EVALUATE_USAGE}`);
    return undefined;
  }
  // Each --attack runs on the injection tasks --injection-tasks names (all the scenario's without it).
  const injectionTasks = values['injection-tasks']?.split(',').map((id) => id.trim()).filter(Boolean);
  const attacks = values.attack?.map((attack) => ({ attack, ...(injectionTasks?.length ? { injection_tasks: injectionTasks } : {}) }));
  return { values, target: positionals[0], format, timeoutSeconds, threshold: threshold!, agent: chosen.agent, verdict: verdict.policy, attacks };
}

type EvaluateArgs = NonNullable<ReturnType<typeof parseEvaluateArgs>>;

/** What GET on a task's status_url answers, as far as this command reads it. */
interface TaskStatus {
  status: string;
  run_id: string;
  progress?: { done?: number; total?: number };
}

/** Polls the accepted task until it ends; undefined (after saying why) on a timeout or a failed poll. */
async function followTask(client: ApiClient, accepted: ApiResponse, args: EvaluateArgs, io: Io): Promise<TaskStatus | undefined> {
  // Progress goes to stderr, so it never mixes with a report on stdout; --json asks for silence.
  const progress = createProgress(io, args.values.json!);
  const deadline = Date.now() + args.timeoutSeconds * 1000;
  let task: TaskStatus = accepted.body;
  while (!TERMINAL.has(task.status)) {
    if (Date.now() > deadline) {
      progress.finish();
      line(io.stderr, `evaluate: timed out after ${args.values.timeout} s; the run continues as ${accepted.body.run_id}`);
      return undefined;
    }
    await new Promise((done) => setTimeout(done, 150));
    const polled = await client.request('GET', accepted.body.status_url);
    if (polled.status !== 200) {
      printProblem(io, 'task status', polled);
      return undefined;
    }
    task = polled.body;
    progress.update(task.status, task.progress?.done ?? 0, task.progress?.total ?? 0);
  }
  progress.finish();
  return task;
}

/** The run and its per-task results; undefined (after printing the problem) when the run cannot be read. */
async function fetchReport(client: ApiClient, runId: string, scenario: Scenario | undefined, io: Io): Promise<ReportInput | undefined> {
  const fetched = await client.request<RunRecord>('GET', `/api/v1/runs/${encodeURIComponent(runId)}`);
  if (fetched.status !== 200) {
    printProblem(io, 'run', fetched);
    return undefined;
  }
  const run = fetched.body;
  // Per-task scores tell an unmeasured metric (skipped) from a passed one; a caller without runs:export gets the coarser view.
  const sidecar = await client.request('GET', `/api/v1/runs/${encodeURIComponent(run.run_id)}/evidence/scores.json`);
  const taskScores = sidecar.status === 200 ? taskScoresFrom(sidecar.body) : undefined;
  const links = await linksOf(client, run.run_id);
  return { run, scenarioTitle: scenario?.title ?? run.scenario_title ?? run.scenario_id, results: buildResults(run, scenario?.tasks ?? [], taskScores), scenario, links };
}

/**
 * The run's links for the reports: absolute when the service has a public URL (`AEH_PUBLIC_URL`, from
 * `GET /api/v1/runs/:id/links`), else under `--url`; in-process without one, the run record's paths.
 */
async function linksOf(client: ApiClient, runId: string): Promise<ReportLinks | undefined> {
  const answer = await client.request<{ public_url: string | null; links: ReportLinks }>('GET', `/api/v1/runs/${encodeURIComponent(runId)}/links`);
  if (answer.status !== 200 || (!answer.body.public_url && client.target === 'in-process')) return undefined;
  if (answer.body.public_url) return answer.body.links;
  return Object.fromEntries(Object.entries(answer.body.links).map(([name, path]) => [name, `${client.target}${path}`])) as unknown as ReportLinks;
}

/** A run's agent as people read it: its registry name, else its adapter and the start of its configuration hash. */
function agentLabel(agent: NonNullable<RunRecord['agent']>): string {
  return agent.name ?? `${agent.adapter} (${agent.config_hash.slice(0, 12)})`;
}

/** The report in the asked format; every format repeats the run's messages only redacted. */
function renderReport(format: string, report: ReportInput): string {
  const { run } = redactedReport(report);
  return format === 'json' ? `${JSON.stringify(run, null, 2)}\n`
    : format === 'junit' ? toJunit(report)
    : format === 'markdown' ? toMarkdown(report)
    : `${run.compliance?.status ?? 'error'} ${report.scenarioTitle}: index ${run.index ?? '—'}, ${run.failures.length} failure(s), run ${run.run_id}${run.agent ? `, agent ${agentLabel(run.agent)}` : ''}\n` +
      // A run without a verdict says why on a reason line; one with a verdict, which gate decided it.
      (run.compliance?.status === 'error' ? (run.compliance.reason ? `  reason: ${run.compliance.reason}\n` : '') : run.compliance?.decided_by ? `  ${verdictLine(run.compliance)}\n` : '') +
      (run.trials ? `  trials: ${trialsLine(run.trials)}\n` : '') +
      (run.attacks ? attackLines(run.attacks).map((text, index) => `  ${index === 0 ? 'attacks' : '  attack'}: ${text}\n`).join('') : '') +
      (run.usage ? `  usage: ${usageLine(run.usage)}\n` : '') +
      run.failures.map((failure) => `  ${failure.code} ${failure.task_id}/${failure.metric}${failureWhere(failure)}: ${failure.message}\n`).join('');
}

/** Writes the report (to --output or stdout) and the --summary, saves the --artifacts; false when they cannot be saved. */
async function deliverReport(client: ApiClient, args: EvaluateArgs, report: ReportInput, io: Io): Promise<boolean> {
  const { values } = args;
  const { run } = report;
  const rendered = renderReport(args.format, report);
  if (values.output) {
    writeCreatingFolder(resolve(io.cwd, values.output), rendered);
    line(io.stderr, `wrote ${values.output} (${run.compliance?.status ?? run.status})`);
  } else {
    io.stdout.write(rendered);
  }
  if (values.artifacts) {
    try {
      const saved = await saveArtifacts(client, run.run_id, resolve(io.cwd, values.artifacts), run);
      line(io.stderr, `saved ${[saved.certificate, saved.trace, ...saved.sidecars, saved.jwks, 'run.json'].join(', ')} to ${values.artifacts}`);
    } catch (error) {
      // The gate asked for evidence it cannot have: that is an error whatever the compliance outcome.
      line(io.stderr, `evaluate: --artifacts: ${(error as Error).message}`);
      return false;
    }
  }
  return true;
}

/** Runs `aeh evaluate`; returns the exit code (EXIT). */
export async function evaluateCommand(argv: string[], io: Io): Promise<number> {
  const args = parseEvaluateArgs(argv, io);
  if (!args) return EXIT.error;
  const client = await openClient({ url: args.values.url, key: args.values.key, env: io.env, cwd: io.cwd });
  try {
    const { body, scenario } = await scenarioFor(client, args.target, io.cwd);
    const accepted = await client.request('POST', '/api/evaluate', { ...body, ...(args.agent ? { agent: args.agent } : {}), ...(args.values.cache ? { cache: true } : {}), ...(args.verdict ? { verdict: args.verdict } : {}), ...(args.attacks ? { attacks: args.attacks } : {}) });
    if (accepted.status !== 202) {
      printProblem(io, 'evaluate', accepted);
      if (accepted.body?.errors?.some?.((error: { path?: string }) => error.path === '/agent')) line(io.stderr, '  give --agent NAME (a registered agent), --agent \'{"adapter": …}\' or --agent FILE.json');
      return EXIT.error;
    }
    const task = await followTask(client, accepted, args, io);
    if (!task) return EXIT.error;
    const report = await fetchReport(client, task.run_id, scenario, io);
    if (!report) return EXIT.error;
    if (!(await deliverReport(client, args, report, io))) return EXIT.error;
    if (args.values.report && !(await saveReport(client, task.run_id, args.values.report, io))) return EXIT.error;
    const verdict = exitFor(report.run, args.values['allow-warning']!);
    // An error wins, then a regression beyond the threshold, then the run's own verdict.
    const exit = verdict === EXIT.error || !args.values.baseline ? verdict : (await gateRun(client, task.run_id, args.values.baseline, args.threshold, io)) ?? verdict;
    // The Markdown summary ($GITHUB_STEP_SUMMARY, a pull-request comment) says what the gate decided, exit included.
    if (args.values.summary) writeCreatingFolder(resolve(io.cwd, args.values.summary), toMarkdown(report, { exit }));
    return exit;
  } finally {
    await client.close();
  }
}
