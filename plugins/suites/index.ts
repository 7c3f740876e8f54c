/**
 * Suites and matrices (issue 17 item 2): one request evaluates a set of scenarios against one or more agents
 * through the evaluation API (as the caller, so quotas and permissions apply); the suite aggregates per agent,
 * and once every run has its certificate the suite gets one whose evidence ledger lists their digests. A launch
 * interrupted by a stop resumes at the next start or within minutes on another instance (resume.ts). Other
 * plugins read suites through the `suites` service slot (core/domain/suites.ts). See docs/evaluation.md, "Suites".
 */
import type { Plugin } from '../../core/plugin.ts';
import type { Services } from '../../core/services.ts';
import type { RunRecord } from '../../core/domain/runs.ts';
import { loadSuiteView, registerSuiteRoutes } from './routes.ts';
import { suiteKeys } from './store.ts';
import type { LaunchControl } from './launch.ts';
import { resumeJob, resumeSuites } from './resume.ts';
import { holdCertifiedSuites } from './certificate.ts';

/**
 * Issues the suite's certificate when it is due (loading the view does); never fails the caller. `finished`: the
 * record a `run.finished` hook carries, not yet in storage.
 */
async function settle(services: Services, suiteId: string, finished?: RunRecord): Promise<void> {
  try {
    await loadSuiteView(services, suiteId, finished);
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
    const control: LaunchControl = { stopping: false, leases: new Set() };
    registerSuiteRoutes(host, settle, control);
    host.jobs.register(resumeJob(control, settle), 'suites');
    // Suites certified before certificates held their runs (retention's keep_runs skips held runs).
    host.onStart((services) => holdCertifiedSuites(services.store));
    // Not awaited: the launches are requests to this app, which answers them only once every start hook ran.
    host.onStart((services) => void resumeSuites(services, control, settle));
    // Before the evaluation engine stops (stop hooks run in reverse): launchers write nothing more, and their
    // suites are given up so the next instance to start takes them at once.
    host.onStop(async () => {
      control.stopping = true;
      await Promise.all([...control.leases].map((lease) => lease.release().catch(() => undefined)));
      control.leases.clear();
    });
    host.provide('suites', (services) => ({ get: (suiteId) => loadSuiteView(services, suiteId) }));
    host.on('run.finished', async ({ run_id, record }, services) => {
      const owner = await services.store.getJson<{ suite_id: string }>(suiteKeys.ofRun(run_id)).catch(() => null);
      if (owner) await settle(services, owner.suite_id, record);
    });
  },
} satisfies Plugin;
