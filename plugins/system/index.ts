/**
 * System routes: `GET /healthz` (public liveness), `GET /api/info` (engine version, runtime, storage, plugin
 * names, counts and telemetry), `GET /api/plugins` (each plugin's name, version and source) and
 * `GET /api/openapi.json` (public, generated from the route definitions).
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { Services } from '../../core/services.ts';
import type { AppContext, RouteDefinition } from '../../core/routes.ts';
import { buildOpenApi } from './openapi.ts';
import { HARNESS_VERSION, PRODUCT_NAME } from '../../core/version.ts';
import { selectQueueFactory } from '../../core/tasks.ts';
import { respond } from '../../core/respond.ts';

const HEALTHY = JSON.stringify({ status: 'ok' });

const PLUGINS_SCHEMA = {
  type: 'object',
  required: ['plugins'],
  properties: {
    plugins: {
      type: 'array',
      description: 'The loaded plugins, in load order',
      items: {
        type: 'object',
        required: ['name', 'source'],
        properties: { name: { type: 'string' }, version: { type: 'string' }, source: { enum: ['bundled', 'user'] } },
      },
    },
  },
};

const INFO_SCHEMA = {
  type: 'object',
  required: ['name', 'version', 'harness_version', 'runtime', 'uptime_s', 'storage', 'plugins', 'counts', 'telemetry'],
  properties: {
    name: { type: 'string' },
    version: { type: 'string' },
    harness_version: { type: 'string' },
    runtime: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' } } },
    uptime_s: { type: 'number' },
    storage: { type: 'object', properties: { driver: { type: 'string' } } },
    queue: { type: 'object', description: 'The evaluation queue: `memory` (this instance) or `bullmq` (shared through Redis)', properties: { kind: { type: 'string' }, concurrency: { type: 'integer' } } },
    health: {
      type: 'object',
      description: 'Consolidated health: the doctor\'s overall status and each check\'s (storage, signer, OIDC key set, catalog, …) from its last run, at most AEH_HEALTH_MAX_AGE_MS old; `unknown` until the first run ends. GET /api/v1/doctor has the messages.',
      properties: { status: { enum: ['ok', 'warn', 'fail', 'unknown'] }, checked_at: { type: 'string' }, checks: { type: 'object', additionalProperties: { enum: ['ok', 'warn', 'fail'] } } },
    },
    plugins: { type: 'array', description: 'The names of the loaded plugins, in load order; GET /api/plugins has each one\'s version and source', items: { type: 'string' } },
    counts: { type: 'object', additionalProperties: { type: 'integer' } },
    telemetry: { type: 'object', additionalProperties: { type: 'number' } },
  },
};

/** How long `/api/info` reuses the stored run count: a monitoring poll must not cost a storage read each time. */
const COUNT_TTL_MS = 1000;

/** The stored run count, read at most once per COUNT_TTL_MS. */
function createRunCounter(): (services: Services) => number | Promise<number> {
  let runCount: { value: Promise<number>; resolved?: number; at: number } | undefined;
  /** The stored run count: a number while the last read is fresh and done, else a promise of a new read. */
  return function storedRunCount(services) {
    const now = services.now();
    if (!runCount || now - runCount.at >= COUNT_TTL_MS) {
      const entry: NonNullable<typeof runCount> = {
        value: services.store.getJson<number>('stats/runs').then((count) => (entry.resolved = count ?? 0)),
        at: now,
      };
      runCount = entry;
      // A failed read is not cached: the next request asks storage again.
      entry.value.catch(() => { if (runCount === entry) runCount = undefined; });
    }
    return runCount.resolved ?? runCount.value;
  };
}

