/**
 * The plugin system: the only file that touches pluggable.js.
 *
 * A plugin is a plain named object. `setup(host)` registers what it offers (metrics, routes, signers, ...)
 * synchronously; async work belongs in `host.onStart`. `overrides` are pluggable.js overrides of the host:
 * `overrides: { AuthManager: { permissionsFromClaims(claims) { const base = this.__super__.permissionsFromClaims(claims); ... } } }`
 * extends the AuthManager class of this app, calling the original through `__super__` — the spec's "extending
 * the AuthManager class through the plugin system".
 *
 * pluggable.js 3.0.1 (2021) quirks handled here: it initialises synchronously; a boolean `enabled: false`
 * crashes it (we always pass a function); its dependency check is one level deep and only warns unless strict
 * (we check names, dependencies and cycles ourselves first, with clear messages); it mutates the plugin objects
 * it receives (we hand it copies, so a module's plugin can be loaded into many apps).
 */
import pluggable from 'pluggable.js';
import type { PluginHost, StartHook } from './plugin-host.ts';
import type { JsonSchema } from './validate.ts';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Metric } from './metric.ts';
import { checkFailureCode, orphanCodes, type FailureCode } from './failure-codes.ts';
import { readSettings } from './plugin-settings.ts';
import { configEnvironment } from './config.ts';
import { composeClaimMappers, containSuper, type ClaimsMapper } from './plugin-overrides.ts';

export interface Plugin {
  /** Unique name; duplicates fail the start. */
  name: string;
  version?: string;
  /** Plugins initialised before this one; a missing one fails the start. */
  dependencies?: string[];
  /** Skip the plugin when this returns false (for example when its configuration is absent). */
  enabled?(host: PluginHost): boolean;
  /** Registers the plugin's extensions. Synchronous. */
  setup?(host: PluginHost): void;
  /** pluggable.js overrides of host members (`AuthManager` class methods). Prefer `mapClaims`. */
  overrides?: Record<string, unknown>;
  /**
   * JSON Schema (an object) of the plugin's settings. Each property is read from the config file's
   * `settings[<plugin name>]`, else from the environment variable of the same name; the checked result is
   * `host.settings`. A bad value stops the start naming the setting.
   */
  settings?: JsonSchema;
  /** Failure codes this plugin emits beyond the bundled taxonomy (`GET /api/v1/taxonomy` lists them). */
  failureCodes?: readonly FailureCode[];
  /** Metrics to register (the same as `host.metrics.register` in `setup`). */
  metrics?: readonly Metric[];
  /**
   * Maps identity-provider claims to permissions, around the mapping loaded before it:
   * `mapClaims: (claims, next, { permissionsOfRole }) => [...next(claims), ...extra]`.
   */
  mapClaims?: ClaimsMapper;
}

/** Options for `loadPlugins`. */
export interface LoadPluginsOptions {
  /** Only these plugin names are initialised (empty: all). */
  allow?: string[];
  /** These plugin names are never initialised. */
  deny?: string[];
  /** Settings per plugin name, from the config file's `settings` (they win over the environment). */
  settings?: Readonly<Record<string, Record<string, unknown>>>;
}

/** Raised when a plugin cannot be loaded; names the plugin and the cause. */
export class PluginError extends Error {
  constructor(readonly plugin: string, message: string, options?: { cause?: unknown }) {
    super(`plugin "${plugin}": ${message}`, options);
    this.name = 'PluginError';
  }
}

const PLUGIN_NAME = /^[a-z0-9@][a-z0-9@/._-]{0,127}$/i;

/** `this` inside a method override: the instance, plus `__super__` holding the methods it replaced. */
export type OverrideThis<T> = T & { __super__: T };

