/**
 * `aeh bench agentdojo --replay <records.json.gz>[,…]`: AgentDojo's published runs judged again by the harness
 * (issue 35 item 3, "judges"; plugins/shims/agentdojo/traces.ts). Each model's runs of each bundled suite become
 * scenarios the `replay` agent answers from recordings written under `agentdojo-replay/` in the working directory
 * (the in-process service's project root, which the agent reads through its file jail): every recorded call runs
 * again on the unit's world, the attack's text planted by the harness, and AgentDojo's own checks judge. One
 * certified suite per model. Prints the agreement with the recorded utility and security (each difference
 * listed), and the paper's table from the replayed verdicts: per model, suite and attack, utility, utility under
 * attack and targeted ASR, pooled over the suites replayed.
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient } from '../client.ts';
import { follow } from './bench-suite.ts';
import { AGENTDOJO_REFERENCE, AGENTDOJO_SUITES, readAgentDojoSuite } from '../../plugins/shims/agentdojo/index.ts';
import { agentdojoReplay, compareReplays, replayedOutputs, replayedVerdicts, type AgentDojoRun, type ReplayKey, type ReplayScores, type ReplayTraceEvent } from '../../plugins/shims/agentdojo/traces.ts';
import { proseModelName } from '../../plugins/attacks/model-names.ts';
import { DEFAULT_MODEL_NAME } from '../../core/attack.ts';
import type { Scenario } from '../../core/domain/scenario.ts';

/** A records file as bench/agentdojo/traces.ts writes it. */
interface RecordsFile { source: string; version: string; runs: AgentDojoRun[] }

/** Options of the replay. */
export interface ReplayOptions {
  files: string[]; dataDir: string; json: boolean; url?: string; key?: string; pollMs: number; stallMs?: number;
  /**
   * A benchmark version whose task set the runs are cut to (`--benchmark-version`): the runs of its user tasks and
   * injection tasks only, e.g. v1.1.2's 629 cases among the v1.2.1 runs' 949 (workspace's injection tasks 0-5).
   */
  taskSet?: string;
}

/** `runs` cut to the task set of `version`: each run's user task and injection task in that version's lists. */
async function inTaskSet<R extends AgentDojoRun>(runs: readonly R[], version: string, dataDir: string): Promise<R[] | string> {
  const read = (path: string) => readFile(path).then((bytes) => new Uint8Array(bytes));
  const sets = new Map<string, Set<string>>();
  for (const suite of new Set(runs.map((run) => run.suite))) {
    const tasks = (await readAgentDojoSuite(dataDir, suite, read)).tasks.versions[version];
    if (!tasks) return `--benchmark-version ${version}: ${suite} has no such task set`;
    sets.set(suite, new Set([...tasks.user_tasks, ...tasks.injection_tasks].map((task) => task.id)));
  }
  return runs.filter((run) => sets.get(run.suite)!.has(run.user_task) && (!run.injection_task || sets.get(run.suite)!.has(run.injection_task)));
}

/** A count and its percentage as AgentDojo's table prints it. */
const percent = (count: number, total: number) => (total ? `${(100 * count / total).toFixed(2)}% (${count}/${total})` : '—');

interface Row { model: string; suite: string; attack: string; utility: [number, number]; underAttack: [number, number]; asr: [number, number] }

/** The paper's rows from runs and their verdicts (recorded or replayed): per model, suite and attack. */
function rowsOf(runs: readonly AgentDojoRun[], verdicts: ReadonlyArray<{ utility: boolean | null; security: boolean | null }>): Row[] {
  const rows = new Map<string, Row>();
  const plain = new Map<string, [number, number]>();
  runs.forEach((run, index) => {
    const verdict = verdicts[index]!;
    if (run.user_task.startsWith('injection_task_')) return;
    if (run.attack === 'none') {
      const entry = plain.get(`${run.model}|${run.suite}`) ?? [0, 0];
      plain.set(`${run.model}|${run.suite}`, [entry[0] + (verdict.utility ? 1 : 0), entry[1] + 1]);
      return;
    }
    const key = `${run.model}|${run.suite}|${run.attack}`;
    const row = rows.get(key) ?? { model: run.model, suite: run.suite, attack: run.attack, utility: [0, 0], underAttack: [0, 0], asr: [0, 0] };
    row.underAttack = [row.underAttack[0] + (verdict.utility ? 1 : 0), row.underAttack[1] + 1];
    row.asr = [row.asr[0] + (verdict.security ? 1 : 0), row.asr[1] + 1];
    rows.set(key, row);
  });
  for (const row of rows.values()) row.utility = plain.get(`${row.model}|${row.suite}`) ?? [0, 0];
  return [...rows.values()];
}

