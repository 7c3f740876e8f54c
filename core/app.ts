/**
 * `createApp(config, plugins, capabilities)`: the whole service as one web-standard `fetch` handler (hono).
 * Loads the plugins into a fresh host, then, lazily on the first request (or `app.ready`), opens storage and
 * runs start hooks. Runtime entries only build the config and capabilities and serve `app.fetch`.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import type { Config } from './config.ts';
import type { RuntimeCapabilities } from './runtime.ts';
import { consoleLogger } from './runtime.ts';
import { createHost, type HostInternals } from './host.ts';
import { loadPlugins, type LoadPluginsOptions, type Plugin } from './plugin.ts';
import { Problem, isProblem } from './problems.ts';
import type { AppEnv, RouteDefinition } from './routes.ts';
import type { PluginInfo, Services } from './services.ts';
import type { HookEvents, Hooks, AuditEntry } from './hooks.ts';
import { requestId } from './middleware/request-id.ts';
import { jsonBody } from './middleware/json-body.ts';
import { authorize } from './middleware/authorize.ts';
import { createTelemetry } from './telemetry.ts';
import { createLlmClient } from './llm-client.ts';
import { createGuardedFetch } from './ssrf.ts';
import { createCatalog } from './catalog.ts';
import { redactingLogger } from './redact.ts';
import { createRateLimits, type RateLimits } from './rate-limit.ts';
import { limitAuthFailures, limitRequests } from './middleware/rate-limit.ts';

export interface CreateAppOptions extends LoadPluginsOptions {
  /** Names of plugins that came from the user (config file, `AEH_PLUGINS`) rather than the bundle. */
  userPlugins?: string[];
}

/** The service: a hono app plus its lifecycle. */
export type AehApp = Hono<AppEnv> & {
  /** Resolves when storage is open and start hooks ran; rejects with the start-up failure. */
  ready: Promise<Services>;
  /** Runs stop hooks and closes storage. */
  close(): Promise<void>;
  /** The plugin host (registries), for tests and the CLI. */
  host: HostInternals;
};

function createHooks(host: HostInternals, services: () => Services): Hooks {
  return {
    on(event, handler) {
      host.on(event, handler);
    },
    async emit<E extends keyof HookEvents>(event: E, payload: HookEvents[E]) {
      for (const handler of host.hookHandlers.get(event) ?? []) {
        try {
          await handler(payload as HookEvents[keyof HookEvents], services());
        } catch (error) {
          services().logger.error(`hook ${event} failed`, { error: (error as Error).message });
        }
      }
    },
  };
}

async function openServices(host: HostInternals, plugins: PluginInfo[], dispatch: (request: Request) => Promise<Response>): Promise<Services> {
  const { config, capabilities } = host;
  const driver = host.storageDrivers.list().find((candidate) => candidate.accepts(config.storage));
  if (!driver) throw new Error(`no storage driver accepts AEH_STORAGE="${config.storage}" (loaded: ${host.storageDrivers.names().join(', ') || 'none'})`);
  const store = await driver.create(config);
  const trustedFetch = capabilities.fetch ?? globalThis.fetch.bind(globalThis);
  const auth = new host.AuthManager({ allowQueryKey: config.allowQueryKey });
  for (const provider of host.authProviders.list()) auth.addProvider(provider);
  const now = capabilities.now ?? Date.now;
  // Every log line passes the redactor: no `apiKey` query value, bearer token or configured secret gets out.
  const logger = redactingLogger(capabilities.logger ?? consoleLogger(), [config.apiKey, config.llm.apiKey]);
  const catalog = createCatalog({
    files: capabilities.files,
    dirs: [
      ...(capabilities.catalogDir ? [{ path: capabilities.catalogDir, source: 'bundled' }] : []),
      ...config.catalogDirs.map((dir) => ({ path: dir.startsWith('/') ? dir : `${config.projectRoot}/${dir}`, source: dir })),
    ],
    documents: capabilities.catalogDocuments,
    logger,
    metricDimension: (id) => host.metrics.get(id)?.dimension,
    now,
  });
  const services: Services = {
    config,
    store,
    logger,
    capabilities,
    metrics: host.metrics,
    mutators: host.mutators,
    agents: host.agents,
    signers: host.signers,
    jobs: host.jobs,
    doctorChecks: host.doctorChecks,
    auth,
    hooks: createHooks(host, () => services),
    fetch: createGuardedFetch({ net: capabilities.net, allowHosts: config.allowHosts, fallbackFetch: trustedFetch }),
    trustedFetch,
    llm: config.llm.baseUrl && config.llm.model
      ? createLlmClient({ baseUrl: config.llm.baseUrl, apiKey: config.llm.apiKey, model: config.llm.model, fetch: trustedFetch })
      : undefined,
    catalog,
    plugins,
    telemetry: createTelemetry(),
    startedAt: now(),
    now,
    dispatch,
  };
  for (const hook of host.startHooks) await hook(services);
  return services;
}

