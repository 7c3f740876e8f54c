/**
 * The frame the τ-bench shims share: the database as τ-bench publishes it, given inline as
 * `initial_state.<shim>` or, when a scenario gives none, loaded once from the operator's τ-bench data directory
 * (`AEH_TAU_DATA_DIR`, read by the shims plugin through the runtime's file access). The state holds its big
 * tables as arrays of records (`table` in shared.ts: a write copies references, not a 1,000-key object); the view,
 * which assertions, the expected-world comparison and `world.json` see, is τ-bench's keyed database again.
 */
import { defineShim, type Json, type Shim, type ShimAction, type ShimOutcome } from '../../../core/shim.ts';
import type { JsonSchema } from '../../../core/validate.ts';
import type { JsonObject, Keyed, Table } from './shared.ts';
import { pointerSegment, type PatchOperation } from '../../../core/domain/state-diff.ts';

/** The τ-bench domains bundled as shims. */
export type TauDomain = 'retail' | 'airline' | 'telecom';

/** Gives a domain's database from the configured data directory (or throws saying why it cannot). */
export type DbLoader = (domain: TauDomain) => Promise<JsonObject>;

export interface TauShimDefinition<S extends JsonObject> {
  name: string;
  domain: TauDomain;
  description: string;
  /** The database's tables, by name, each with its id field. */
  tables: Record<string, Table<JsonObject>>;
  actions: ShimAction[];
  load?: DbLoader;
  /** Named predicates over the database that a task's `world_checks` assert (τ²-bench's env assertions). */
  checks?: Record<string, (db: S, params: Record<string, unknown>) => boolean>;
  /**
   * Runs a task's initialization actions on the database: a seed of `{ initialization_actions }` (without the
   * tables) is then the domain's database with them applied, so a task ships its actions, not a copy of the database.
   */
  initialize?(db: S, calls: ReadonlyArray<{ env_type: string; func_name: string; arguments?: Record<string, unknown> }>): S;
  run(action: string, params: Record<string, unknown>, db: S): ShimOutcome<S>;
}

/** A τ-bench domain shim: its database inline or from the data directory, its tools run by `run`. */
export function defineTauShim<S extends JsonObject>(definition: TauShimDefinition<S>): Shim<S> {
  const { name, domain, tables, load, initialize } = definition;
  const names = Object.keys(tables);
  // Both directions once per object: a run's tasks share one initial state, and a loaded database is frozen.
  const states = new WeakMap<object, S>();
  const views = new WeakMap<object, Json>();
  const toState = (db: JsonObject): S => {
    let state = states.get(db);
    if (!state) {
      state = Object.fromEntries(names.map((table) => [table, tables[table].fromKeyed(db[table] as Keyed | JsonObject[], `initial_state.${name}.${table}`)])) as S;
      states.set(db, state);
      views.set(state, db);
    }
    return state;
  };
  const loaded = async () => {
    if (!load) throw new Error(`${name}: the scenario gives no initial_state.${name} and no τ-bench data directory is configured (AEH_TAU_DATA_DIR)`);
    return toState(await load(domain));
  };
  return defineShim<S>({
    name,
    description: definition.description,
    actions: definition.actions,
    initialStateSchema: initialStateSchema(definition),
    async initialState(seed) {
      const calls = initialize && seed !== null && typeof seed === 'object' && 'initialization_actions' in seed ? (seed as { initialization_actions: Parameters<typeof initialize>[1] }).initialization_actions : undefined;
      if (calls) return initialize!(await loaded(), calls);
      return seed !== undefined ? toState(seed as JsonObject) : loaded();
    },
    ...(definition.checks ? { checks: definition.checks } : {}),
    call: (action, params, state) => definition.run(action, params, state),
    viewDiff(before, after) {
      const operations: PatchOperation[] = [];
      for (const table of names) tables[table].viewDiff(before[table] as JsonObject[], after[table] as JsonObject[], `/${pointerSegment(table)}`, operations);
      return operations;
    },
    view(state) {
      let view = views.get(state);
      if (!view) {
        view = Object.fromEntries(names.map((table) => [table, tables[table].toKeyed(state[table] as JsonObject[])])) as Json;
        views.set(state, view);
      }
      return view;
    },
  });
}

/**
 * Each domain's initial-state schema, built once per tables object (a domain's own constant, with its own
 * `initialize`): the same object in every app, so its validator is compiled once per process (core/validate.ts
 * keeps validators by schema object; built anew per app, it was compiled at every start: issue 36).
 */
const initialStateSchemas = new WeakMap<object, JsonSchema>();

function initialStateSchema<S extends JsonObject>({ domain, tables, initialize }: TauShimDefinition<S>): JsonSchema {
  const known = initialStateSchemas.get(tables);
  if (known) return known;
  const names = Object.keys(tables);
  const database = {
    type: 'object',
    description: `τ-bench's ${domain} database (its db.json${domain === 'telecom' ? ': db.toml as the reference loads it, in JSON' : ''}); absent: the one in the τ-bench data directory (AEH_TAU_DATA_DIR).`,
    required: names,
    properties: Object.fromEntries(names.map((table) => [table, tables[table].published === 'list' ? { type: 'array', items: { type: 'object' } } : { type: 'object', additionalProperties: { type: 'object' } }])),
    additionalProperties: false,
  };
  const initialization = { type: 'object', required: ['initialization_actions'], additionalProperties: false, description: 'the data directory\'s database after a τ-bench task\'s initialization actions', properties: { initialization_actions: { type: 'array', maxItems: 200, items: { type: 'object', required: ['env_type', 'func_name'], properties: { env_type: { type: 'string' }, func_name: { type: 'string' }, arguments: { type: 'object' } } } } } };
  const schema: JsonSchema = initialize ? { oneOf: [database, initialization] } : database;
  initialStateSchemas.set(tables, schema);
  return schema;
}
