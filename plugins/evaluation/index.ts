/**
 * The evaluation engine as a plugin (issue 4 items 7–9): the evaluation API, the bounded task queue and the
 * stateless runner that continues any run from its handoff token. On start it resumes the tasks storage says
 * are unfinished; on stop it leaves running tasks where their last checkpoint left them.
 */
import { creditDeleted } from './submission/owners.ts';
import { asText, textSettings } from '../../core/plugin-settings.ts';
import type { Plugin } from '../../core/plugin.ts';
import { resumeLeftTasks, startEngine, stopEngine, type Engine, type EngineHolder } from './engine.ts';
import { registerEvaluationRoutes } from './routes.ts';
import { registerMcpRoutes } from './worlds/mcp-server.ts';
import { RUN, TASK } from './schemas.ts';
import { COST_SETTINGS } from './cost-settings.ts';
import { cacheSweep } from './units/agent-cache.ts';

/**
 * The runner (runner.ts: units, worlds, scoring, ~40 modules) loads with the first task, not with every start
 * (issue 36): a start answers /healthz and searches without it. A failed import fails that task as a throwing
 * runner would.
 */
function runTaskOnFirstUse(engine: Engine, taskId: string, signal: AbortSignal): Promise<void> {
  return import('./running/runner.ts').then(({ runTask }) => runTask(engine, taskId, signal));
}

export default {
  name: 'evaluation',
  // Catalog ids resolve through the catalog; the INFRA codes the engine reports are the metrics plugin's taxonomy.
  // Registered agents (`"agent": "<name>"`) come from the `agentTargets` slot when the agent registry is loaded;
  // without it, a name is refused (400) and inline specs still run, so it is found, not depended on.
  dependencies: ['catalog', 'metrics'],
  settings: textSettings({
    AEH_METRIC_BUDGET_MS: 'The longest one metric may score one answer (milliseconds, default 2000)',
    AEH_METRIC_IO_TIMEOUT_MS: 'The longest a metric may wait on the agent or a judge (milliseconds)',
    AEH_METRIC_INLINE_MAX_CHARS: 'Answers up to this size are scored inline by linear metrics',
    AEH_HANDOFF_TTL_SECONDS: 'How long a run step token stays valid',
    AEH_PUBLIC_URL: 'The URL agents reach this service at (MCP tool endpoints)',
    ...COST_SETTINGS,
  }),
  setup(host) {
    const settings = asText(host.settings);
    const holder: EngineHolder = {};
    registerEvaluationRoutes(host, holder);
    registerMcpRoutes(host, holder);
    host.schemas.register({ name: 'Run', schema: RUN }, 'evaluation');
    host.schemas.register({ name: 'EvaluationTask', schema: TASK }, 'evaluation');
    host.jobs.register(cacheSweep, 'evaluation');
    host.doctorChecks.register({
      id: 'queue',
      async run() {
        const queue = holder.current?.queue;
        if (!queue) return { status: 'fail', message: 'the evaluation engine is not running', hint: 'see the start-up log' };
        const { waiting, active } = queue.stats();
        return { status: 'ok', message: `${queue.kind} queue: ${active} running of ${queue.concurrency}, ${waiting} waiting`, details: { kind: queue.kind, concurrency: queue.concurrency, waiting, active } };
      },
    });
    host.onStart(async (services) => {
      // A malformed AEH_METRIC_BUDGET_MS / AEH_METRIC_IO_TIMEOUT_MS fails the start, not the first run.
      holder.current = await startEngine(services, runTaskOnFirstUse, host.queues.list(), settings);
    });
    // Tasks left by a stopped instance resume once every plugin started: a run may end at once and need them.
    host.onReady(async () => {
      if (holder.current) await resumeLeftTasks(holder.current);
    });
    // Evidence deleted by retention no longer counts against its submitter's stored-bytes quota.
    host.on('run.deleted', async ({ submitted_by, bytes_freed }, services) => {
      if (submitted_by) await creditDeleted(services.store, submitted_by, bytes_freed);
    });
    // So does a shared blob, charged to the principal whose run first wrote it (issue 33 item 2).
    host.on('blob.deleted', async ({ charged_to, bytes }, services) => {
      if (charged_to) await creditDeleted(services.store, charged_to, bytes);
    });
    host.onStop(async () => {
      const engine = holder.current;
      holder.current = undefined;
      if (engine) await stopEngine(engine);
    });
  },
} satisfies Plugin;
