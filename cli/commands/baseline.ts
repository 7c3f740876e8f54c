/**
 * `aeh baseline pin|show|unpin`: the pinned baseline a gate compares with (`aeh evaluate --baseline pinned`,
 * `aeh compare baseline <run>`), one per scenario and agent, over `/api/v1/baselines/:scenario_id`.
 * `pin` takes a run id and finds its scenario itself, so a pipeline pins the run it just made with one line.
 */
import { parseArgs } from 'node:util';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { BASELINE_USAGE } from '../usage.ts';
import { openClient, type ApiClient } from '../client.ts';

interface Baseline {
  scenario_id: string;
  run_id: string;
  index: number | null;
  compliance: string | null;
  agent: { key: string; name?: string };
  pinned_at: string;
  pinned_by: string | null;
}

const describe = (baseline: Baseline) =>
  `${baseline.scenario_id}  agent ${baseline.agent.name ?? baseline.agent.key}  run ${baseline.run_id}  index ${baseline.index ?? '–'}  ${baseline.compliance ?? ''}  pinned ${baseline.pinned_at}${baseline.pinned_by ? ` by ${baseline.pinned_by}` : ''}`.trim();

const encode = encodeURIComponent;

/** The baselines of a scenario, optionally of one agent. */
const baselinesPath = (scenarioId: string, agent?: string) => `/api/v1/baselines/${encode(scenarioId)}${agent ? `?agent=${encode(agent)}` : ''}`;

async function pin(client: ApiClient, runId: string, io: Io, json: boolean): Promise<number> {
  const run = await client.request('GET', `/api/v1/runs/${encode(runId)}`);
  if (run.status !== 200) {
    printProblem(io, 'baseline pin', run);
    return EXIT.error;
  }
  const pinned = await client.request('PUT', baselinesPath(run.body.scenario_id), { run_id: runId });
  if (pinned.status !== 200) {
    printProblem(io, 'baseline pin', pinned);
    return EXIT.error;
  }
  line(io.stdout, json ? JSON.stringify(pinned.body, null, 2) : `pinned ${describe(pinned.body)}`);
  return EXIT.pass;
}

async function show(client: ApiClient, scenarioId: string, agent: string | undefined, io: Io, json: boolean): Promise<number> {
  const listed = await client.request('GET', baselinesPath(scenarioId, agent));
  if (listed.status !== 200) {
    printProblem(io, 'baseline show', listed);
    return EXIT.error;
  }
  if (json) line(io.stdout, JSON.stringify(listed.body, null, 2));
  else if (!listed.body.items.length) line(io.stdout, `no baseline is pinned for ${scenarioId}${agent ? ` and agent ${agent}` : ''}`);
  else for (const baseline of listed.body.items as Baseline[]) line(io.stdout, describe(baseline));
  return EXIT.pass;
}

async function unpin(client: ApiClient, scenarioId: string, agent: string | undefined, io: Io, json: boolean): Promise<number> {
  const removed = await client.request('DELETE', baselinesPath(scenarioId, agent));
  if (removed.status !== 200) {
    printProblem(io, 'baseline unpin', removed);
    return EXIT.error;
  }
  line(io.stdout, json ? JSON.stringify(removed.body, null, 2) : `unpinned ${describe(removed.body)}`);
  return EXIT.pass;
}

/** Runs `aeh baseline`; returns the exit code (0 done, 3 error). */
export async function baselineCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { url: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean', default: false }, agent: { type: 'string' } },
  });
  const [action, subject] = positionals;
  if (!action || !subject || positionals.length !== 2 || !['pin', 'show', 'unpin'].includes(action) || (action === 'pin' && values.agent)) {
    if (action === 'pin' && values.agent) line(io.stderr, 'aeh baseline pin: the run names its agent; --agent is for show and unpin');
    line(io.stderr, `usage: ${BASELINE_USAGE}`);
    return EXIT.error;
  }
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  try {
    if (action === 'pin') return await pin(client, subject, io, values.json!);
    if (action === 'show') return await show(client, subject, values.agent, io, values.json!);
    return await unpin(client, subject, values.agent, io, values.json!);
  } finally {
    await client.close();
  }
}
