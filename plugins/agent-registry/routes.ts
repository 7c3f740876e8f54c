/**
 * `/api/v1/agents`: list and read registered agents (`runs:read`, so whoever reads runs can see what they ran
 * against), register, replace and remove them (`registry:admin`, the spec's SUPERVISOR "full registry control"),
 * each change audited (`agent.create`, `agent.update`, `agent.delete`). Names are unique: a taken name is 409,
 * an unknown one 404. `PUT` takes the `version` it read, and answers 409 when someone changed the agent since.
 */
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AppContext } from '../../core/routes.ts';
import { Problem } from '../../core/problems.ts';
import { AGENT_NAME, agentConfigHash, agentSpecOf, secretVariablesOf, type AgentTarget } from '../../core/domain/agent-target.ts';
import { AGENT_FIELDS, checkAgentInput, type AgentInput } from './validate.ts';
import { createAgent, listAgents, readAgent, removeAgent, writeAgent } from './store.ts';

const PLUGIN = 'agent-registry';
const NAME = { type: 'string', pattern: AGENT_NAME.source, description: 'lower case letters, digits, ".", "_", "-"; at most 64 characters' };
const NAME_PARAM = { name: 'name', in: 'path' as const, required: true, schema: NAME };

const CREATE_BODY = { type: 'object', required: ['name', 'adapter'], additionalProperties: false, properties: { name: NAME, ...AGENT_FIELDS } };
const REPLACE_BODY = {
  type: 'object', required: ['adapter'], additionalProperties: false,
  properties: { ...AGENT_FIELDS, name: NAME, version: { type: 'integer', minimum: 1, description: 'the version this change is based on; another answers 409' } },
};

export const AGENT_RECORD = {
  type: 'object',
  required: ['name', 'adapter', 'options', 'secret_envs', 'config_hash', 'version', 'created_at', 'updated_at'],
  properties: {
    name: NAME, ...AGENT_FIELDS,
    secret_envs: { type: 'array', items: { type: 'string' }, description: 'the environment variables its secrets come from (never their values)' },
    config_hash: { type: 'string', pattern: '^[a-f0-9]{64}$', description: 'SHA3-256 of the canonical JSON of the spec it runs as' },
    version: { type: 'integer' }, created_at: { type: 'string', format: 'date-time' }, created_by: { type: 'string' },
    updated_at: { type: 'string', format: 'date-time' }, updated_by: { type: 'string' },
  },
};

function noAgent(name: string): Problem {
  return new Problem('not_found', { detail: `no agent is registered as "${name.slice(0, 64)}"` });
}

function nameOf(c: AppContext): string {
  const name = c.req.param('name') ?? '';
  if (!AGENT_NAME.test(name)) throw noAgent(name);
  return name;
}

/** The record of a checked input: what it runs as, its secrets' variables and its configuration hash. */
function recordOf(name: string, input: AgentInput, stamp: Pick<AgentTarget, 'version' | 'created_at' | 'created_by' | 'updated_at' | 'updated_by'>, owner: string | undefined): AgentTarget {
  const options = input.options ?? {};
  return {
    name, adapter: input.adapter, options, secret_envs: secretVariablesOf(options),
    ...(input.signature_key ? { signature_key: input.signature_key } : {}),
    ...(input.description ? { description: input.description } : {}),
    ...(owner ? { owner } : {}),
    config_hash: agentConfigHash(agentSpecOf({ adapter: input.adapter, options, signature_key: input.signature_key })),
    ...stamp,
  };
}

/** Registers the agent registry's routes. */
export function registerAgentRoutes(host: PluginHost): void {
  const common = { tags: ['agents'] };
  host.routes.register({
    ...common, method: 'GET', path: '/api/v1/agents', permission: 'runs:read', summary: 'Registered agents, by name',
    responses: { 200: { description: 'Every registered agent', schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: AGENT_RECORD } } } } },
    handler: async (c) => c.json({ items: await listAgents(c.var.services.store) }),
  }, PLUGIN);

  host.routes.register({
    ...common, method: 'GET', path: '/api/v1/agents/:name', permission: 'runs:read', summary: 'One registered agent', parameters: [NAME_PARAM],
    responses: { 200: { description: 'The agent', schema: AGENT_RECORD } },
    async handler(c) {
      const name = nameOf(c);
      const target = await readAgent(c.var.services.store, name);
      if (!target) throw noAgent(name);
      return c.json(target);
    },
  }, PLUGIN);

  host.routes.register({
    ...common, method: 'POST', path: '/api/v1/agents', permission: 'registry:admin', summary: 'Register an agent under a new name', body: CREATE_BODY, audit: 'agent.create',
    responses: { 201: { description: 'Registered; Location names it', schema: AGENT_RECORD }, 409: { description: 'The name is taken' } },
    async handler(c) {
      const { services, principal } = c.var;
      const body = c.var.body as AgentInput & { name: string };
      await checkAgentInput(services, body);
      const now = new Date(services.now()).toISOString();
      const target = recordOf(body.name, body, { version: 1, created_at: now, created_by: principal?.id, updated_at: now, updated_by: principal?.id }, body.owner ?? principal?.id);
      if (!(await createAgent(services.store, target))) throw new Problem('conflict', { detail: `an agent is already registered as "${body.name}": change it with PUT /api/v1/agents/${body.name}` });
      return c.json(target, 201, { Location: `/api/v1/agents/${body.name}` });
    },
  }, PLUGIN);

  host.routes.register({
    ...common, method: 'PUT', path: '/api/v1/agents/:name', permission: 'registry:admin', summary: 'Replace a registered agent', parameters: [NAME_PARAM], body: REPLACE_BODY, audit: 'agent.update',
    responses: { 200: { description: 'The agent as now registered', schema: AGENT_RECORD }, 404: { description: 'No agent has this name' }, 409: { description: 'Changed since the given version' } },
    async handler(c) {
      const { services, principal } = c.var;
      const name = nameOf(c);
      const body = c.var.body as AgentInput & { name?: string; version?: number };
      if (body.name !== undefined && body.name !== name) throw new Problem('validation_failed', { detail: 'an agent cannot be renamed: register it under the new name and delete the old one', errors: [{ path: '/name', message: `must be "${name}", the name in the path` }] });
      const current = await readAgent(services.store, name);
      if (!current) throw new Problem('not_found', { detail: `no agent is registered as "${name}": register it with POST /api/v1/agents` });
      if (body.version !== undefined && body.version !== current.version) throw new Problem('conflict', { detail: `the agent is at version ${current.version}, not ${body.version}: read it again and re-apply the change` });
      await checkAgentInput(services, body);
      const stamp = { version: current.version + 1, created_at: current.created_at, created_by: current.created_by, updated_at: new Date(services.now()).toISOString(), updated_by: principal?.id };
      const target = recordOf(name, body, stamp, body.owner ?? current.owner);
      await writeAgent(services.store, target);
      return c.json(target);
    },
  }, PLUGIN);

  host.routes.register({
    ...common, method: 'DELETE', path: '/api/v1/agents/:name', permission: 'registry:admin', summary: 'Remove a registered agent (runs that used it keep the spec they ran)', parameters: [NAME_PARAM], audit: 'agent.delete',
    responses: { 204: { description: 'Removed' }, 404: { description: 'No agent has this name' } },
    async handler(c) {
      const name = nameOf(c);
      if (!(await readAgent(c.var.services.store, name))) throw noAgent(name);
      await removeAgent(c.var.services.store, name);
      return c.body(null, 204);
    },
  }, PLUGIN);
}
