/**
 * The τ-bench domains as bundled shims (`tau_retail`, `tau_airline`, and telecom's two worlds: the agent's `tau_telecom`
 * and the user's device `tau_telecom_user`), their databases from the scenario or
 * from the operator's τ-bench data directory (`AEH_TAU_DATA_DIR`), and the converter from τ-bench tasks to
 * scenarios (`tauScenario`).
 */
import type { PluginHost } from '../../../core/plugin-host.ts';
import { asText, textSettings } from '../../../core/plugin-settings.ts';
import { tauRetailShim } from './retail.ts';
import { tauAirlineShim } from './airline.ts';
import { tauTelecomShim } from './telecom.ts';
import { tauTelecomUserShim } from './telecom-user.ts';
import { tauDbLoader } from './data.ts';
import type { DbLoader } from './define.ts';

export { tauRetailShim } from './retail.ts';
export { tauAirlineShim } from './airline.ts';
export { tauTelecomShim, initializeTelecomDb, TELECOM_ENV_FUNCTIONS, type TelecomDb } from './telecom.ts';
export { tauTelecomUserShim } from './telecom-user.ts';
export { initializeTelecomWorlds, syncTelecom } from './telecom-sync.ts';
export { replayTelecomTask, type TelecomReplay } from './telecom-replay.ts';
export { tauDbLoader, readTauDb, readTauJson, type TauDataDir } from './data.ts';
export { tauScenario, TAU_RULES, type TauScenarioOptions, type TauRewardType } from './tasks.ts';

/** The release the data shipped in catalog/data/tau-bench is (its NOTICE.md says file by file). */
export const BUNDLED_TAU_RELEASE = 'tau2-bench a2c0247, airline database τ-bench v1 59a200c';
export { dbHash, canonicalDb } from './shared.ts';
export type { TauDomain } from './define.ts';

/** The shims plugin's setting for the τ-bench data directory. */
export const TAU_SETTINGS = textSettings({
  AEH_TAU_DATA_DIR: "τ-bench's data directory (<dir>/retail/db.json, <dir>/airline/db.json, tasks.json, split_tasks.json, policy.md): where tau_retail, tau_airline and tau_telecom find their database when a scenario gives no initial_state; relative to PROJECT_ROOT; default the release's data shipped in catalog/data/tau-bench",
});

/** Where the bundled catalog keeps τ-bench's data (tau2-bench's `data/tau2/domains` layout). */
export const BUNDLED_TAU_SUBDIR = 'data/tau-bench/domains';

/**
 * The loader of the configured data directory, else of the data shipped with the package (the runtime's catalog
 * directory), or undefined when there is neither or no file system.
 */
export function configuredLoader(host: Pick<PluginHost, 'settings' | 'config' | 'capabilities'>): DbLoader | undefined {
  const configured = asText(host.settings).AEH_TAU_DATA_DIR?.trim();
  const { files, catalogDir } = host.capabilities;
  const dir = configured ? (configured.startsWith('/') ? configured : `${host.config.projectRoot}/${configured}`) : catalogDir ? `${catalogDir}/${BUNDLED_TAU_SUBDIR}` : undefined;
  if (!dir || !files) return undefined;
  return tauDbLoader({ dir, files });
}

/** Registers the τ-bench shims (telecom: the agent's side and the user's device). */
export function registerTauShims(host: PluginHost): void {
  const load = configuredLoader(host);
  host.shims.register(tauRetailShim(load) as never, 'shims');
  host.shims.register(tauAirlineShim(load) as never, 'shims');
  host.shims.register(tauTelecomShim(load) as never, 'shims');
  host.shims.register(tauTelecomUserShim() as never, 'shims');
}
