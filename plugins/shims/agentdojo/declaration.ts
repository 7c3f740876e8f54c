/**
 * What an AgentDojo shim declares before its suite loads (register.ts): everything the service reads of a shim
 * without running it. declared.generated.ts holds the bundled suites' declarations, written by
 * scripts/agentdojo-declared.mjs with `declarationOf` and held to the suites by register.test.ts.
 */
import type { JsonSchema } from '../../../core/validate.ts';
import type { Shim, ShimAction } from '../../../core/shim.ts';

/** What a declaration holds in place of an egress function: the loaded action's function decides each call. */
export const PER_CALL_EGRESS = 'per-call';

/** An action as declared: plain data, its egress function (if any) replaced by `per-call`. */
export type DeclaredAction = Omit<ShimAction, 'egress'> & { egress?: boolean | typeof PER_CALL_EGRESS };

/** A suite's shim as declared. */
export interface DeclaredShim {
  /** AgentDojo's suite name (`banking`). */
  suite: string;
  name: string;
  description: string;
  initialStateSchema?: JsonSchema;
  actions: DeclaredAction[];
}

/** A loaded suite shim's declaration. */
export function declarationOf(suite: string, shim: Shim): DeclaredShim {
  const actions = shim.actions.map((action): DeclaredAction => {
    const { egress, ...rest } = action;
    return { ...rest, ...(egress === undefined ? {} : { egress: typeof egress === 'function' ? PER_CALL_EGRESS : egress }) };
  });
  return { suite, name: shim.name, description: shim.description, ...(shim.initialStateSchema ? { initialStateSchema: shim.initialStateSchema } : {}), actions };
}
