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
import type { PluginHost } from './host.ts';

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
  /** pluggable.js overrides of host members (`AuthManager` class methods). */
  overrides?: Record<string, unknown>;
}

/** Options for `loadPlugins`. */
export interface LoadPluginsOptions {
  /** Only these plugin names are initialised (empty: all). */
  allow?: string[];
  /** These plugin names are never initialised. */
  deny?: string[];
}

/** Raised when a plugin cannot be loaded; names the plugin and the cause. */
export class PluginError extends Error {
  constructor(readonly plugin: string, message: string, options?: { cause?: unknown }) {
    super(`plugin "${plugin}": ${message}`, options);
    this.name = 'PluginError';
  }
}

const PLUGIN_NAME = /^[a-z0-9@][a-z0-9@/._-]{0,127}$/i;

/** Checks a plugin definition and returns it frozen. */
export function definePlugin(plugin: Plugin): Plugin {
  if (!plugin || typeof plugin !== 'object') throw new Error('a plugin must be an object');
  if (!PLUGIN_NAME.test(plugin.name ?? '')) throw new Error(`plugin name "${plugin.name}" is not valid`);
  if (plugin.setup !== undefined && typeof plugin.setup !== 'function') throw new PluginError(plugin.name, 'setup must be a function');
  if (plugin.enabled !== undefined && typeof plugin.enabled !== 'function') throw new PluginError(plugin.name, 'enabled must be a function');
  return Object.freeze({ ...plugin });
}

function checkGraph(plugins: Plugin[]): void {
  const byName = new Map<string, Plugin>();
  for (const plugin of plugins) {
    if (!plugin || typeof plugin !== 'object' || typeof plugin.name !== 'string') {
      throw new Error(`a plugin must be an object with a name, got ${JSON.stringify(plugin)?.slice(0, 80)}`);
    }
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

/**
 * Initialises plugins into the host in dependency order (registration order otherwise).
 * Returns the names initialised, in order. Throws `PluginError` naming the plugin that failed.
 */
export function loadPlugins(host: PluginHost, plugins: Plugin[], options: LoadPluginsOptions = {}): string[] {
  checkGraph(plugins);
  const plugged = pluggable.enable(host as unknown as object, 'host', 'pluginSocket');
  const socket = plugged.pluginSocket;
  (host as unknown as { strict_plugin_dependencies: boolean }).strict_plugin_dependencies = true;
  let current = '';
  for (const plugin of plugins) {
    socket.registerPlugin(plugin.name, {
      dependencies: plugin.dependencies ? [...plugin.dependencies] : undefined,
      overrides: plugin.overrides ? { ...plugin.overrides } : undefined,
      enabled: () => (plugin.enabled ? plugin.enabled(host) : true),
      initialize() {
        current = plugin.name;
        plugin.setup?.(host);
      },
    });
  }
  try {
    socket.initializePlugins({}, options.allow ?? [], options.deny ?? []);
  } catch (error) {
    const name = current || 'unknown';
    if (error instanceof PluginError) throw error;
    throw new PluginError(name, error instanceof Error ? error.message : String(error), { cause: error });
  }
  return [...socket.initialized_plugins];
}
