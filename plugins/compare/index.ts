/**
 * Comparisons and regression gates (issue 17 item 3): `GET /api/v1/compare` puts two finished runs side by
 * side and says what regressed beyond a threshold; `/api/v1/baselines/:scenario_id` pins the run each scenario
 * and agent is gated against. It reads the runs the evaluation plugin records, through the shared storage
 * layout, and repeats their texts only through the metrics plugin's redactor.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AppContext } from '../../core/routes.ts';
import { Problem } from '../../core/problems.ts';
import { compareRoute } from './routes.ts';
import { checkScenarioId, holdPinnedRuns, listBaselines, pinBaseline, unpinBaseline } from './baselines.ts';
import { catalogContentHash } from '../../core/domain/scenario-identity.ts';

const PLUGIN = 'compare';
const SCENARIO_PARAM = { name: 'scenario_id', in: 'path' as const, required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' } };
const AGENT_PARAM = { name: 'agent', in: 'query' as const, schema: { type: 'string', maxLength: 300 }, description: 'an agent key (`name:<name>` or `spec:<hash>`)' };
const BASELINE = {
  type: 'object',
  required: ['scenario_id', 'agent', 'run_id', 'pinned_at'],
  properties: {
    scenario_id: { type: 'string' }, run_id: { type: 'string' }, index: { type: ['number', 'null'] }, compliance: { type: ['string', 'null'] },
    agent: { type: 'object', required: ['key'], properties: { key: { type: 'string' }, name: { type: 'string' }, spec_hash: { type: 'string' }, adapter: { type: 'string' } } },
    pinned_at: { type: 'string' }, pinned_by: { type: ['string', 'null'] },
    scenario_hash: { type: 'string', description: 'the content hash of the run\'s scenario: the baseline serves runs of this content only' },
  },
};

const scenarioOf = (c: AppContext) => checkScenarioId(c.req.param('scenario_id') ?? '');

function registerBaselineRoutes(host: PluginHost): void {
  host.routes.register({
    method: 'GET', path: '/api/v1/baselines/:scenario_id', permission: 'runs:read', tags: ['evaluation'],
    summary: 'The baselines pinned for a scenario, one per agent',
    parameters: [SCENARIO_PARAM, AGENT_PARAM],
    responses: { 200: { description: 'The baselines', schema: { type: 'object', required: ['scenario_id', 'items'], properties: { scenario_id: { type: 'string' }, items: { type: 'array', items: BASELINE } } } } },
    async handler(c) {
      const scenarioId = scenarioOf(c);
      return c.json({ scenario_id: scenarioId, items: await listBaselines(c.var.services.store, scenarioId, c.req.query('agent') || undefined) });
    },
  }, PLUGIN);
  host.routes.register({
    method: 'PUT', path: '/api/v1/baselines/:scenario_id', permission: 'evaluations:launch', tags: ['evaluation'], audit: 'baseline.pin',
    summary: 'Pin a succeeded run as the baseline of its scenario and agent (replaces the one pinned before)',
    parameters: [SCENARIO_PARAM],
    body: { type: 'object', required: ['run_id'], additionalProperties: false, properties: { run_id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' } } },
    responses: { 200: { description: 'The pinned baseline', schema: BASELINE }, 409: { description: 'The run did not succeed, or ran other content than the catalog scenario of that id' } },
    async handler(c) {
      const { run_id: runId } = c.var.body as { run_id: string };
      const services = c.var.services;
      const scenarioId = scenarioOf(c);
      return c.json(await pinBaseline(services.store, scenarioId, runId, c.var.principal?.id ?? null, services.now(), await catalogContentHash(services, scenarioId)));
    },
  }, PLUGIN);
  host.routes.register({
    method: 'DELETE', path: '/api/v1/baselines/:scenario_id', permission: 'evaluations:launch', tags: ['evaluation'], audit: 'baseline.unpin',
    summary: 'Unpin the baseline of a scenario and agent (the agent may be left out when only one is pinned)',
    parameters: [SCENARIO_PARAM, AGENT_PARAM],
    responses: { 200: { description: 'The baseline that was unpinned', schema: BASELINE } },
    async handler(c) {
      const store = c.var.services.store;
      const scenarioId = scenarioOf(c);
      let agent = c.req.query('agent');
      if (!agent) {
        const pinned = await listBaselines(store, scenarioId);
        if (pinned.length > 1) throw new Problem('validation_failed', { detail: `${pinned.length} agents have a baseline for ${scenarioId}; name one with ?agent=`, errors: [{ path: '/agent', message: 'is required', }], extra: { agents: pinned.map((baseline) => baseline.agent.key) } });
        agent = pinned[0]?.agent.key ?? '';
      }
      return c.json(await unpinBaseline(store, scenarioId, agent));
    },
  }, PLUGIN);
}

export default {
  name: PLUGIN,
  version: '1.0.0',
  // It compares the runs the evaluation plugin records, and redacts with the metrics plugin's redactor.
  dependencies: ['evaluation', 'metrics'],
  setup(host) {
    host.routes.register(compareRoute(), PLUGIN);
    registerBaselineRoutes(host);
    // Baselines pinned by earlier versions hold their runs too (retention's keep_runs skips held runs).
    host.onStart((services) => holdPinnedRuns(services.store));
  },
} satisfies Plugin;
