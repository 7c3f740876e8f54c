/**
 * `aeh suite run|show|list`: launch a suite of scenarios × agents, follow it with a progress bar (ETA on a
 * terminal), and print each agent's index, pass rate and failures. Exit 0 when every run passed, 1 when one
 * did not, 3 on an error.
 */
import { VERDICT_OPTIONS, verdictOption } from './evaluate-options.ts';
import { parseArgs } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { parseBoundedJson } from '../../core/guards/json.ts';
import { resolve } from 'node:path';
import { SUITE_USAGE } from '../usage.ts';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient, type ApiClient } from '../client.ts';
import { createProgress } from '../progress.ts';
import { createStallWatch, stallMsOf } from '../stall.ts';
import { usageLine } from '../../core/domain/usage-text.ts';


const ENDED = new Set(['succeeded', 'failed', 'cancelled', 'refused']);

/**
 * A `--scenarios` entry: a scenario file on this machine is sent inline (the service, local or remote, runs it as
 * read now; no catalog folder or restart needed); anything else is a catalog id.
 */
function scenarioOf(entry: string, cwd: string): unknown {
  const path = resolve(cwd, entry);
  if (!/\.json$/i.test(entry) || !existsSync(path)) return entry;
  return { scenario: parseBoundedJson(readFileSync(path, 'utf8')) };
}

function agentOf(value: string, cwd: string): unknown {
  if (value.startsWith('@')) return JSON.parse(readFileSync(resolve(cwd, value.slice(1)), 'utf8'));
  if (value.trim().startsWith('{')) return JSON.parse(value);
  return value;
}

const percent = (value: number | null | undefined) => (value === null || value === undefined ? '-' : `${Math.round(value * 1000) / 10}%`);

/** Prints a suite's per-agent summary; returns the exit code it means. */
function printSummary(io: Io, suite: any): number {
  line(io.stdout, `suite ${suite.suite_id}${suite.name ? ` (${suite.name})` : ''}: ${suite.status}, ${suite.runs.length} runs over ${suite.scenario_ids.length} scenarios`);
  for (const aggregate of suite.agents) {
    const label = aggregate.agent.name ?? aggregate.agent.key;
    const failures = Object.entries(aggregate.failures_by_code as Record<string, number>).sort(([, a], [, b]) => b - a).slice(0, 5).map(([code, count]) => `${code} ×${count}`).join(', ');
    line(io.stdout, `  ${label}: index ${aggregate.index === null ? '-' : aggregate.index.toFixed(3)}, pass rate ${percent(aggregate.pass_rate)}, ${aggregate.runs.finished}/${aggregate.runs.total} ended${failures ? `; failures: ${failures}` : ''}`);
    if (aggregate.usage) line(io.stdout, `    usage: ${usageLine(aggregate.usage)}`);
  }
  for (const run of suite.runs.filter((entry: any) => entry.error)) line(io.stderr, `  refused: ${run.scenario_id} with ${run.agent}: ${run.error.detail}`);
  line(io.stdout, `  certificate: ${suite.certificate.status}${suite.certificate.verify_url ? ` (${suite.certificate.verify_url})` : ` (${suite.certificate.detail})`}`);
  const allPassed = suite.runs.every((run: any) => run.compliance === 'pass');
  return suite.runs.some((run: any) => run.status === 'refused' || run.compliance === 'error') ? EXIT.error : allPassed ? EXIT.pass : EXIT.fail;
}

async function follow(client: ApiClient, io: Io, suiteId: string, json: boolean, pollMs: number, stallMs: number): Promise<any> {
  const progress = createProgress(io, json);
  const stalled = createStallWatch(suiteId, stallMs);
  for (;;) {
    const response = await client.request('GET', `/api/v1/suites/${suiteId}`);
    if (response.status !== 200) {
      progress.finish();
      throw new Error(`reading suite ${suiteId} answered ${response.status}`);
    }
    const suite = response.body;
    const done = suite.runs.filter((run: any) => ENDED.has(run.status)).length;
    progress.update(suite.status, done, suite.runs.length);
    // The certificate follows the last run's, so a finished suite may need one more look.
    if (suite.status === 'finished' && suite.certificate.status !== 'pending') {
      progress.finish();
      return suite;
    }
    const stall = stalled(suite);
    if (stall) {
      progress.finish();
      throw new Error(stall);
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, pollMs));
  }
}

