/**
 * The bundled world shims (core/shim.ts): stateful simulators of the systems the catalog's industries touch.
 * Each is a plain definition registered here; none knows about the engine, which offers their actions to agents
 * as tools and keeps each run's world.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { Shim } from '../../core/shim.ts';
import sql from './sql/index.ts';
import orders from './orders.ts';
import payments from './payments.ts';
import email from './email.ts';
import calendar from './calendar.ts';
import crm from './crm.ts';
import tickets from './tickets.ts';
import kb from './kb.ts';
import kv from './kv.ts';
import httpApi from './http-api.ts';
import { registerShimConfigRoutes } from './configs.ts';
import { TAU_SETTINGS, registerTauShims } from './tau/register.ts';
// The suites themselves load on first use (issue 26): agentdojo/index.ts is not imported at start.
import { registerAgentDojoLazily } from './agentdojo/register.ts';

/** Every bundled shim, in the order `GET /api/v1/shims` lists them. */
export const BUNDLED_SHIMS = [sql, orders, payments, email, calendar, crm, tickets, kb, kv, httpApi] as unknown as readonly Shim[];

export default {
  name: 'shims',
  version: '1.0.0',
  settings: TAU_SETTINGS,
  setup(host) {
    for (const shim of BUNDLED_SHIMS) host.shims.register(shim, 'shims');
    registerTauShims(host);
    registerAgentDojoLazily(host);
    host.routes.register({
      method: 'GET', path: '/api/v1/shims', permission: 'shims:manage', summary: 'The world shims scenarios may enable, with their actions\' JSON Schemas', tags: ['shims'],
      responses: { 200: { description: 'Every registered shim' } },
      handler(c) {
        const items = c.var.services.shims.list().map((shim) => ({
          name: shim.name,
          description: shim.description,
          ...(shim.initialStateSchema ? { initial_state_schema: shim.initialStateSchema } : {}),
          ...(shim.incidental?.length ? { incidental: shim.incidental } : {}),
          actions: shim.actions.map((action) => ({ name: action.name, description: action.description, parameters: action.parameters, read_only: action.readOnly === true, ...(action.terminal ? { terminal: true } : {}), ...(action.result ? { result: action.result } : {}) })),
        }));
        return c.json({ items });
      },
    }, 'shims');
    registerShimConfigRoutes(host);
  },
} satisfies Plugin;
