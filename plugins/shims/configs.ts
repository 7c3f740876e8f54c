/**
 * Named shim configurations (`shims:manage`, issue 15 item 9): `GET /api/v1/shims/configs`,
 * `GET|PUT|DELETE /api/v1/shims/configs/:name`. A configuration names its shim, the shim's `config`, an optional
 * `initial_state` (checked against the shim's schema) and `trusted` (usable even when `AEH_ENABLED_SHIMS` does
 * not list the shim). Scenarios refer to one by name in `shim_config`; submission spells it out into the plan.
 * Trusting one, and changing or deleting a trusted one, needs the SUPERVISOR-only `shims:trust` (issue 25 item 5).
 */
import type { PluginHost } from '../../core/plugin-host.ts';
import { Problem, notFound } from '../../core/problems.ts';
import { check } from '../../core/validate.ts';
import { principalGroup } from '../../core/capabilities.ts';
import { buildShimState, ShimBudgetError, shimBudgetProblem } from '../../core/domain/shim-run.ts';
import { SHIM_CONFIG_NAME, shimConfigKey, type NamedShimConfig } from '../../core/domain/shim-configs.ts';
import { permissionCheck } from '../../core/permissions.ts';
import type { AppContext } from '../../core/routes.ts';

const holdsTrust = permissionCheck('shims:trust');

/** 403 unless the caller holds `shims:trust`: trusting opens a shim `AEH_ENABLED_SHIMS` keeps closed. */
function requireTrust(c: AppContext, why: string): void {
  if (!holdsTrust(c.var.principal?.permissions ?? [])) throw new Problem('forbidden', { detail: `${why} needs the permission "shims:trust" (SUPERVISOR)`, extra: { permission: 'shims:trust' } });
}

const NAME_PARAM = { name: 'name', in: 'path' as const, required: true, schema: { type: 'string', pattern: SHIM_CONFIG_NAME.source } };

const BODY = {
  type: 'object',
  required: ['shim'],
  additionalProperties: false,
  properties: {
    shim: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,39}$' },
    description: { type: 'string', maxLength: 2000 },
    config: { type: 'object', default: {} },
    initial_state: { type: 'object' },
    trusted: { type: 'boolean', default: false },
  },
};

function nameOf(raw: string | undefined): string {
  const name = raw ?? '';
  if (!SHIM_CONFIG_NAME.test(name)) throw notFound(`shim configuration ${name.slice(0, 64)}`);
  return name;
}

/** Registers the configuration routes. */
export function registerShimConfigRoutes(host: PluginHost): void {
  host.routes.register({
    method: 'GET', path: '/api/v1/shims/configs', permission: 'shims:manage', summary: 'Named shim configurations', tags: ['shims'],
    async handler(c) {
      const { store } = c.var.services;
      const keys = (await store.keys('shim-configs')).filter((key) => key.endsWith('.json')).sort();
      const items = (await Promise.all(keys.map((key) => store.getJson<NamedShimConfig>(key)))).filter((item): item is NamedShimConfig => item !== null);
      return c.json({ items });
    },
  }, 'shims');

  host.routes.register({
    method: 'GET', path: '/api/v1/shims/configs/:name', permission: 'shims:manage', summary: 'One named shim configuration', tags: ['shims'], parameters: [NAME_PARAM],
    async handler(c) {
      const name = nameOf(c.req.param('name'));
      const stored = await c.var.services.store.getJson<NamedShimConfig>(shimConfigKey(name));
      if (!stored) throw notFound(`shim configuration ${name}`);
      return c.json(stored);
    },
  }, 'shims');

  host.routes.register({
    method: 'PUT', path: '/api/v1/shims/configs/:name', permission: 'shims:manage', summary: 'Create or replace a named shim configuration', tags: ['shims'], parameters: [NAME_PARAM], body: BODY, audit: 'shim-config',
    responses: { 200: { description: 'The stored configuration' }, 422: { description: 'budget_exceeded: the initial state did not build within AEH_SHIM_BUDGET_MS', contentType: 'application/problem+json' } },
    async handler(c) {
      const name = nameOf(c.req.param('name'));
      const body = c.var.body as { shim: string; description?: string; config?: Record<string, unknown>; initial_state?: Record<string, unknown>; trusted?: boolean };
      if (body.trusted === true) requireTrust(c, 'trusting a shim configuration');
      if ((await c.var.services.store.getJson<NamedShimConfig>(shimConfigKey(name)))?.trusted) requireTrust(c, `replacing the trusted configuration "${name}"`);
      const shim = c.var.services.shims.get(body.shim);
      if (!shim) throw new Problem('validation_failed', { detail: `unknown shim "${body.shim}"`, errors: [{ path: '/shim', message: `known: ${c.var.services.shims.names().join(', ')}` }] });
      if (body.initial_state !== undefined && shim.initialStateSchema) {
        const errors = check(shim.initialStateSchema, body.initial_state, '/initial_state');
        if (errors.length) throw new Problem('validation_failed', { detail: `the initial state does not fit the ${shim.name} shim`, errors });
      }
      if (body.initial_state !== undefined) {
        const { config, capabilities } = c.var.services;
        // Built as a run builds it: in the offload pool under the shim budget, as this principal's work.
        const execution = { offload: capabilities.offload, budgetMs: config.shimBudgetMs, signal: c.req.raw.signal, group: principalGroup(c.var.principal?.id) };
        try {
          await buildShimState(shim, body.initial_state, { config: body.config ?? {}, now: new Date(c.var.services.now()).toISOString() }, execution);
        } catch (error) {
          if (error instanceof ShimBudgetError) throw shimBudgetProblem(error, '/initial_state');
          throw new Problem('validation_failed', { detail: `the ${shim.name} shim cannot start from this initial state`, errors: [{ path: '/initial_state', message: String((error as Error)?.message ?? error).slice(0, 300) }] });
        }
      }
      const stored: NamedShimConfig = {
        name, shim: shim.name, ...(body.description ? { description: body.description } : {}), config: body.config ?? {},
        ...(body.initial_state !== undefined ? { initial_state: body.initial_state } : {}), trusted: body.trusted === true,
        ...(body.trusted === true && c.var.principal ? { trusted_by: c.var.principal.id } : {}),
        updated_at: new Date(c.var.services.now()).toISOString(), updated_by: c.var.principal?.id,
      };
      await c.var.services.store.setJson(shimConfigKey(name), stored);
      return c.json(stored);
    },
  }, 'shims');

  host.routes.register({
    method: 'DELETE', path: '/api/v1/shims/configs/:name', permission: 'shims:manage', summary: 'Delete a named shim configuration', tags: ['shims'], parameters: [NAME_PARAM], audit: 'shim-config-delete',
    responses: { 204: { description: 'Deleted' } },
    async handler(c) {
      const name = nameOf(c.req.param('name'));
      const stored = await c.var.services.store.getJson<NamedShimConfig>(shimConfigKey(name));
      if (!stored) throw notFound(`shim configuration ${name}`);
      if (stored.trusted) requireTrust(c, `deleting the trusted configuration "${name}"`);
      await c.var.services.store.remove(shimConfigKey(name));
      return c.body(null, 204);
    },
  }, 'shims');
}