/** What route mounting needs besides the route: the limiters, and the requests already audited as refused. */
interface MountContext {
  maxBodyBytes: number;
  limits: RateLimits;
  audited: WeakSet<Request>;
}

function auditTrail(action: string, mount: MountContext): MiddlewareHandler<AppEnv> {
  return async function auditTrailMiddleware(c, next) {
    await next();
    if (mount.audited.has(c.req.raw)) return; // onError already wrote the refusal
    const entry: AuditEntry = {
      at: new Date(c.var.services.now()).toISOString(),
      request_id: c.var.requestId,
      principal: c.var.principal?.id,
      client: mount.limits.clientKey(c.req.raw, c.env),
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      action,
      outcome: c.res.status < 400 ? 'ok' : 'error',
      status: c.res.status,
    };
    await c.var.services.hooks.emit('audit', entry);
  };
}

/**
 * Builds the service.
 * @param config from `parseConfig`
 * @param plugins bundled plugins first, then the user's, in load order
 * @param capabilities what the runtime offers (file system, network, native SHA3, logger)
 */
export function createApp(config: Config, plugins: Plugin[], capabilities: RuntimeCapabilities = { runtime: { name: 'unknown', version: '' } }, options: CreateAppOptions = {}): AehApp {
  const host = createHost(config, capabilities);
  const loaded = loadPlugins(host, plugins, options);
  host.freeze();
  const userPlugins = new Set(options.userPlugins ?? []);
  const pluginInfo: PluginInfo[] = plugins
    .filter((plugin) => loaded.includes(plugin.name))
    .map((plugin) => ({ name: plugin.name, version: plugin.version, source: userPlugins.has(plugin.name) ? 'user' : 'bundled' }));

  // The app is created below; dispatch is only called after start, when it exists.
  const ready = openServices(host, pluginInfo, async (request) => app.fetch(request));
  ready.catch(() => undefined); // surfaced per request and by the runtime entry
  const app = new Hono<AppEnv>() as AehApp;

  app.use('*', requestId());
  app.use('*', async function servicesMiddleware(c, next) {
    let services: Services;
    try {
      services = await ready;
    } catch (error) {
      throw new Problem('unavailable', { detail: 'the service failed to start; see its log', cause: error });
    }
    c.set('services', services);
    services.telemetry.increment('http.requests');
    await next();
  });

  const mount: MountContext = { maxBodyBytes: config.maxBodyBytes, limits: createRateLimits(config, capabilities), audited: new WeakSet() };
  for (const route of host.routes.list()) mountRoute(app, route, mount);

  app.notFound((c) => new Problem('not_found', { detail: `no route for ${c.req.method} ${new URL(c.req.url).pathname}` }).toResponse(c.var.requestId));
  app.onError((error, c) => {
    const services = c.var.services;
    if (isProblem(error)) {
      if ((error.status === 401 || error.status === 403 || error.code === 'ssrf_blocked') && services) {
        services.telemetry.increment('http.refused');
        mount.audited.add(c.req.raw);
        void services.hooks.emit('audit', {
          at: new Date(services.now()).toISOString(),
          request_id: c.var.requestId,
          principal: c.var.principal?.id,
          client: mount.limits.clientKey(c.req.raw, c.env),
          method: c.req.method,
          path: new URL(c.req.url).pathname,
          action: 'request',
          outcome: 'refused',
          status: error.status,
          detail: error.code,
        });
      }
      if (error.status >= 500 && error.cause) services?.logger.warn(error.detail, { request_id: c.var.requestId, cause: String((error.cause as Error)?.message ?? error.cause) });
      return error.toResponse(c.var.requestId);
    }
    (services?.logger ?? consoleLogger()).error('unhandled error', {
      request_id: c.var.requestId,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    services?.telemetry.increment('http.errors');
    return new Problem('internal', { detail: `an internal error occurred; quote request id ${c.var.requestId}` }).toResponse(c.var.requestId);
  });

  app.ready = ready;
  app.host = host;
  app.close = async () => {
    const services = await ready.catch(() => undefined);
    if (!services) return;
    for (const hook of [...host.stopHooks].reverse()) await hook(services);
    await services.store.close();
  };
  return app;
}

function mountRoute(app: Hono<AppEnv>, route: RouteDefinition, mount: MountContext): void {
  const chain: MiddlewareHandler<AppEnv>[] = [];
  const rateClass = route.rateClass ?? (route.permission ? 'protected' : 'public');
  if (route.permission) chain.push(limitAuthFailures(mount.limits), authorize(route.permission));
  chain.push(limitRequests(mount.limits, rateClass));
  // Every authenticated mutation is audited, named or not; the trail wraps the body parser so that malformed
  // attempts (400/413/415) are on record too.
  const action = route.audit ?? (route.permission && route.method !== 'GET' ? `${route.method} ${route.path}` : undefined);
  if (action) chain.push(auditTrail(action, mount));
  if (route.body) chain.push(jsonBody(route.body, mount.maxBodyBytes));
  app.on([route.method], [route.path], ...chain, (c) => route.handler(c));
}