/** Throws a `PluginError` when a definition is not a usable plugin. */
function checkDefinition(plugin: Plugin): void {
  if (!plugin || typeof plugin !== 'object' || typeof plugin.name !== 'string') {
    throw new Error(`a plugin must be an object with a name, got ${JSON.stringify(plugin)?.slice(0, 80)}`);
  }
  if (!PLUGIN_NAME.test(plugin.name)) throw new PluginError(plugin.name, 'the name must be 1-128 letters, digits or @/._-');
  if (plugin.setup !== undefined && typeof plugin.setup !== 'function') throw new PluginError(plugin.name, 'setup must be a function');
  // pluggable.js 3.0.1 crashes on a boolean `enabled`, so only functions are accepted.
  if (plugin.enabled !== undefined && typeof plugin.enabled !== 'function') throw new PluginError(plugin.name, 'enabled must be a function');
  if (plugin.dependencies !== undefined && (!Array.isArray(plugin.dependencies) || plugin.dependencies.some((name) => typeof name !== 'string'))) {
    throw new PluginError(plugin.name, 'dependencies must be an array of plugin names');
  }
  if (plugin.overrides !== undefined && (typeof plugin.overrides !== 'object' || plugin.overrides === null)) {
    throw new PluginError(plugin.name, 'overrides must be an object');
  }
  if (plugin.settings !== undefined && (typeof plugin.settings !== 'object' || plugin.settings === null || plugin.settings.type !== 'object')) {
    throw new PluginError(plugin.name, 'settings must be a JSON Schema of type "object"');
  }
  if (plugin.mapClaims !== undefined && typeof plugin.mapClaims !== 'function') throw new PluginError(plugin.name, 'mapClaims must be a function (claims, next) => permissions');
  if (plugin.metrics !== undefined && !Array.isArray(plugin.metrics)) throw new PluginError(plugin.name, 'metrics must be an array of defineMetric(...) results');
  try {
    for (const entry of plugin.failureCodes ?? []) checkFailureCode(entry);
  } catch (error) {
    throw new PluginError(plugin.name, (error as Error).message);
  }
}

/** A plugin's `host.settings`, typed from its settings schema (json-schema-to-ts). */
export type SettingsOf<S> = [S] extends [JSONSchema] ? FromSchema<S> : Readonly<Record<string, unknown>>;

/** What `definePlugin` takes: a plugin whose `setup` and `enabled` see `host.settings` typed from `settings`. */
export interface PluginDefinition<S = undefined> extends Omit<Plugin, 'settings' | 'setup' | 'enabled'> {
  settings?: S;
  enabled?(host: PluginHost & { settings: SettingsOf<S> }): boolean;
  setup?(host: PluginHost & { settings: SettingsOf<S> }): void;
}

/** Checks a plugin definition and returns it frozen. */
export function definePlugin<const S = undefined>(plugin: PluginDefinition<S>): Plugin {
  checkDefinition(plugin as Plugin);
  return Object.freeze({ ...plugin }) as Plugin;
}

function checkGraph(plugins: Plugin[]): void {
  const byName = new Map<string, Plugin>();
  for (const plugin of plugins) {
    checkDefinition(plugin);
    if (byName.has(plugin.name)) throw new PluginError(plugin.name, 'the name is used by two plugins; rename one');
    byName.set(plugin.name, plugin);
  }
  for (const plugin of plugins) {
    for (const dependency of plugin.dependencies ?? []) {
      if (!byName.has(dependency)) throw new PluginError(plugin.name, `depends on "${dependency}", which is not loaded`);
    }
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new PluginError(name, `circular dependency: ${[...path, name].join(' -> ')}`);
    state.set(name, 'visiting');
    for (const dependency of byName.get(name)!.dependencies ?? []) visit(dependency, [...path, name]);
    state.set(name, 'done');
  };
  for (const plugin of plugins) visit(plugin.name, []);
}

/** pluggable.js only warns (or throws a bare string) for overrides of unknown members; we name the fix. */
function checkOverrides(host: PluginHost, plugin: Plugin): void {
  for (const [key, override] of Object.entries(plugin.overrides ?? {})) {
    const target = (host as unknown as Record<string, unknown>)[key];
    if (target === undefined) throw new PluginError(plugin.name, `overrides "${key}", which the host does not have`);
    if (typeof override === 'object' && override !== null && typeof target !== 'function') {
      throw new PluginError(plugin.name, `overrides "${key}" with methods, but it is not a class`);
    }
  }
}

