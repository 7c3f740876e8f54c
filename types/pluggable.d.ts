// pluggable.js 3.0.1 ships UMD without types; this declares the part core/plugin.ts uses.
declare module 'pluggable.js' {
  export interface PluggablePlugin {
    __name__?: string;
    dependencies?: string[];
    /** Must be a function: 3.0.1 calls a boolean `false` and crashes. */
    enabled?: (plugged: unknown) => boolean;
    overrides?: Record<string, unknown>;
    initialize?(socket: PluginSocket): void;
  }
  export interface PluginSocket {
    plugins: Record<string, PluggablePlugin>;
    initialized_plugins: string[];
    registerPlugin(name: string, plugin: PluggablePlugin): void;
    initializePlugins(properties?: Record<string, unknown>, whitelist?: string[], blacklist?: string[]): void;
  }
  export function enable<T extends object>(object: T, name?: string, attrname?: string): T & { pluginSocket: PluginSocket };
  const pluggable: { enable: typeof enable };
  export default pluggable;
}
