/** Named shim configurations: stored once by an operator, referred to by name from scenarios. */
import type { FieldError } from '../problems.ts';

/**
 * A named shim configuration kept in storage (`PUT /api/v1/shims/configs/:name`, `shims:manage`): a scenario's
 * `shim_config[<shim>]` may name one instead of spelling it out. `trusted` lets scenarios use the shim through
 * this configuration even when `AEH_ENABLED_SHIMS` does not list it (an operator vetted it).
 */
export interface NamedShimConfig {
  name: string;
  shim: string;
  description?: string;
  config: Record<string, unknown>;
  /** The starting state scenarios get when they give none for this shim. */
  initial_state?: unknown;
  trusted: boolean;
  updated_at: string;
  updated_by?: string;
}

/** Where a named configuration is stored. */
export const shimConfigKey = (name: string) => `shim-configs/${name}.json`;
export const SHIM_CONFIG_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * A scenario with every named configuration it refers to spelled out (config and, where the scenario has
 * none, the initial state), so the plan a run stores is self-contained; plus the shims allowed through trusted
 * configurations and the references that do not resolve.
 */
export async function resolveShimConfigs<S extends { shim_config?: Record<string, unknown>; initial_state?: Record<string, unknown> }>(
  scenario: S,
  read: (key: string) => Promise<NamedShimConfig | null>,
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
    if (initialState[shim] === undefined && stored.initial_state !== undefined) initialState[shim] = stored.initial_state;
    if (stored.trusted) trusted.push(shim);
  }
  return { scenario: { ...scenario, shim_config: shimConfig, ...(Object.keys(initialState).length ? { initial_state: initialState } : {}) }, trusted, errors };
}
