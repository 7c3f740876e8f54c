/**
 * A shim whose behaviour loads on first use (core/shim.ts). Most of a start is loading modules, and a shim family
 * such as AgentDojo's four suites (~50 modules and a YAML parser) serves only the runs that enable it: a plugin
 * declares what listing, submission and tool offers read (name, description, actions, initial-state schema) and
 * gives `load`, a dynamic import of the shim itself. The first world that starts the shim awaits `load`; every
 * later `initialState` and `call` go straight to the loaded shim, as if it had been registered itself.
 * What the engine reads without calling the shim (`view`, `viewDiff`, `reconcile`, `checks`, `module`,
 * `replayModule`) may be declared too, when it is cheap to load: the SQL shim's view needs no SQLite.
 */
import { defineShim, type Json, type Shim, type ShimCallContext, type ShimOutcome } from '../shim.ts';

/** What the engine reads from a shim without calling it: declared up front, or not at all. */
const UP_FRONT = ['view', 'viewDiff', 'reconcile', 'checks', 'module', 'replayModule'] as const;

/** What a lazily loaded shim declares up front: a shim without its behaviour, and how to load that. */
export interface LazyShimDeclaration<S extends Json = Json> extends Omit<Shim<S>, 'initialState' | 'call'> {
  /**
   * Loads the shim itself (typically `() => import('./heavy.ts').then((m) => m.default)`), once, when a world first
   * starts it. Its name and action names must be the declared ones, in order; it defines `initialState` and
   * `call`, and of what the engine reads before loading it (`view`, `viewDiff`, `reconcile`, `checks`, `module`,
   * `replayModule`) only the declared values themselves (the same functions, the same URLs): the engine never sees
   * the loaded shim's own. A load that fails is retried at the next use.
   */
  load(): Promise<Shim<S>>;
}

/** Why a loaded shim cannot stand in for its declaration; `undefined` when it can. */
function mismatch<S extends Json>(declared: LazyShimDeclaration<S>, loaded: Shim<S>): string | undefined {
  if (!loaded || typeof loaded.call !== 'function' || typeof loaded.initialState !== 'function') return 'it is not a shim (no initialState() and call())';
  if (loaded.name !== declared.name) return `it is named "${loaded.name}"`;
  const declaredActions = declared.actions.map((action) => action.name).join(', ');
  const loadedActions = loaded.actions.map((action) => action.name).join(', ');
  if (declaredActions !== loadedActions) return `its actions are [${loadedActions}], declared [${declaredActions}]`;
  const eager = UP_FRONT.filter((key) => loaded[key] !== undefined && loaded[key] !== declared[key]);
  if (eager.length) return `it defines ${eager.join(', ')}, which a lazily loaded shim can only declare up front (or register it as itself)`;
  return undefined;
}

/**
 * Checks the declaration as `defineShim` checks a shim and returns a shim whose `initialState` and `call` load the
 * real one first. A load that fails, or a loaded shim unlike its declaration, fails that world's start with an
 * error naming the shim and the cause (never a hang: the error is the awaited import's own).
 */
export function defineLazyShim<S extends Json>(declaration: LazyShimDeclaration<S>): Shim<S> {
  const { load, ...declared } = declaration;
  if (typeof load !== 'function') throw new Error(`shim "${declaration.name}": a lazily loaded shim needs load()`);
  let loaded: Shim<S> | undefined;
  let loading: Promise<Shim<S>> | undefined;
  const ready = (): Promise<Shim<S>> =>
    (loading ??= load().then(
      (shim) => {
        const wrong = mismatch(declaration, shim);
        if (wrong) throw new Error(`shim "${declaration.name}": the module it loads on first use does not match its declaration: ${wrong}`);
        return (loaded = shim);
      },
      (error: unknown) => {
        throw new Error(`shim "${declaration.name}" could not be loaded: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      },
    ).catch((error: unknown) => {
      // Not cached: a load that failed (a file being replaced, a transient error) is tried again next time.
      loading = undefined;
      throw error;
    }));
  return defineShim<S>({
    ...declared,
    initialState(seed: unknown, context: ShimCallContext): S | Promise<S> {
      return loaded ? loaded.initialState(seed, context) : ready().then((shim) => shim.initialState(seed, context));
    },
    call(action: string, params: Record<string, unknown>, state: S, context: ShimCallContext): ShimOutcome<S> | Promise<ShimOutcome<S>> {
      return loaded ? loaded.call(action, params, state, context) : ready().then((shim) => shim.call(action, params, state, context));
    },
  });
}
