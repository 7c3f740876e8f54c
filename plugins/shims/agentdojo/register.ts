/**
 * AgentDojo's suites as the service registers them: loaded on first use. The four suites are ~50 modules and a YAML
 * parser (~0.15 s of a start, issue 26) that only AgentDojo runs need, so each `agentdojo_<suite>` shim is
 * registered from its declaration (declaration.ts; the bundled ones in declared.generated.ts) with
 * `defineLazyShim`, and the suites (index.ts) are imported when a world first starts one of them or a check
 * metric first scores.
 */
import type { PluginHost } from '../../../core/plugin-host.ts';
import { defineLazyShim } from '../../../core/domain/lazy-shim.ts';
import { isEgress, type Shim, type ShimAction } from '../../../core/shim.ts';
import { agentdojoMetrics } from './shared/metrics.ts';
import { AGENTDOJO_DECLARED } from './declared.generated.ts';
import { PER_CALL_EGRESS, type DeclaredShim } from './declaration.ts';
import type { AgentDojoSuite } from './shared/suite.ts';

let suites: Promise<readonly AgentDojoSuite[]> | undefined;
let loadedSuites: readonly AgentDojoSuite[] | undefined;

/** Imports the suites once (again after a failure). */
function loadSuites(): Promise<readonly AgentDojoSuite[]> {
  suites ??= import('./index.ts').then(
    (module) => (loadedSuites = module.AGENTDOJO_SUITES),
    (error: unknown) => {
      suites = undefined;
      throw error;
    },
  );
  return suites;
}

/**
 * A per-call egress declaration: the loaded action decides. A call runs only in a world the shim's `initialState`
 * started, which loaded the suites; were it not loaded, the throw counts as egress (core/shim.ts `isEgress`).
 */
function perCallEgress(shimName: string, actionName: string): ShimAction['egress'] {
  return (params, state, context) => {
    const action = loadedSuites?.find((entry) => entry.shim.name === shimName)?.shim.actions.find((candidate) => candidate.name === actionName);
    if (!action) throw new Error(`${shimName}.${actionName} is not loaded`);
    return isEgress(action, params, state, context);
  };
}

function lazySuiteShim(declared: DeclaredShim): Shim {
  const { suite, actions, ...shim } = declared;
  return defineLazyShim({
    ...shim,
    actions: actions.map(({ egress, ...action }) => ({ ...action, ...(egress === undefined ? {} : { egress: egress === PER_CALL_EGRESS ? perCallEgress(shim.name, action.name) : egress }) })),
    load: () => loadSuites().then((loaded) => {
      const found = loaded.find((entry) => entry.suite === suite);
      if (!found) throw new Error(`the bundled AgentDojo suites have no "${suite}"`);
      return found.shim;
    }),
  });
}

/** Registers every bundled suite's shim and the two check metrics, the suites themselves loaded on first use. */
export function registerAgentDojoLazily(host: Pick<PluginHost, 'shims' | 'metrics'>): void {
  for (const declared of AGENTDOJO_DECLARED) host.shims.register(lazySuiteShim(declared) as never, 'shims');
  for (const metric of agentdojoMetrics(() => loadSuites().then((loaded) => loaded.map((entry) => entry.checks)))) host.metrics.register(metric, 'shims');
}
