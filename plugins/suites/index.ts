/**
 * Suites and matrices (issue 17 item 2): one request evaluates a set of scenarios against one or more agents
 * through the evaluation API (as the caller, so quotas and permissions apply); the suite aggregates per agent,
 * and once every run has its certificate the suite gets one whose evidence ledger lists their digests. Other
 * plugins read suites through the `suites` service slot (core/domain/suites.ts). See docs/evaluation.md, "Suites".
 */
import type { Plugin } from '../../core/plugin.ts';
import type { Services } from '../../core/services.ts';
import { loadSuiteView, registerSuiteRoutes } from './routes.ts';
import { suiteKeys } from './store.ts';

/** Issues the suite's certificate when it is due (loading the view does); never fails the caller. */
async function settle(services: Services, suiteId: string): Promise<void> {
  try {
    await loadSuiteView(services, suiteId);
  } catch (error) {
    services.logger.error('suites: could not settle a suite', { suite_id: suiteId, error: (error as Error).message });
  }
}

export default {
  name: 'suites',
  version: '1.0.0',
  // Runs are launched through the evaluation API, scenarios found in the catalog, and a suite is certified only
  // after certification signed its runs (its run.finished handler is registered first, so it runs first).
  dependencies: ['evaluation', 'catalog', 'certification'],
  setup(host) {
    registerSuiteRoutes(host, settle);
    host.provide('suites', (services) => ({ get: (suiteId) => loadSuiteView(services, suiteId) }));
    host.on('run.finished', async ({ run_id }, services) => {
      const owner = await services.store.getJson<{ suite_id: string }>(suiteKeys.ofRun(run_id)).catch(() => null);
      if (owner) await settle(services, owner.suite_id);
    });
  },
} satisfies Plugin;
