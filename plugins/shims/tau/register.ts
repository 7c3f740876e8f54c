/**
 * The τ-bench shims' registration and setting, apart from index.ts, whose task converter (tasks.ts) and gold
 * replays the shims plugin does not need at start (issue 36): the CLI's `bench` imports those from index.ts.
 */
import type { PluginHost } from '../../../core/plugin-host.ts';
import { asText, textSettings } from '../../../core/plugin-settings.ts';
import { tauRetailShim } from './retail.ts';
import { tauAirlineShim } from './airline.ts';
import { tauTelecomShim } from './telecom.ts';
import { tauTelecomUserShim } from './telecom-user.ts';
import { tauDbLoader } from './data.ts';
import type { DbLoader } from './define.ts';

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