/** The `/api/info` body, its fixed part serialised on first use. */
function createInfoResponder(host: PluginHost): (c: AppContext, services: Services, runs: number) => Response {
  let staticInfo: { head: string; counts: string } | undefined;
  let lastHealth: unknown;
  let healthJson = '';
  return function infoResponse(c, services, runs) {
    // Everything but uptime, the run count and telemetry is fixed once the service started: serialised once,
    // since monitoring polls this route. Plugins are listed by name only: their full records (version, source)
    // made the body twice as long, and answering 2 KB per poll cost a quarter of the route's throughput
    // (docs/bench-foundation.md); GET /api/plugins has them.
    staticInfo ??= {
      head: JSON.stringify({
        name: PRODUCT_NAME,
        version: HARNESS_VERSION,
        harness_version: HARNESS_VERSION,
        runtime: services.capabilities.runtime,
        storage: { driver: services.store.driver },
        queue: { kind: selectQueueFactory(host.queues.list(), services.config)?.name ?? 'memory', concurrency: services.config.concurrency },
        plugins: services.plugins.map((plugin) => plugin.name),
      }).slice(0, -1),
      counts: JSON.stringify({
        plugins: services.plugins.length,
        metrics: services.metrics.names().length,
        mutators: services.mutators.names().length,
        agent_adapters: services.agents.names().length,
        signers: services.signers.names().length,
      }).slice(0, -1),
    };
    const uptime = Math.round((services.now() - services.startedAt) / 100) / 10;
    const health = services.find('health')?.current();
    // The findings change at most once per AEH_HEALTH_MAX_AGE_MS: serialised once per change, not per poll.
    if (health && health !== lastHealth) {
      lastHealth = health;
      healthJson = `"health":${JSON.stringify(health)},`;
    }
    const body = `${staticInfo.head},"uptime_s":${uptime},"counts":${staticInfo.counts},"runs":${JSON.stringify(runs)}},${health ? healthJson : ''}"telemetry":${services.telemetry.json()}}`;
    return respond(c, body);
  };
}

/** GET /healthz: the liveness probe. */
function healthRoute(): RouteDefinition {
  return {
    method: 'GET',
    path: '/healthz',
    permission: null,
    summary: 'Liveness probe',
    tags: ['system'],
    rateClass: 'none',
    responses: { 200: { description: 'The service is up', schema: { type: 'object', properties: { status: { const: 'ok' } } } } },
    handler: (c) => respond(c, HEALTHY),
  };
}

/** GET /api/info: engine, runtime, storage, plugins, counts and telemetry. */
function infoRoute(host: PluginHost): RouteDefinition {
  const storedRunCount = createRunCounter();
  const infoResponse = createInfoResponder(host);
  return {
    method: 'GET',
    path: '/api/info',
    aliases: ['/api/v1/info'],
    permission: 'system:read',
    summary: 'Engine version, runtime, storage, plugin names, counts, health and telemetry',
    tags: ['system'],
    responses: { 200: { description: 'System information', schema: INFO_SCHEMA } },
    handler(c) {
      const services = c.get('services');
      const runs = storedRunCount(services);
      // A fresh count answers without a turn of the event loop; polls within a second are most of them.
      return typeof runs === 'number' ? infoResponse(c, services, runs) : runs.then((count) => infoResponse(c, services, count));
    },
  };
}

/** GET /api/plugins: each loaded plugin's name, version and source (fixed once the service started). */
function pluginsRoute(): RouteDefinition {
  let body: string | undefined;
  return {
    method: 'GET',
    path: '/api/plugins',
    aliases: ['/api/v1/plugins'],
    permission: 'system:read',
    summary: 'The loaded plugins: name, version and source (bundled or user)',
    tags: ['system'],
    responses: { 200: { description: 'The loaded plugins, in load order', schema: PLUGINS_SCHEMA } },
    handler(c) {
      body ??= JSON.stringify({ plugins: c.get('services').plugins });
      return respond(c, body);
    },
  };
}

/** GET /api/openapi.json: the OpenAPI document of the registered routes. */
function openApiRoute(host: PluginHost): RouteDefinition {
  let openApiDocument: string | undefined;
  return {
    method: 'GET',
    path: '/api/openapi.json',
    permission: null,
    summary: 'OpenAPI 3.1 description of this service',
    tags: ['system'],
    responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object' } } },
    handler(c) {
      // Routes are frozen after start, so the document is built once.
      openApiDocument ??= JSON.stringify(
        buildOpenApi(
          host.routes.list(),
          { title: PRODUCT_NAME, version: HARNESS_VERSION, description: 'Evaluation harness service for AI agents.' },
          Object.fromEntries(host.schemas.list().map((named) => [named.name, named.schema])),
        ),
      );
      return c.body(openApiDocument, 200, { 'content-type': 'application/json' });
    },
  };
}

function registerRoutes(host: PluginHost): void {
  host.routes.register(healthRoute(), 'system');
  host.routes.register(infoRoute(host), 'system');
  host.routes.register(pluginsRoute(), 'system');
  host.routes.register(openApiRoute(host), 'system');
}

export default {
  name: 'system',
  setup: registerRoutes,
} satisfies Plugin;
