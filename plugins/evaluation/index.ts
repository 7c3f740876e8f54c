/**
 * The evaluation engine as a plugin (issue 4 items 7–9): the evaluation API, the bounded task queue and the
 * stateless runner that continues any run from its handoff token. On start it resumes the tasks storage says
 * are unfinished; on stop it leaves running tasks where their last checkpoint left them.
 */
import type { Plugin } from '../../core/plugin.ts';
import { startEngine, stopEngine, type EngineHolder } from './engine.ts';
import { registerEvaluationRoutes } from './routes.ts';
import { registerMcpRoutes } from './mcp-server.ts';
import { runTask } from './runner.ts';
import { RUN, TASK } from './schemas.ts';
import { metricLimits } from './score-metrics.ts';

export default {
  name: 'evaluation',
  setup(host) {
    const holder: EngineHolder = {};
    registerEvaluationRoutes(host, holder);
    registerMcpRoutes(host, holder);
    host.schemas.register({ name: 'Run', schema: RUN }, 'evaluation');
    host.schemas.register({ name: 'EvaluationTask', schema: TASK }, 'evaluation');
    host.onStart(async (services) => {
      // A malformed AEH_METRIC_BUDGET_MS / AEH_METRIC_IO_TIMEOUT_MS fails the start, not the first run.
      metricLimits(services.config.env);
      holder.current = await startEngine(services, runTask, host.queues.list());
    });
    host.onStop(async () => {
      const engine = holder.current;
      holder.current = undefined;
      if (engine) await stopEngine(engine);
    });
  },
} satisfies Plugin;