/** Runs `aeh suite`; returns the exit code. */
export async function suiteCommand(argv: string[], io: Io): Promise<number> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      scenarios: { type: 'string' }, query: { type: 'string' }, agent: { type: 'string', multiple: true }, name: { type: 'string' },
      'no-wait': { type: 'boolean', default: false }, cache: { type: 'boolean', default: false }, limit: { type: 'string' }, json: { type: 'boolean', default: false },
      url: { type: 'string' }, key: { type: 'string' }, 'poll-ms': { type: 'string' }, 'stall-s': { type: 'string' },
      ...VERDICT_OPTIONS,
    },
  });
  const verdict = verdictOption(values);
  const stallMs = stallMsOf(values['stall-s']);
  const problem = verdict.problem ?? (typeof stallMs === 'string' ? stallMs : undefined);
  if (problem) {
    line(io.stderr, `aeh suite: ${problem}`);
    line(io.stderr, `usage: ${SUITE_USAGE}`);
    return EXIT.error;
  }
  if (!action || !['run', 'show', 'list'].includes(action)) {
    line(io.stderr, `usage: ${SUITE_USAGE}`);
    return EXIT.error;
  }
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  const pollMs = Number(values['poll-ms'] ?? 500);
  try {
    if (action === 'list') {
      const response = await client.request('GET', `/api/v1/suites?limit=${Number(values.limit ?? 20)}`);
      if (response.status !== 200) return printProblem(io, 'suite list', response), EXIT.error;
      if (values.json) line(io.stdout, JSON.stringify(response.body, null, 2));
      else for (const item of response.body.items) line(io.stdout, `${item.suite_id}  ${item.created_at}  ${item.runs} runs  ${item.agents.join(', ')}${item.certified ? '  certified' : ''}${item.name ? `  ${item.name}` : ''}`);
      return EXIT.pass;
    }
    let suiteId = positionals[0];
    if (action === 'run') {
      const body = {
        ...(values.name ? { name: values.name } : {}),
        ...(values.scenarios ? { scenarios: values.scenarios.split(',').map((id) => id.trim()).filter(Boolean).map((entry) => scenarioOf(entry, io.cwd)) } : {}),
        ...(values.query ? { query: values.query } : {}),
        ...(values.agent?.length ? { agents: values.agent.map((agent) => agentOf(agent, io.cwd)) } : {}),
        ...(values.cache ? { cache: true } : {}),
        ...(verdict.policy ? { verdict: verdict.policy } : {}),
      };
      const accepted = await client.request('POST', '/api/v1/suites', body);
      if (accepted.status !== 202) return printProblem(io, 'suite run', accepted), EXIT.error;
      suiteId = accepted.body.suite_id;
      if (!values.json) line(io.stderr, `suite ${suiteId}: ${accepted.body.runs} runs (${accepted.body.scenarios} scenarios × ${accepted.body.agents.length} agents)`);
      if (values['no-wait']) {
        line(io.stdout, values.json ? JSON.stringify(accepted.body, null, 2) : suiteId);
        return EXIT.pass;
      }
    } else if (!suiteId) {
      line(io.stderr, `usage: ${SUITE_USAGE}`);
      return EXIT.error;
    }
    const suite = action === 'run' ? await follow(client, io, suiteId!, values.json!, pollMs, stallMs as number) : (await client.request('GET', `/api/v1/suites/${suiteId}`)).body;
    if (!suite?.suite_id) {
      line(io.stderr, `aeh suite: no suite "${suiteId}"`);
      return EXIT.error;
    }
    if (values.json) {
      line(io.stdout, JSON.stringify(suite, null, 2));
      return printSummary({ ...io, stdout: { write: () => true } as never, stderr: { write: () => true } as never }, suite);
    }
    return printSummary(io, suite);
  } finally {
    await client.close();
  }
}
