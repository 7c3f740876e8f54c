/**
 * Loads users' plugins without a fork: `aeh.config.js` / `.mjs` / `.ts` in `PROJECT_ROOT` (default export
 * `{ plugins: [...] }`) and `AEH_PLUGINS` (comma list of module paths or package names, each exporting a
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

/** Finds and imports the user's plugins; throws naming the module that failed. */
export async function loadUserPlugins(projectRoot: string, specifiers: string[], capabilities: RuntimeCapabilities): Promise<Plugin[]> {
  const modules: string[] = [];
  const configFile = CONFIG_FILES.map((name) => join(projectRoot, name)).find((path) => existsSync(path));
  if (configFile) modules.push(configFile);
  modules.push(...specifiers);
  const plugins: Plugin[] = [];
  for (const specifier of modules) {
    let exported: unknown;
    try {
      exported = await capabilities.importModule!(specifier);
    } catch (error) {
      throw new Error(`could not load plugin module "${specifier}": ${(error as Error).message}`, { cause: error });
    }
    plugins.push(...pluginsOf(exported, specifier));
  }
  return plugins;
}
