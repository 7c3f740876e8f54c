/**
 * The frame both τ-bench shims share: the state is the domain's database as τ-bench publishes it, given
 * inline as `initial_state.<shim>` or, when a scenario gives none, loaded once from the operator's τ-bench data
 * directory (`AEH_TAU_DATA_DIR`, read by the shims plugin through the runtime's file access).
 */
import { defineShim, type Shim, type ShimAction, type ShimOutcome } from '../../../core/shim.ts';
import type { JsonObject } from './shared.ts';

/** The τ-bench domains bundled as shims. */
export type TauDomain = 'retail' | 'airline';

/** Gives a domain's database from the configured data directory (or throws saying why it cannot). */
export type DbLoader = (domain: TauDomain) => Promise<JsonObject>;

interface TauShimDefinition<S extends JsonObject> {
  name: string;
  domain: TauDomain;
  description: string;
  /** The database's tables (each an object of records by id). */
  tables: string[];
  actions: ShimAction[];
  load?: DbLoader;
  run(action: string, params: Record<string, unknown>, db: S): ShimOutcome<S>;
}

/** A τ-bench domain shim: its database inline or from the data directory, its tools run by `run`. */
export function defineTauShim<S extends JsonObject>(definition: TauShimDefinition<S>): Shim<S> {
  const { name, domain, tables, load } = definition;
  return defineShim<S>({
    name,
    description: definition.description,
    actions: definition.actions,
    initialStateSchema: {
      type: 'object',
      description: `τ-bench's ${domain} database (its db.json); absent: the one in the τ-bench data directory (AEH_TAU_DATA_DIR).`,
      required: tables,
      properties: Object.fromEntries(tables.map((table) => [table, { type: 'object', additionalProperties: { type: 'object' } }])),
      additionalProperties: false,
    },
    async initialState(seed) {
      // Never copied: a call returns a new database and shares what it did not change.
      if (seed !== undefined) return seed as S;
      if (!load) throw new Error(`${name}: the scenario gives no initial_state.${name} and no τ-bench data directory is configured (AEH_TAU_DATA_DIR)`);
      return (await load(domain)) as S;
    },
    call: (action, params, state) => definition.run(action, params, state),
  });
}
