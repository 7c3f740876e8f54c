/**
 * The agent registry (issue 17 item 1): named agent targets stored server-side, changed through
 * `/api/v1/agents` (routes.ts) and offered to the other plugins in the `agentTargets` service slot, so
 * `POST /api/evaluate` takes `"agent": "<name>"` and any catalog scenario runs against any registered agent.
 * A record holds an adapter, its options, the environment variables its secrets come from (never the values),
 * an optional pinned signature key, a description and an owner.
 */
import type { Plugin } from '../../core/plugin.ts';
import { registerAgentRoutes, AGENT_RECORD } from './routes.ts';
import { createAgentTargets } from './store.ts';

export default {
  name: 'agent-registry',
  version: '1.0.0',
  setup(host) {
    registerAgentRoutes(host);
    host.schemas.register({ name: 'Agent', schema: AGENT_RECORD }, 'agent-registry');
    host.provide('agentTargets', (services) => createAgentTargets(services.store));
  },
} satisfies Plugin;
