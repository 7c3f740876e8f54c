/**
 * `GET /api/v1/compare?base=&head=`: two finished runs side by side, with the regression gate's verdict for
 * `max_regression`. Every answer and failure message it repeats passes the redactor against its own run's
 * scenario.
 */
import type { AppContext, RouteDefinition } from '../../core/routes.ts';
import { Problem } from '../../core/problems.ts';
import { finalAnswers, loadSnapshot, type RunSnapshot } from './snapshot.ts';

const MAX_ANSWERS = 1000;

function numberParam(c: AppContext, name: string, fallback: number, { min, max, integer }: { min: number; max: number; integer?: boolean }): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new Problem('validation_failed', { detail: `${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`, errors: [{ path: `/${name}`, message: `must be from ${min} to ${max}` }] });
  }
  return value;
}

/** What the comparison says about each side. */
function side(snapshot: RunSnapshot) {
  const { run } = snapshot;
  return {
    run_id: run.run_id,
    scenario_id: run.scenario_id,
    scenario_title: run.scenario_title,
    ...(snapshot.contentHash ? { scenario_hash: snapshot.contentHash } : {}),
    agent: snapshot.agent,
    status: run.status,
    created_at: run.created_at,
    finished_at: run.finished_at,
    index: run.index,
    compliance: run.compliance?.status ?? null,
    ...(run.error ? { error: { code: run.error.code } } : {}),
  };
}

/** Builds the comparison the route answers (also what the console's compare view renders). */
export async function compareRuns(c: AppContext) {
  // The comparison itself (resolve, diff, gate, usage) loads with the first one, not with every start (issue 36).
  const [{ checkRef, resolveBase }, { diffRuns }, { regressionsOf }, { usageDeltas }] = await Promise.all([import('./resolve.ts'), import('./diff.ts'), import('./gate.ts'), import('./usage.ts')]);
  const services = c.var.services;
  const baseRef = checkRef(c.req.query('base'), 'base');
  const headRef = checkRef(c.req.query('head'), 'head');
  const maxRegression = numberParam(c, 'max_regression', 0, { min: 0, max: 1 });
  const answers = numberParam(c, 'answers', 50, { min: 0, max: MAX_ANSWERS, integer: true });
  const head = await loadSnapshot(services.store, headRef);
  const baseId = await resolveBase(services, c.var.principal, baseRef, head);
  const base = await loadSnapshot(services.store, baseId);
  const [baseAnswers, headAnswers] = await Promise.all([finalAnswers(services.store, base.run.run_id), finalAnswers(services.store, head.run.run_id)]);
  const redactor = services.use('redactor');
  const scopes = { base: { scenario: base.scenario }, head: { scenario: head.scenario } };
  const diff = diffRuns(base, head, { baseAnswers, headAnswers, answers, redact: (text, which) => redactor.text(text, scopes[which]) });
  const regressions = regressionsOf(base, head, diff, maxRegression);
  return {
    kind: 'run' as const,
    base: { ...side(base), ref: baseRef },
    head: side(head),
    // One id with other content is another scenario (issue 32 item 7).
    same_scenario: base.run.scenario_id === head.run.scenario_id && base.contentHash === head.contentHash,
    same_agent: base.agent.key === head.agent.key,
    index: diff.index,
    dimensions: diff.dimensions,
    compliance: { base: base.run.compliance?.status ?? null, head: head.run.compliance?.status ?? null },
    usage: usageDeltas(base.run.usage, head.run.usage),
    counts: diff.counts,
    gate: { max_regression: maxRegression, regressed: regressions.length > 0, regressions },
    tasks: diff.tasks,
  };
}

export type Comparison = Awaited<ReturnType<typeof compareRuns>>;

const COMPARISON_SCHEMA = {
  type: 'object',
  required: ['base', 'head', 'index', 'dimensions', 'counts', 'gate', 'tasks'],
  properties: {
    base: { type: 'object' }, head: { type: 'object' }, same_scenario: { type: 'boolean' }, same_agent: { type: 'boolean' },
    index: { type: 'object', properties: { base: { type: ['number', 'null'] }, head: { type: ['number', 'null'] }, delta: { type: ['number', 'null'] } } },
    dimensions: { type: 'object' }, compliance: { type: 'object' }, counts: { type: 'object' },
    gate: { type: 'object', required: ['max_regression', 'regressed', 'regressions'], properties: { max_regression: { type: 'number' }, regressed: { type: 'boolean' }, regressions: { type: 'array' } } },
    tasks: { type: 'array', items: { type: 'object', required: ['task_id', 'before', 'after', 'change', 'failures', 'answer_changed'] } },
  },
};

const SUITE_COMPARISON_SCHEMA = {
  type: 'object',
  required: ['kind', 'base', 'head', 'agents', 'counts', 'gate', 'runs'],
  properties: { kind: { const: 'suite' }, base: { type: 'object' }, head: { type: 'object' }, agents: { type: 'array' }, counts: { type: 'object' }, gate: COMPARISON_SCHEMA.properties.gate, runs: { type: 'array' }, only_base: { type: 'array' } },
};

/** `GET /api/v1/compare`. */
export function compareRoute(): RouteDefinition {
  return {
    method: 'GET',
    path: '/api/v1/compare',
    permission: 'runs:read',
    summary: 'Compare two finished runs (or two suites): index and dimension deltas, per-task outcomes and failures, changed answers, the regression gate',
    tags: ['evaluation'],
    parameters: [
      { name: 'base', in: 'query', required: true, schema: { type: 'string' }, description: 'a run id, `latest` (the newest succeeded run of the head\'s scenario and agent before it), `baseline` (the pinned one) or `suite:<suite_id>`' },
      { name: 'head', in: 'query', required: true, schema: { type: 'string' }, description: 'a run id, or `suite:<suite_id>` when the base is a suite' },
      { name: 'max_regression', in: 'query', schema: { type: 'number', minimum: 0, maximum: 1, default: 0 }, description: 'the largest drop of the index or a dimension that is not a regression' },
      { name: 'answers', in: 'query', schema: { type: 'integer', minimum: 0, maximum: MAX_ANSWERS, default: 50 }, description: 'changed answers shown side by side (regressed tasks first)' },
    ],
    responses: {
      200: { description: 'The comparison of two runs; of two suites (`kind: "suite"`), per agent and per pair of runs', schema: { oneOf: [COMPARISON_SCHEMA, SUITE_COMPARISON_SCHEMA] } },
      404: { description: 'A run is missing; `baseline_missing: true` when it is the base named by latest or baseline' },
      409: { description: 'A run is not finished' },
    },
    async handler(c) {
      const base = c.req.query('base') ?? '';
      const head = c.req.query('head') ?? '';
      if (!base.startsWith('suite:') && !head.startsWith('suite:')) return c.json(await compareRuns(c));
      if (!base.startsWith('suite:') || !head.startsWith('suite:')) {
        throw new Problem('validation_failed', { detail: 'compare two runs or two suites (suite:<suite_id> on both sides), not a run with a suite', errors: [{ path: base.startsWith('suite:') ? '/head' : '/base', message: 'must be a suite too' }] });
      }
      const { compareSuites } = await import('./suites.ts');
      return c.json(await compareSuites(c.var.services, base, head, numberParam(c, 'max_regression', 0, { min: 0, max: 1 })));
    },
  };
}
