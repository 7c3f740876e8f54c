/**
 * The evaluation API (api-contract.md "Endpoints"): `POST /api/evaluate` (202 + `Location`), task status and
 * cancellation, the newest-first run list, run records and the raw trace, byte for byte.
 */
import type { PluginHost } from '../../core/plugin-host.ts';
import type { RouteDefinition } from '../../core/routes.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { isValidRunId, keys, readTask, type TaskRecord } from '../../core/domain/runs.ts';
import { readRun } from '../../core/domain/run-record.ts';
import { permissionCheck } from '../../core/permissions.ts';
import { ownsRecord } from '../../core/ownership.ts';
import type { Principal } from '../../core/auth-manager.ts';
import { engineOf, type EngineHolder } from './engine.ts';
import type { EvaluateBody } from './submission/submit.ts';
import { submitOnce } from './submission/idempotency.ts';
import { cancelTask } from './running/cancel.ts';
import { decodeCursor, listRunIds } from './listing/run-index.ts';
import { filteredRunPage, runFilterOf, RUN_STATUSES, summaryOf } from './listing/run-filter.ts';
import { runOr404, taskView } from './views.ts';
import { EVALUATE_BODY, ACCEPTED, RUN, RUN_LIST, TASK } from './schemas.ts';

const PLUGIN = 'evaluation';
const RUN_ID_PARAM = { name: 'run_id', in: 'path' as const, required: true, schema: { type: 'string' } };
const TASK_ID_PARAM = { name: 'task_id', in: 'path' as const, required: true, schema: { type: 'string' } };

function limitOf(raw: string | undefined): number {
  if (raw === undefined) return 20;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new Problem('validation_failed', { detail: 'limit must be an integer from 1 to 100', errors: [{ path: '/limit', message: 'must be an integer from 1 to 100' }] });
  }
  return limit;
}

/** POST /api/evaluate: queues an evaluation and answers 202 with the task to poll. */
function submitRoute(holder: EngineHolder): RouteDefinition {
  return {
    method: 'POST',
    path: '/api/evaluate',
    aliases: ['/api/v1/evaluate'],
    permission: 'evaluations:launch',
    summary: 'Queue an evaluation of a scenario (by path, inline, or catalog id); an Idempotency-Key header queues it at most once',
    tags: ['evaluation'],
    body: EVALUATE_BODY,
    audit: 'evaluate',
    responses: { 202: { description: 'Accepted; poll status_url', schema: ACCEPTED }, 422: { description: 'budget_exceeded: a shim\'s initial state (a SQL schema) did not build within AEH_SHIM_BUDGET_MS', contentType: 'application/problem+json' } },
    async handler(c) {
      const engine = engineOf(holder);
      const body = c.var.body as EvaluateBody;
      const principal = c.var.principal;
      let agentEnvs: string[] | undefined;
      // Planning a submission (worlds, agents, budgets: ~10 modules) loads with the first one, not at start (issue 36).
      const { submitEvaluation } = await import('./submission/submit.ts');
      const { ids, replayed } = await submitOnce(engine, c.req.header('idempotency-key'), principal, body, async (reserve) => {
        const { agent_envs: used, ...queued } = await submitEvaluation(engine, body, principal, reserve);
        agentEnvs = used;
        return queued;
      });
      c.set('auditFacts', { run_id: ids.run_id, ...(agentEnvs ? { agent_envs: agentEnvs } : {}) });
      const statusUrl = `/api/v1/tasks/${ids.task_id}`;
      return c.json({ task_id: ids.task_id, run_id: ids.run_id, status: 'queued', status_url: statusUrl }, 202, { Location: statusUrl, ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) });
    },
  };
}

/** GET /api/v1/tasks/:task_id: a task's status and progress. */
function taskStatusRoute(): RouteDefinition {
  return {
    method: 'GET',
    path: '/api/v1/tasks/:task_id',
    permission: 'runs:read',
    summary: 'Status and progress of an evaluation task',
    tags: ['evaluation'],
    parameters: [TASK_ID_PARAM],
    responses: { 200: { description: 'The task', schema: TASK } },
    async handler(c) {
      const task = await readTask(c.var.services.store, (c.req.param('task_id') ?? ''));
      if (!task) throw notFound(`task ${(c.req.param('task_id') ?? '')}`);
      return c.json(taskView(task));
    },
  };
}

const cancelsAny = permissionCheck('runs:cancel-any');

/**
 * Who may cancel a task (issue 33 item 5): its submitter (a schedule's or suite's creator for their runs), or a
 * holder of `runs:cancel-any` (SUPERVISOR). `evaluations:launch` alone cancelled anyone's run, a release gate's
 * included, which then got no certificate. Answers the submitter when the canceller is someone else.
 */
function authorizeCancel(principal: Principal | undefined, task: TaskRecord): string | undefined {
  if (principal && ownsRecord(principal, task.submitted_by, task.created_at)) return undefined;
  if (principal && cancelsAny(principal.permissions)) return task.submitted_by ?? 'unknown';
  throw new Problem('forbidden', { detail: 'only the principal that submitted the run, or a holder of "runs:cancel-any" (SUPERVISOR), may cancel it', extra: { permission: 'runs:cancel-any' } });
}