function pooled(rows: readonly Row[]): Row[] {
  const out = new Map<string, Row>();
  for (const row of rows) {
    const key = `${row.model}|${row.attack}`;
    const sum = out.get(key) ?? { model: row.model, suite: 'pooled', attack: row.attack, utility: [0, 0], underAttack: [0, 0], asr: [0, 0] };
    const add = (a: [number, number], b: [number, number]): [number, number] => [a[0] + b[0], a[1] + b[1]];
    out.set(key, { ...sum, utility: add(sum.utility, row.utility), underAttack: add(sum.underAttack, row.underAttack), asr: add(sum.asr, row.asr) });
  }
  return [...out.values()];
}

function readRecords(files: readonly string[], cwd: string): RecordsFile[] {
  return files.map((file) => {
    const bytes = readFileSync(resolve(cwd, file));
    return JSON.parse((file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString()) as RecordsFile;
  });
}

type Run = AgentDojoRun & { version: string };

/**
 * `model`'s runs of every suite as replay scenarios, their recordings written under `cwd/agentdojo-replay/`;
 * each run's place set in `keys` (by its index in `runs`).
 */
async function scenariosOf(runs: readonly Run[], model: string, dataDir: string, cwd: string, keys: ReplayKey[]): Promise<Array<{ scenario: Scenario }>> {
  const read = (path: string) => readFile(path).then((bytes) => new Uint8Array(bytes));
  const scenarios: Array<{ scenario: Scenario }> = [];
  for (const suite of [...new Set(runs.filter((run) => run.model === model).map((run) => run.suite))]) {
    const indexes = runs.flatMap((run, index) => (run.model === model && run.suite === suite ? [index] : []));
    const own = indexes.map((index) => runs[index]!);
    const data = await readAgentDojoSuite(dataDir, suite, read);
    const modelName = proseModelName(own[0]!.pipeline) ?? DEFAULT_MODEL_NAME;
    const replay = agentdojoReplay(own, data, { version: own[0]!.version, modelName, tracePath: (id) => `agentdojo-replay/${id}.jsonl` });
    replay.keys.forEach((key, at) => { keys[indexes[at]!] = key; });
    for (const entry of replay.scenarios) {
      writeFileSync(join(cwd, entry.tracePath), entry.recording);
      scenarios.push({ scenario: entry.scenario });
    }
  }
  return scenarios;
}

/** Runs the replay; returns the exit code. */
export async function replayAgentDojo(options: ReplayOptions, io: Io): Promise<number> {
  let records: RecordsFile[];
  try {
    records = readRecords(options.files, io.cwd);
  } catch (error) {
    line(io.stderr, `aeh bench: --replay: ${(error as Error).message}`);
    return EXIT.error;
  }
  const bundled = new Set(AGENTDOJO_SUITES.map((entry) => entry.suite));
  const runs: Run[] = [];
  for (const file of records) for (const run of file.runs) if (bundled.has(run.suite)) runs.push({ ...run, version: file.version });
  const skipped = records.flatMap((file) => file.runs).length - runs.length;
  if (skipped) line(io.stderr, `aeh bench: --replay: ${skipped} runs of suites not bundled here skipped`);
  if (!runs.length) return line(io.stderr, 'aeh bench: --replay: no runs of a bundled suite'), EXIT.error;
  if (options.taskSet) {
    const cut = await inTaskSet(runs, options.taskSet, options.dataDir);
    if (typeof cut === 'string') return line(io.stderr, `aeh bench: --replay: ${cut}`), EXIT.error;
    runs.splice(0, runs.length, ...cut);
  }
  mkdirSync(join(io.cwd, 'agentdojo-replay'), { recursive: true });
  const client = await openClient({ url: options.url, key: options.key, env: io.env, cwd: io.cwd });
  const started = performance.now();
  const keys: ReplayKey[] = new Array(runs.length);
  const scores = new Map<string, ReplayScores>();
  const traces = new Map<string, ReplayTraceEvent[]>();
  const suites: Array<{ model: string; suite_id: string; certificate?: { status?: string } }> = [];
  try {
    for (const model of [...new Set(runs.map((run) => run.model))]) {
      const scenarios = await scenariosOf(runs, model, options.dataDir, io.cwd, keys);
      const accepted = await client.request('POST', '/api/v1/suites', { name: `AgentDojo published runs replayed: ${model}`.slice(0, 200), scenarios });
      if (accepted.status !== 202) return printProblem(io, 'bench --replay', accepted), EXIT.error;
      const suite = await follow(client, accepted.body.suite_id, io, true, options.pollMs, options.stallMs);
      suites.push({ model, suite_id: suite.suite_id, certificate: suite.certificate });
      for (const [index, entry] of suite.runs.entries()) {
        if (!entry.run_id) return line(io.stderr, `aeh bench: --replay: ${scenarios[index]!.scenario.id} was refused: ${entry.error?.detail ?? 'no run'}`), EXIT.error;
        const scored = await client.request<ReplayScores>('GET', `/api/v1/runs/${entry.run_id}/evidence/scores.json`);
        const id = entry.scenario_id ?? scenarios[index]!.scenario.id;
        scores.set(id, scored.body);
        const trace = await client.request<string>('GET', `/api/v1/runs/${entry.run_id}/trace`);
        traces.set(id, trace.text.split('\n').filter(Boolean).map((text) => JSON.parse(text) as ReplayTraceEvent));
      }
    }
  } finally {
    await client.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const verdicts = replayedVerdicts(keys, scores);
  const tools = new Set(AGENTDOJO_SUITES.flatMap((entry) => entry.shim.actions.map((action) => `${entry.shim.name}.${action.name}`)));
  const agreement = compareReplays(runs, verdicts, await replayedOutputs(keys, traces, tools));
  const replayedRows = rowsOf(runs, verdicts);
  const table = [...replayedRows, ...pooled(replayedRows)];
  const recordedTable = (() => { const rows = rowsOf(runs, runs); return [...rows, ...pooled(rows)]; })();
  if (options.json) {
    line(io.stdout, JSON.stringify({ reference: AGENTDOJO_REFERENCE, ...(options.taskSet ? { task_set: options.taskSet } : {}), sources: records.map((file) => file.source), agreement, table, recorded: recordedTable, suites, seconds }, null, 2));
    return EXIT.pass;
  }
  line(io.stdout, `AgentDojo published runs replayed · ${AGENTDOJO_REFERENCE}${options.taskSet ? ` · task set ${options.taskSet}` : ''} · ${runs.length} runs in ${seconds.toFixed(1)} s through the API`);
  line(io.stdout, `  agreement with the recorded utility and security: ${agreement.same}/${agreement.total} (${(100 * agreement.same / agreement.total).toFixed(2)}%)`);
  const outputs = agreement.outputs!;
  line(io.stdout, `  runs whose every tool answer is the recorded one: ${outputs.same}/${outputs.total} (${(100 * outputs.same / outputs.total).toFixed(2)}%)`);
  for (const run of outputs.differing) line(io.stdout, `  tool answers differ: ${run}`);
  for (const difference of agreement.differences) line(io.stdout, `  differs: ${difference.run}: recorded utility ${difference.recorded.utility} security ${difference.recorded.security}, replayed utility ${difference.replayed.utility} security ${difference.replayed.security}`);
  line(io.stdout, `  ${'model'.padEnd(34)} ${'suite'.padEnd(10)} ${'attack'.padEnd(22)} ${'utility'.padEnd(20)} ${'utility under attack'.padEnd(20)} targeted ASR`);
  for (const row of table) {
    const same = recordedTable.find((entry) => entry.model === row.model && entry.suite === row.suite && entry.attack === row.attack);
    const cells = [row.utility, row.underAttack, row.asr].map(([count, total]) => percent(count, total).padEnd(20));
    const marker = same && JSON.stringify([same.utility, same.underAttack, same.asr]) === JSON.stringify([row.utility, row.underAttack, row.asr]) ? '' : '  (recorded differs)';
    line(io.stdout, `  ${row.model.padEnd(34)} ${row.suite.padEnd(10)} ${row.attack.padEnd(22)} ${cells.join(' ')}${marker}`.trimEnd());
  }
  for (const suite of suites) line(io.stdout, `${suite.model} · suite ${suite.suite_id} · certificate: ${suite.certificate?.status}`);
  return EXIT.pass;
}