function named(plugin: string, what: string, error: unknown): PluginError {
  if (error instanceof PluginError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new PluginError(plugin, `${what}: ${message}`, { cause: error });
}

/** A start or ready hook whose failure names its plugin. */
function namedHook(plugin: string, what: string, hook: StartHook): StartHook {
  return async function namedStartHook(services) {
    try {
      await hook(services);
    } catch (error) {
      throw named(plugin, `${what} failed`, error);
    }
  };
}

/** Registry members of the host: what a scoped host wraps so registrations record their plugin. */
const REGISTRIES = ['metrics', 'mutators', 'attacks', 'shims', 'agents', 'signers', 'storageDrivers', 'jobs', 'doctorChecks', 'routes', 'authProviders', 'schemas', 'queues', 'scenarioFormats', 'failureCodes', 'providers'] as const;

/**
 * The host as one plugin sees it: registrations record the plugin as their owner without it repeating its
 * name, `settings` holds its own settings only, and a start or ready hook that fails names the plugin.
 */
function scopedHost(host: PluginHost, plugin: string, settings: Readonly<Record<string, unknown>>): PluginHost {
  const properties: PropertyDescriptorMap = {
    settings: { value: settings },
    provide: { value: (slot: never, factory: never, owner?: string) => host.provide(slot, factory, owner ?? plugin) },
    onStart: { value: (hook: StartHook) => host.onStart(namedHook(plugin, 'start hook', hook)) },
    onReady: { value: (hook: StartHook) => host.onReady(namedHook(plugin, 'ready hook', hook)) },
  };
  for (const key of REGISTRIES) {
    const registry = host[key] as PluginHost['metrics'];
    properties[key] = { value: Object.freeze({ ...registry, register: (item: never, owner?: string) => registry.register(item, owner ?? plugin) }) };
  }
  return Object.create(host, properties) as PluginHost;
}

/** Registers what a plugin declares as data (failure codes, metrics) before its `setup` runs. */
function registerDeclared(scoped: PluginHost, plugin: Plugin): void {
  for (const entry of plugin.failureCodes ?? []) scoped.failureCodes.register(entry);
  for (const metric of plugin.metrics ?? []) scoped.metrics.register(metric);
}

/**
 * Initialises plugins into the host in dependency order (registration order otherwise).
 * Returns the names initialised, in order. Throws `PluginError` naming the plugin that failed.
 */
export function loadPlugins(host: PluginHost, plugins: Plugin[], options: LoadPluginsOptions = {}): string[] {
  checkGraph(plugins);
  const plugged = pluggable.enable(host as unknown as object, 'host', 'pluginSocket');
  const socket = plugged.pluginSocket;
  (host as unknown as { strict_plugin_dependencies: boolean }).strict_plugin_dependencies = true;
  const scoped = new Map<string, PluginHost>();
  let current = '';
  for (const plugin of plugins) {
    socket.registerPlugin(plugin.name, {
      dependencies: plugin.dependencies ? [...plugin.dependencies] : undefined,
      overrides: plugin.overrides ? containSuper(plugin.overrides) : undefined,
      enabled: () => {
        current = plugin.name;
        let view: PluginHost;
        try {
          const settings = plugin.settings ? readSettings(plugin.settings, options.settings?.[plugin.name], configEnvironment(host.config)) : Object.freeze({});
          view = scopedHost(host, plugin.name, settings);
          if (!(plugin.enabled ? plugin.enabled(view) : true)) return false;
        } catch (error) {
          throw named(plugin.name, plugin.settings ? 'could not be configured' : 'enabled() failed', error);
        }
        checkOverrides(host, plugin);
        scoped.set(plugin.name, view);
        return true;
      },
      initialize() {
        current = plugin.name;
        try {
          registerDeclared(scoped.get(plugin.name)!, plugin);
          plugin.setup?.(scoped.get(plugin.name)!);
        } catch (error) {
          throw named(plugin.name, 'setup failed', error);
        }
      },
    });
  }
  try {
    socket.initializePlugins({}, options.allow ?? [], options.deny ?? []);
  } catch (error) {
    throw named(current || 'unknown', 'could not be initialised', error);
  }
  const initialized: string[] = [...socket.initialized_plugins];
  // pluggable.js silently skips a dependency that is denied or disabled and initialises the dependant anyway.
  for (const name of initialized) {
    const plugin = plugins.find((candidate) => candidate.name === name)!;
    const absent = (plugin.dependencies ?? []).filter((dependency) => !initialized.includes(dependency));
    if (absent.length) throw new PluginError(name, `depends on ${absent.map((d) => `"${d}"`).join(', ')}, which is disabled or denied`);
  }
  const orphans = orphanCodes(host.failureCodes.list());
  if (orphans.length) throw new PluginError(host.failureCodes.ownerOf(orphans[0].split(' ')[0]) ?? 'unknown', orphans[0]);
  const mappers = initialized.map((name) => plugins.find((candidate) => candidate.name === name)!).filter((plugin) => plugin.mapClaims);
  if (mappers.length) host.AuthManager = composeClaimMappers(host.AuthManager, mappers.map((plugin) => ({ plugin: plugin.name, map: plugin.mapClaims! })));
  return initialized;
}