/** DELETE /api/v1/tasks/:task_id: cancels a task here, or asks the instance running it. */
function cancelRoute(holder: EngineHolder): RouteDefinition {
  return {
    method: 'DELETE',
    path: '/api/v1/tasks/:task_id',
    permission: 'evaluations:launch',
    summary: 'Cancel an evaluation task',
    tags: ['evaluation'],
    audit: 'cancel',
    parameters: [TASK_ID_PARAM],
    responses: {
      200: { description: 'Cancelled', schema: TASK },
      202: { description: 'Running on another instance; cancellation requested', schema: TASK },
      403: { description: 'Neither the run\'s submitter nor a holder of runs:cancel-any', contentType: 'application/problem+json' },
      409: { description: 'The task has already ended' },
    },
    async handler(c) {
      const taskId = (c.req.param('task_id') ?? '');
      const submitted = isValidRunId(taskId) ? await readTask(c.var.services.store, taskId) : null;
      if (!submitted) throw notFound(`task ${taskId}`);
      const owner = authorizeCancel(c.var.principal, submitted);
      c.set('auditFacts', { run_id: submitted.run_id, ...(owner !== undefined ? { run_owner: owner } : {}) });
      const { status, task } = await cancelTask(engineOf(holder), taskId);
      return c.json({ ...taskView(task), ...(status === 202 ? { cancel_requested: true } : {}) }, status);
    },
  };
}

/** GET /api/v1/runs: runs, newest first, filtered and paged by cursor. */
function runListRoute(): RouteDefinition {
  return {
    method: 'GET',
    path: '/api/v1/runs',
    permission: 'runs:read',
    summary: 'Runs, newest first, with cursor paging',
    tags: ['evaluation'],
    parameters: [
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'next_cursor of the previous page' },
      { name: 'status', in: 'query', schema: { enum: [...RUN_STATUSES] }, description: 'only runs with this (live) status' },
      { name: 'scenario_id', in: 'query', schema: { type: 'string', maxLength: 200 }, description: 'only runs of this scenario' },
      { name: 'agent', in: 'query', schema: { type: 'string', maxLength: 64 }, description: 'only runs of the agent registered under this name' },
    ],
    responses: { 200: { description: 'A page of runs; with filters a page may hold fewer than limit items and still have a next_cursor', schema: RUN_LIST } },
    async handler(c) {
      const store = c.var.services.store;
      const cursor = c.req.query('cursor');
      const limit = limitOf(c.req.query('limit'));
      const before = cursor ? decodeCursor(cursor) : undefined;
      const filter = runFilterOf(c.req.query('status'), c.req.query('scenario_id'), c.req.query('agent'));
      if (filter) return c.json(await filteredRunPage(store, { limit, before, filter }));
      const page = await listRunIds(store, { limit, before });
      const runs = await Promise.all(page.ids.map((id) => summaryOf(store, id)));
      return c.json({ items: runs.filter((run) => run !== null), next_cursor: page.next_cursor });
    },
  };
}

/** GET /api/v1/runs/:run_id: one run record. */
function runRoute(): RouteDefinition {
  return {
    method: 'GET',
    path: '/api/v1/runs/:run_id',
    permission: 'runs:read',
    summary: 'A run: status, dimension scores, index, compliance and failures',
    tags: ['evaluation'],
    parameters: [RUN_ID_PARAM],
    responses: { 200: { description: 'The run', schema: RUN } },
    async handler(c) {
      return c.json(await runOr404(c.var.services.store, (c.req.param('run_id') ?? '')));
    },
  };
}

/** GET /api/v1/runs/:run_id/trace: the raw trace, streamed byte for byte. */
function traceRoute(): RouteDefinition {
  return {
    method: 'GET',
    path: '/api/v1/runs/:run_id/trace',
    permission: 'runs:export',
    summary: 'The raw .jsonl trace, byte for byte what trace_hash covers',
    tags: ['evaluation'],
    parameters: [RUN_ID_PARAM],
    responses: { 200: { description: 'One JSON event per line', contentType: 'application/x-ndjson', schema: { type: 'string' } } },
    async handler(c) {
      const store = c.var.services.store;
      const runId = (c.req.param('run_id') ?? '');
      if (!(await readRun(store, runId))) throw notFound(`run ${runId}`);
      const stream = await store.stream(keys.trace(runId));
      return new Response(stream ?? '', {
        status: 200,
        headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store', 'content-disposition': `attachment; filename="${runId}.jsonl"` },
      });
    },
  };
}

/** Registers the evaluation routes. */
export function registerEvaluationRoutes(host: PluginHost, holder: EngineHolder): void {
  host.routes.register(submitRoute(holder), PLUGIN);
  host.routes.register(taskStatusRoute(), PLUGIN);
  host.routes.register(cancelRoute(holder), PLUGIN);
  host.routes.register(runListRoute(), PLUGIN);
  host.routes.register(runRoute(), PLUGIN);
  host.routes.register(traceRoute(), PLUGIN);
}
