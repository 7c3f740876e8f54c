/**
 * A plugin host for conformance tests: your plugins loaded the way the service loads them (`setup(host)` in
 * order, dependencies checked), without opening storage or serving anything. Take what a plugin registered
 * from its registry: `pluginHost([myPlugin]).signers.get('team-hsm')`.
 */
import { parseConfig } from '../core/config.ts';
import type { RuntimeCapabilities } from '../core/capabilities.ts';
import { createHost } from '../core/plugin-host.ts';
import type { PluginHost } from '../core/plugin-host.ts';
import { loadPlugins, type Plugin } from '../core/plugin.ts';

/** Options of `pluginHost`. */
export interface PluginHostOptions {
  /** The environment the configuration is parsed from (`DASHBOARD_API_KEY`, a plugin's own variables). */
  env?: Record<string, string | undefined>;
  /** What the runtime offers (a `fetch` for a key server, files); default: nothing but a name. */
  capabilities?: RuntimeCapabilities;
}

/** Loads `plugins` into a fresh host and returns it; throws like a failed start when one cannot load. */
export function pluginHost(plugins: Plugin[], { env = {}, capabilities = { runtime: { name: 'conformance', version: '0' } } }: PluginHostOptions = {}): PluginHost {
  const host = createHost(parseConfig(env), capabilities);
  loadPlugins(host, plugins);
  return host;
}
