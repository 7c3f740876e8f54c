/**
 * The τ-bench domains as bundled shims (`tau_retail`, `tau_airline`), their databases from the scenario or
 * from the operator's τ-bench data directory (`AEH_TAU_DATA_DIR`), and the converter from τ-bench tasks to
 * scenarios (`tauScenario`).
 */
import type { PluginHost } from '../../../core/plugin-host.ts';
import { asText, textSettings } from '../../../core/plugin-settings.ts';
import { tauRetailShim } from './retail.ts';
import { tauAirlineShim } from './airline.ts';
import { tauDbLoader } from './data.ts';
import type { DbLoader } from './define.ts';

export { tauRetailShim } from './retail.ts';
export { tauAirlineShim } from './airline.ts';
export { tauDbLoader, readTauDb, type TauDataDir } from './data.ts';
export { tauScenario, type TauScenarioOptions } from './tasks.ts';
export { dbHash, canonicalDb } from './shared.ts';
export type { TauDomain } from './define.ts';

/** The shims plugin's setting for the τ-bench data directory. */
export const TAU_SETTINGS = textSettings({
  AEH_TAU_DATA_DIR: "τ-bench's data directory (<dir>/retail/db.json, <dir>/airline/db.json, tasks.json, split_tasks.json, policy.md): where tau_retail and tau_airline find their database when a scenario gives no initial_state; relative to PROJECT_ROOT",
});

/** The loader of the configured data directory, or undefined when none is configured or there is no file system. */
export function configuredLoader(host: Pick<PluginHost, 'settings' | 'config' | 'capabilities'>): DbLoader | undefined {
  const dir = asText(host.settings).AEH_TAU_DATA_DIR?.trim();
  const files = host.capabilities.files;
  if (!dir || !files) return undefined;
  return tauDbLoader({ dir: dir.startsWith('/') ? dir : `${host.config.projectRoot}/${dir}`, files });
}

/** Registers both τ-bench shims. */
export function registerTauShims(host: PluginHost): void {
  const load = configuredLoader(host);
  host.shims.register(tauRetailShim(load) as never, 'shims');
  host.shims.register(tauAirlineShim(load) as never, 'shims');
}
