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
import { createStallWatch, DEFAULT_STALL_S } from '../stall.ts';

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
  options: { name: string; scenarios: readonly S[]; labels: readonly string[]; agent: unknown; json: boolean; pollMs: number; stallMs?: number },
): Promise<{ suite: any; runs: Array<BenchRun<S>> } | number> {
  const { scenarios, labels } = options;
  const accepted = await client.request('POST', '/api/v1/suites', { name: options.name.slice(0, 200), scenarios: scenarios.map((scenario) => ({ scenario })), agents: [options.agent] });
  if (accepted.status !== 202) return printProblem(io, 'bench', accepted), EXIT.error;
  const suite = await follow(client, accepted.body.suite_id, io, options.json, options.pollMs, options.stallMs);
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

/** Answers a follower waits through (a rate limit, a service restarting) rather than fails on. */
const PASSING = new Set([429, 502, 503, 504]);

/**
 * Waits for the suite to end (every run, and the certificate issued or `unavailable`); the suite as the API
 * answers it then. Fails, saying what it waited for, when the suite shows no progress for `stallMs`
 * (cli/stall.ts), or when reading it answers anything but 200 or a passing refusal.
 */
export async function follow(client: ApiClient, suiteId: string, io: Io, quiet: boolean, pollMs: number, stallMs = DEFAULT_STALL_S * 1000): Promise<any> {
  const progress = createProgress(io, quiet);
  const stalled = createStallWatch(suiteId, stallMs);
  for (;;) {
    const answer = await client.request('GET', `/api/v1/suites/${suiteId}`);
    if (answer.status !== 200 && !PASSING.has(answer.status)) {
      progress.finish();
      throw new Error(`reading suite ${suiteId} answered ${answer.status}${answer.body?.detail ? `: ${answer.body.detail}` : ''}`);
    }
    const suite = answer.status === 200 ? answer.body : undefined;
    const run = suite?.runs?.[0];
    const task = run?.task_id ? (await client.request('GET', `/api/v1/tasks/${run.task_id}`)).body : undefined;
    progress.update(task?.status ?? suite?.status ?? 'launching', task?.progress?.done ?? 0, task?.progress?.total ?? 0);
    if (suite?.status === 'finished' && suite.certificate?.status !== 'pending') {
      progress.finish();
      return suite;
    }
    const stall = stalled(suite, task);
    if (stall) {
      progress.finish();
      throw new Error(stall);
    }
    await new Promise((done) => setTimeout(done, pollMs));
  }
}
