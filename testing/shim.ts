/**
 * The shim conformance suite: every shim, bundled or from a plugin, runs it with a seed and a script of calls.
 * It pins what the engine relies on (core/shim.ts): the definition is valid; the seed matches the shim's schema;
 * states and results are plain JSON; `call` never mutates the state it was given and answers the same way every
 * time (so a run replayed on another instance reaches the same world); a read-only action changes nothing but
 * the shim's incidental state; its incidental pointers are valid; errors carry a code and a message; and
 * the script exercises every action and at least one failure mode.
 */
import { describe, it, expect } from 'vitest';
import { actionOf, checkShimParams, defineShim, type Json, type Shim, type ShimCallContext, type ShimOutcome } from '../core/shim.ts';
import { check } from '../core/validate.ts';
import { jsonDifferences } from '../core/domain/json-diff.ts';
import { pointerTrie } from '../core/domain/pointer-patterns.ts';

/** One step of the script: a call and, optionally, what it must answer. */
export interface ShimStep {
  action: string;
  params: Record<string, unknown>;
  /** The error code this call must fail with; absent: it must succeed. */
  error?: string;
  /** Checks on the result or the state after the call. */
  expect?: (outcome: ShimOutcome, view: Json) => void;
}

export interface ShimConformanceOptions {
  /** The scenario's `initial_state[shim.name]`. */
  seed: unknown;
  steps: ShimStep[];
  config?: Record<string, unknown>;
  /** Why the shim reports failures as results rather than errors (an HTTP API's statuses): skips that check. */
  failuresAsResults?: string;
  /**
   * Why a read-only action may change what the view shows beyond the shim's `incidental` state: skips that
   * check. Prefer declaring the state reading touches as `incidental`.
   */
  readOnlyChangesView?: string;
}

const CONTEXT: ShimCallContext = { config: {}, now: '2026-11-23T09:00:00.000Z' };

/** Freezes a JSON value all the way down, so that a shim writing into its input state throws. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

/** True when `value` survives JSON unchanged (no undefined, functions, NaN, class instances). */
function isPlainJson(value: unknown): boolean {
  return JSON.stringify(JSON.parse(JSON.stringify(value ?? null))) === JSON.stringify(value ?? null) && !JSON.stringify(value ?? null).includes('NaN');
}

async function runScript(shim: Shim, options: ShimConformanceOptions): Promise<{ outcomes: ShimOutcome[]; states: Json[] }> {
  const context = { ...CONTEXT, config: options.config ?? {} };
  let state = deepFreeze(structuredClone(await shim.initialState(options.seed, context)));
  const outcomes: ShimOutcome[] = [];
  const states: Json[] = [state];
  for (const step of options.steps) {
    const before = JSON.stringify(state);
    const outcome = await shim.call(step.action, step.params, state, context);
    expect(JSON.stringify(state), `${step.action} must not change the state it was given`).toBe(before);
    outcomes.push(outcome);
    state = deepFreeze(structuredClone(outcome.state));
    states.push(state);
  }
  return { outcomes, states };
}

/** Runs the conformance suite for one shim. */
export function testShim(shim: Shim, options: ShimConformanceOptions): void {
  describe(`shim conformance: ${shim.name}`, () => {
    it('is a valid definition', () => {
      expect(() => defineShim(shim)).not.toThrow();
      expect(shim.actions.length).toBeGreaterThan(0);
    });

    it('accepts the seed by its schema and builds a plain-JSON initial state, the same every time', async () => {
      if (shim.initialStateSchema) expect(check(shim.initialStateSchema, options.seed)).toEqual([]);
      const first = await shim.initialState(options.seed, CONTEXT);
      const second = await shim.initialState(structuredClone(options.seed), CONTEXT);
      expect(isPlainJson(first)).toBe(true);
      expect(JSON.stringify(second)).toBe(JSON.stringify(first));
      expect(isPlainJson(await (shim.view?.(first) ?? first))).toBe(true);
    });

    it('answers the script as expected, with JSON results and coded errors, never mutating its input', async () => {
      const { outcomes, states } = await runScript(shim, options);
      for (const [index, step] of options.steps.entries()) {
        const outcome = outcomes[index];
        const action = actionOf(shim, step.action);
        expect(action, `unknown action ${step.action}`).toBeDefined();
        expect(checkShimParams(action!, step.params), `${step.action} params`).toEqual([]);
        expect(isPlainJson(outcome), `${step.action} outcome is plain JSON`).toBe(true);
        if (step.error) {
          expect('error' in outcome ? outcome.error.code : `succeeded: ${JSON.stringify((outcome as { result: Json }).result).slice(0, 200)}`, `step ${index} ${step.action}`).toBe(step.error);
          expect(JSON.stringify(states[index + 1]), 'a failed call leaves the state as it was').toBe(JSON.stringify(states[index]));
        } else {
          expect('error' in outcome ? `${outcome.error.code}: ${outcome.error.message}` : 'ok', `step ${index} ${step.action}`).toBe('ok');
        }
        if ('error' in outcome) expect(outcome.error.message.length).toBeGreaterThan(0);
        if (action?.readOnly && !('error' in outcome) && !options.readOnlyChangesView) {
          // A read may touch the shim's incidental state (a read flag, a query log), and nothing else.
          const view = async (state: Json) => structuredClone(await (shim.view?.(state) ?? state));
          const changed = jsonDifferences(await view(states[index]), await view(states[index + 1]), 20, pointerTrie(shim.incidental ?? []));
          expect(changed.map((difference) => difference.path), `${step.action} is read-only: it may change only the incidental state (${(shim.incidental ?? []).join(', ') || 'none'})`).toEqual([]);
        }
        step.expect?.(outcome, await (shim.view?.(outcome.state) ?? outcome.state));
      }
    });

    it('reaches the same world when the script is replayed (another instance resuming the run)', async () => {
      const first = await runScript(shim, options);
      const second = await runScript(shim, options);
      expect(JSON.stringify(second.outcomes)).toBe(JSON.stringify(first.outcomes));
    });

    it('is exercised by the script: every action, and at least one failure mode', () => {
      const called = new Set(options.steps.map((step) => step.action));
      expect(shim.actions.map((action) => action.name).filter((name) => !called.has(name))).toEqual([]);
      if (!options.failuresAsResults) expect(options.steps.some((step) => step.error), 'at least one step that fails').toBe(true);
    });
  });
}
