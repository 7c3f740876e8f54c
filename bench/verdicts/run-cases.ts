/**
 * Runs every verdict-benchmark case over every adapter against a started service, through its HTTP API, and
 * sums the verdicts up as a confusion matrix. Shared by `bench/verdicts/run.mjs` (prints it) and
 * test/verdict-benchmark.test.ts (asserts zero wrong verdicts and the same evidence over every adapter).
 */
import { ADAPTERS, CASES, type AdapterKind, type BenchAgents } from './agents.ts';
import { verdictScenario, type VerdictCase } from './cases.ts';

/** What one case gave over one adapter. */
export interface CaseOutcome {
  case: string;
  adapter: AdapterKind;
  expected: VerdictCase['expected'];
  status: string;
  gate: string | undefined;
  /** `code metric trial turn` per failure, sorted: what must not depend on the adapter. */
  failures: string[];
  /** `trial name ok|error-code` per tool call the trace recorded, in order within each trial. */
  toolCalls: string[];
  run_id: string;
}

export interface ServiceTarget {
  url: string;
  key: string;
}

async function call(target: ServiceTarget, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(`${target.url}${path}`, { method, headers: { 'x-api-key': target.key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}

async function runOne(target: ServiceTarget, agents: BenchAgents, kind: AdapterKind, entry: VerdictCase, runKey: string): Promise<CaseOutcome> {
  const accepted = await call(target, 'POST', '/api/evaluate', { scenario: (entry.scenario ?? verdictScenario)(agents.spec(kind, entry.id, runKey)) });
  if (accepted.status !== 202) throw new Error(`${entry.id} over ${kind}: ${accepted.status} ${accepted.text.slice(0, 300)}`);
  for (let tries = 0; ; tries++) {
    const task = await call(target, 'GET', accepted.body.status_url);
    if (['succeeded', 'failed', 'cancelled'].includes(task.body?.status)) break;
    if (tries > 3000) throw new Error(`${entry.id} over ${kind}: did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const run = (await call(target, 'GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
  const trace = (await call(target, 'GET', `/api/v1/runs/${accepted.body.run_id}/trace`)).text.trim().split('\n').map((line) => JSON.parse(line));
  const failures = (run.failures as Array<{ code: string; metric: string; trial?: number; turn?: number }>).map((failure) => `${failure.code} ${failure.metric} trial=${failure.trial ?? '-'} turn=${failure.turn ?? '-'}`).sort();
  const toolCalls = trace
    .filter((event: { type: string }) => event.type === 'tool_call')
    .map((event: { trial?: number; data: { name: string; error?: { code: string } } }) => `${event.trial ?? '-'} ${event.data.name} ${event.data.error ? event.data.error.code : 'ok'}`)
    .sort();
  return { case: entry.id, adapter: kind, expected: entry.expected, status: run.compliance?.status, gate: run.compliance?.decided_by?.gate, failures, toolCalls, run_id: run.run_id };
}

/** Runs every case over every adapter (a few at a time); `runKey` keeps repeated benchmark runs apart. */
export async function runVerdictCases(target: ServiceTarget, agents: BenchAgents, runKey: string, parallel = 4): Promise<CaseOutcome[]> {
  const jobs = CASES.flatMap((entry) => ADAPTERS.map((kind) => () => runOne(target, agents, kind, entry, runKey)));
  const outcomes: CaseOutcome[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < jobs.length) outcomes.push(await jobs[next++]());
  }));
  return outcomes.sort((a, b) => CASES.findIndex((entry) => entry.id === a.case) - CASES.findIndex((entry) => entry.id === b.case) || ADAPTERS.indexOf(a.adapter) - ADAPTERS.indexOf(b.adapter));
}

/** The confusion matrix (expected × got) and the outcomes whose verdict is wrong. */
export function confusion(outcomes: readonly CaseOutcome[]): { matrix: Record<string, Record<string, number>>; wrong: CaseOutcome[] } {
  const matrix: Record<string, Record<string, number>> = { pass: {}, fail: {} };
  for (const outcome of outcomes) matrix[outcome.expected][outcome.status] = (matrix[outcome.expected][outcome.status] ?? 0) + 1;
  return { matrix, wrong: outcomes.filter((outcome) => outcome.status !== outcome.expected) };
}

/** The matrix and every case's verdict per adapter, as lines of text. */
export function formatConfusion(outcomes: readonly CaseOutcome[]): string[] {
  const { matrix, wrong } = confusion(outcomes);
  const statuses = ['pass', 'warning', 'fail', 'error'];
  const lines = [
    `verdicts: ${outcomes.length} (${CASES.length} behaviours × ${ADAPTERS.join(', ')}), ${wrong.length} wrong`,
    '',
    `expected \\ got  ${statuses.map((status) => status.padStart(8)).join('')}`,
    ...(['pass', 'fail'] as const).map((expected) => `${expected.padEnd(15)} ${statuses.map((status) => String(matrix[expected][status] ?? 0).padStart(8)).join('')}`),
    '',
  ];
  for (const entry of CASES) {
    const own = outcomes.filter((outcome) => outcome.case === entry.id);
    lines.push(`${entry.id.padEnd(20)} expected ${entry.expected.padEnd(5)} ${own.map((outcome) => `${outcome.adapter} ${outcome.status} (${outcome.gate})`).join(' · ')}${entry.bug ? `  — ${entry.bug}` : ''}`);
  }
  return lines;
}
