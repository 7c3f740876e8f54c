/**
 * `createApp(config, plugins, capabilities)`: the whole service as one web-standard `fetch` handler (hono).
 * Loads the plugins into a fresh host, then, lazily on the first request (or `app.ready`), opens storage and
 * runs start hooks. Runtime entries only build the config and capabilities and serve `app.fetch`.
 */
import { Hono } from 'hono';
import { createStaticRouteCache } from './static-route-cache.ts';
import type { Config } from './config.ts';
import type { RuntimeCapabilities } from './capabilities.ts';
import { consoleLogger } from './capabilities.ts';
import { createHost, type HostInternals } from './plugin-host.ts';
import { loadPlugins, type LoadPluginsOptions, type Plugin } from './plugin.ts';
import { Problem } from './problems.ts';
import type { AppEnv } from './routes.ts';
import type { Hooks, PluginInfo, ServiceSlots, Services, SlotName } from './services.ts';
import type { HookEvents } from './hooks.ts';
import { createTelemetry } from './telemetry.ts';
import { createGuardedFetch } from './guards/ssrf.ts';
import { redactingLogger, redactUrl } from './guards/redact.ts';
import { createRateLimits } from './guards/rate-limiter.ts';
import { createPipeline, errorResponse, routeHandler } from './pipeline/route.ts';
import { requestIdFor } from './pipeline/request-id.ts';

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

async function openServices(host: HostInternals, plugins: PluginInfo[], { dispatch, dispatchAs }: Pick<Services, 'dispatch' | 'dispatchAs'>): Promise<Services> {
  const { config, capabilities } = host;
  const driver = host.storageDrivers.list().find((candidate) => candidate.accepts(config.storage));
  if (!driver) {
    const shown = config.storage.includes('@') ? redactUrl(config.storage) : config.storage;
    throw new Error(`AEH_STORAGE must be a value a loaded storage driver accepts; none accepts "${shown}" (loaded drivers: ${host.storageDrivers.names().join(', ') || 'none'}). A storage of your own is a plugin that registers a driver with host.storageDrivers (docs/plugins.md)`);
  }
  const store = await driver.create(config);
  const trustedFetch = capabilities.fetch ?? globalThis.fetch.bind(globalThis);
  const auth = new host.AuthManager({ allowQueryKey: config.allowQueryKey });
  for (const provider of host.authProviders.list()) auth.addProvider(provider);
  const now = capabilities.now ?? Date.now;
  // Every log line passes the redactor: no `apiKey` query value, bearer token or configured secret gets out.
  const logger = redactingLogger(capabilities.logger ?? consoleLogger(), [config.apiKey, config.llm.apiKey]);
  const slots = new Map<SlotName, unknown>();
  const services: Services = {
    config,
    store,
    logger,
    capabilities,
    metrics: host.metrics,
    shims: host.shims,
    mutators: host.mutators,
    attacks: host.attacks,
    agents: host.agents,
    signers: host.signers,
    scenarioFormats: host.scenarioFormats,
    failureCodes: host.failureCodes,
    jobs: host.jobs,
    doctorChecks: host.doctorChecks,
    auth,
    hooks: createHooks(host, () => services),
    fetch: createGuardedFetch({ net: capabilities.net, allowHosts: config.allowHosts, servicePort: config.port, serviceHost: config.host, fallbackFetch: trustedFetch }),
    trustedFetch,
    use<S extends SlotName>(slot: S) {
      if (!slots.has(slot)) throw new Error(`no loaded plugin provides the "${slot}" service (loaded: ${plugins.map((p) => p.name).join(', ')}); a plugin that uses it declares the provider in its dependencies`);
      return slots.get(slot) as ServiceSlots[S];
    },
    find: <S extends SlotName>(slot: S) => slots.get(slot) as ServiceSlots[S] | undefined,
    plugins,
    telemetry: createTelemetry(),
    startedAt: now(),
    now,
    dispatch,
    dispatchAs,
  };
  for (const provider of host.providers.list()) slots.set(provider.slot, await provider.create(services));
  for (const hook of host.startHooks) await hook(services);
  for (const hook of host.readyHooks) await hook(services);
  return services;
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
  const ready = openServices(host, pluginInfo, {
    dispatch: async (request) => app.fetch(request),
    async dispatchAs(request, principal) {
      pipeline.delegated.set(request, principal);
      return app.fetch(request);
    },
  });
  ready.catch(() => undefined); // surfaced per request and by the runtime entry
  const app = new Hono<AppEnv>({ router: createStaticRouteCache() }) as AehApp;

  const pipeline = createPipeline(ready, createRateLimits(config, capabilities), config.maxBodyBytes);
  const mounted = new Map<string, string>();
  for (const route of host.routes.list()) {
    for (const path of [route.path, ...(route.aliases ?? [])]) {
      const key = `${route.method} ${path}`;
      // The registry refuses two routes with one path; an alias must not take another route's path either.
      if (mounted.has(key)) throw new Error(`route ${key} is served twice (by ${mounted.get(key)} and ${host.routes.ownerOf(`${route.method} ${route.path}`) ?? 'the core'})`);
      mounted.set(key, host.routes.ownerOf(`${route.method} ${route.path}`) ?? 'the core');
    }
    app.on([route.method], [route.path, ...(route.aliases ?? [])], routeHandler(route, pipeline));
  }

  app.notFound((c) => {
    pipeline.started()?.telemetry.increment('http.requests');
    return new Problem('not_found', { detail: `no route for ${c.req.method} ${new URL(c.req.url).pathname}` }).toResponse(requestIdFor(c.req.raw));
  });
  // Route handlers answer their own errors; this catches what a runtime or hono itself throws.
  app.onError((error, c) => errorResponse(error, c, pipeline));

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
