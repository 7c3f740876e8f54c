/**
 * The τ-bench domains as bundled shims (`tau_retail`, `tau_airline`, and telecom's two worlds: the agent's `tau_telecom`
 * and the user's device `tau_telecom_user`), their databases from the scenario or
 * from the operator's τ-bench data directory (`AEH_TAU_DATA_DIR`), and the converter from τ-bench tasks to
 * scenarios (`tauScenario`).
 */
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

export { TAU_SETTINGS, BUNDLED_TAU_SUBDIR, configuredLoader, registerTauShims } from './register.ts';
