/** Named shim configurations: stored once by an operator, referred to by name from scenarios. */
import type { FieldError } from '../problems.ts';

/**
 * A named shim configuration kept in storage (`PUT /api/v1/shims/configs/:name`, `shims:manage`): a scenario's
 * `shim_config[<shim>]` may name one instead of spelling it out. `trusted` (set only by a holder of the
 * SUPERVISOR-only `shims:trust`) lets scenarios use the shim through this configuration, and with its initial
 * state, even when `AEH_ENABLED_SHIMS` does not list it (issue 25 item 5).
 */
export interface NamedShimConfig {
  name: string;
  shim: string;
  description?: string;
  config: Record<string, unknown>;
  /** The starting state scenarios get when they give none for this shim. */
  initial_state?: unknown;
  trusted: boolean;
  /** Who trusted it (a holder of `shims:trust`); absent in configurations stored by earlier versions. */
  trusted_by?: string;
  updated_at: string;
  updated_by?: string;
}

/**
 * True when a configuration's `trusted` holds: set by a holder of `shims:trust`, or, for configurations of
 * versions that let any `shims:manage` holder trust, by the static key.
 */
export function trustHolds(stored: NamedShimConfig): boolean {
  return stored.trusted && (stored.trusted_by !== undefined || stored.updated_by === 'static-key');
}

/** Where a named configuration is stored. */
export const shimConfigKey = (name: string) => `shim-configs/${name}.json`;
export const SHIM_CONFIG_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * A scenario with every named configuration it refers to spelled out (config and, where the scenario has
 * none, the initial state), so the plan a run stores is self-contained; plus the shims allowed through trusted
 * configurations and the references that do not resolve. A shim that `allowed` (`AEH_ENABLED_SHIMS`) does not
 * list runs only through a trusted configuration and only from that configuration's state: a scenario's own
 * `initial_state` for it is refused.
 */
export async function resolveShimConfigs<S extends { shim_config?: Record<string, unknown>; initial_state?: Record<string, unknown> }>(
  scenario: S,
  read: (key: string) => Promise<NamedShimConfig | null>,
  allowed?: readonly string[],
): Promise<{ scenario: S; trusted: string[]; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  const trusted: string[] = [];
  const references = Object.entries(scenario.shim_config ?? {}).filter(([, value]) => typeof value === 'string') as Array<[string, string]>;
  if (references.length === 0) return { scenario, trusted, errors };
  const shimConfig: Record<string, unknown> = { ...scenario.shim_config };
  const initialState: Record<string, unknown> = { ...scenario.initial_state };
  for (const [shim, name] of references) {
    const stored = SHIM_CONFIG_NAME.test(name) ? await read(shimConfigKey(name)) : null;
    if (!stored) {
      errors.push({ path: `/shim_config/${shim}`, message: `no shim configuration named "${name}" (GET /api/v1/shims/configs lists them)` });
      continue;
    }
    if (stored.shim !== shim) {
      errors.push({ path: `/shim_config/${shim}`, message: `configuration "${name}" is for shim "${stored.shim}", not "${shim}"` });
      continue;
    }
    shimConfig[shim] = stored.config;
    const onlyThroughTrust = allowed !== undefined && !allowed.includes(shim);
    if (onlyThroughTrust && stored.trusted && !trustHolds(stored)) {
      errors.push({ path: `/shim_config/${shim}`, message: `configuration "${name}" was marked trusted before trusting needed shims:trust; a SUPERVISOR stores it again to trust it` });
      continue;
    }
    if (onlyThroughTrust && trustHolds(stored) && initialState[shim] !== undefined) {
      errors.push({ path: `/initial_state/${shim}`, message: `shim "${shim}" is allowed here only through the trusted configuration "${name}", which sets its initial state; remove this one` });
      continue;
    }
    if (initialState[shim] === undefined && stored.initial_state !== undefined) initialState[shim] = stored.initial_state;
    if (trustHolds(stored)) trusted.push(shim);
  }
  return { scenario: { ...scenario, shim_config: shimConfig, ...(Object.keys(initialState).length ? { initial_state: initialState } : {}) }, trusted, errors };
}
