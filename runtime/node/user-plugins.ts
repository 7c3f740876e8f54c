/**
 * Loads users' plugins without a fork: `aeh.config.js` / `.mjs` / `.ts` in `PROJECT_ROOT` (default export
 * `{ plugins: [...], settings: { <plugin name>: {...} } }`) and `AEH_PLUGINS` (comma list of module paths or package names, each exporting a
 * plugin, an array of plugins, or a function returning either). A broken plugin fails the start with its
 * name and error.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from '../../core/plugin.ts';
import type { RuntimeCapabilities } from '../../core/capabilities.ts';

const CONFIG_FILES = ['aeh.config.ts', 'aeh.config.mts', 'aeh.config.js', 'aeh.config.mjs'];

function pluginsOf(exported: unknown, source: string): Plugin[] {
  let value = (exported as { default?: unknown })?.default ?? exported;
  // tsx wraps CommonJS-looking modules one level deeper.
  if ((value as { default?: unknown })?.default && !(value as Plugin).name) value = (value as { default: unknown }).default;
  if (typeof value === 'function') value = (value as () => unknown)();
  if (value && typeof value === 'object' && Array.isArray((value as { plugins?: unknown }).plugins)) value = (value as { plugins: unknown[] }).plugins;
  const list = Array.isArray(value) ? value : [value];
  for (const plugin of list) {
    if (!plugin || typeof plugin !== 'object' || typeof (plugin as Plugin).name !== 'string') {
      throw new Error(`${source} does not export a plugin (an object with a name), a list of plugins or { plugins }`);
    }
  }
  return list as Plugin[];
}

/** Plugin settings a config file exports as `settings`, by plugin name (they win over the environment). */
function settingsOf(exported: unknown, source: string): Record<string, Record<string, unknown>> {
  const value = (exported as { default?: unknown })?.default ?? exported;
  const settings = value && typeof value === 'object' && !Array.isArray(value) ? (value as { settings?: unknown }).settings : undefined;
  if (settings === undefined) return {};
  const valid = settings && typeof settings === 'object' && !Array.isArray(settings) && Object.values(settings).every((entry) => entry && typeof entry === 'object' && !Array.isArray(entry));
  if (!valid) throw new Error(`${source}: settings must be an object of plugin name → { setting: value }`);
  return settings as Record<string, Record<string, unknown>>;
}

export interface UserPlugins {
  plugins: Plugin[];
  /** `settings` of the config file, by plugin name. */
  settings: Record<string, Record<string, unknown>>;
}

/** Finds and imports the user's plugins and their settings; throws naming the module that failed. */
export async function loadUserPlugins(projectRoot: string, specifiers: string[], capabilities: RuntimeCapabilities): Promise<UserPlugins> {
  const modules: string[] = [];
  const configFile = CONFIG_FILES.map((name) => join(projectRoot, name)).find((path) => existsSync(path));
  if (configFile) modules.push(configFile);
  modules.push(...specifiers);
  const plugins: Plugin[] = [];
  let settings: Record<string, Record<string, unknown>> = {};
  for (const specifier of modules) {
    let exported: unknown;
    try {
      exported = await capabilities.importModule!(specifier);
    } catch (error) {
      throw new Error(`could not load plugin module "${specifier}": ${(error as Error).message}`, { cause: error });
    }
    plugins.push(...pluginsOf(exported, specifier));
    if (specifier === configFile) settings = settingsOf(exported, specifier);
  }
  return { plugins, settings };
}
