/**
 * What every `aeh bench` benchmark does with its scenarios: launches them as one suite against the agent (so the
 * result is certified), follows it to its end, reads each scenario's run record, and writes the suite's HTML report
 * when asked. The benchmark then reads its own numbers from the runs (τ-bench's pass^k, AgentDojo's rates).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import type { ApiClient } from '../client.ts';
import type { RunRecord } from '../../core/domain/runs.ts';
import { createProgress } from '../progress.ts';

export interface BenchRun<S> {
  /** What the benchmark calls this scenario (a domain, a suite). */
  label: string;
  scenario: S;
  run: RunRecord;
}

/**
 * Runs `scenarios` as one suite named `name` (in its signed manifest) against `agent`; each run in scenario order,
 * or the exit code after saying what went wrong (a refused suite or run).
 */
export async function runBenchSuite<S extends { id: string }>(
  client: ApiClient,
  io: Io,
  options: { name: string; scenarios: readonly S[]; labels: readonly string[]; agent: unknown; json: boolean; pollMs: number },
): Promise<{ suite: any; runs: Array<BenchRun<S>> } | number> {
  const { scenarios, labels } = options;
  const accepted = await client.request('POST', '/api/v1/suites', { name: options.name.slice(0, 200), scenarios: scenarios.map((scenario) => ({ scenario })), agents: [options.agent] });
  if (accepted.status !== 202) return printProblem(io, 'bench', accepted), EXIT.error;
  const suite = await follow(client, accepted.body.suite_id, io, options.json, options.pollMs);
  const runs: Array<BenchRun<S>> = [];
  for (const [index, scenario] of scenarios.entries()) {
    const entry = suite.runs.find((candidate: { scenario_id?: string }) => candidate.scenario_id === scenario.id) ?? suite.runs[index];
    if (!entry?.run_id) return line(io.stderr, `aeh bench: the ${labels[index]} run was refused: ${entry?.error?.detail ?? 'no run'}`), EXIT.error;
    runs.push({ label: labels[index]!, scenario, run: (await client.request<RunRecord>('GET', `/api/v1/runs/${entry.run_id}`)).body });
  }
  return { suite, runs };
}

/** Writes the suite's HTML report to `path`; the exit code when it could not be had. */
export async function writeSuiteReport(client: ApiClient, io: Io, suiteId: string, path: string): Promise<number | undefined> {
  const report = await client.request('GET', `/api/v1/suites/${suiteId}/report`);
  if (report.status !== 200) return printProblem(io, 'bench --report', report), EXIT.error;
  writeFileSync(resolve(io.cwd, path), report.text);
  line(io.stderr, `wrote ${path}`);
  return undefined;
}

/** Waits for the suite's one run to end; the suite as the API answers it then. */
export async function follow(client: ApiClient, suiteId: string, io: Io, quiet: boolean, pollMs: number): Promise<any> {
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
