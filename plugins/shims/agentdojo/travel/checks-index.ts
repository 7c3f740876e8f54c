/**
 * The travel suite's checks as the foundation registers them: each class of module `v1` holds from 1.0.0, `v1_1`
 * from 1.1.0, `v1_1_1` from 1.1.1, `v1_2` from 1.2.0.
 */
import type { CheckInput as FoundationInput, SecurityCheck, SuiteChecks, UtilityCheck, Versioned } from '../shared/checks.ts';
import { PyDict } from '../workspace/deepdiff.ts';
import type { DojoCheck } from '../workspace/checks/helpers.ts';
import { travelView } from './state.ts';
import { TRAVEL_INJECTION_CHECKS, TRAVEL_USER_CHECKS } from './checks.ts';
import { TRAVEL_V1_CHECKS } from './checks-v1.ts';
import type { TravelWorld } from './types.ts';

const SINCE: Record<string, string> = { v1: '1.0.0', v1_1: '1.1.0', v1_1_1: '1.1.1', v1_1_2: '1.1.2', v1_2: '1.2.0' };
const diffView = (world: TravelWorld) => travelView(world, (entries) => new PyDict(entries));

/** One of our checks as the reference runs it. */
export const runTravelCheck = (check: DojoCheck<TravelWorld>, input: FoundationInput<TravelWorld>): boolean => check({ ...input, strict: true, view: diffView });

function versioned<T>(classes: Record<string, DojoCheck<TravelWorld>>, wrap: (check: DojoCheck<TravelWorld>) => T): Record<string, Versioned<T>> {
  const out: Record<string, Array<readonly [string, T]>> = {};
  for (const [key, check] of Object.entries(classes)) {
    const [id, module] = key.split('@') as [string, string];
    (out[id] ??= []).push([SINCE[module]!, wrap(check)]);
  }
  return out;
}

const USER = { ...TRAVEL_USER_CHECKS, ...Object.fromEntries(Object.entries(TRAVEL_V1_CHECKS).filter(([key]) => key.startsWith('user_'))) };
const INJECTION = { ...TRAVEL_INJECTION_CHECKS, ...Object.fromEntries(Object.entries(TRAVEL_V1_CHECKS).filter(([key]) => key.startsWith('injection_'))) };

/** Every class's check by key (`user_task_17@v1_1`), for the fidelity test. */
export function travelCheckByKey(key: string): ((input: FoundationInput<TravelWorld>) => boolean) | undefined {
  const check = USER[key] ?? INJECTION[key];
  return check && ((input) => runTravelCheck(check, input));
}

export const travelChecks: SuiteChecks<TravelWorld> = {
  suite: 'travel',
  shim: 'agentdojo_travel',
  user: versioned(USER, (check): UtilityCheck<TravelWorld> => ({ utility: (input) => runTravelCheck(check, input) })),
  injection: versioned(INJECTION, (check): SecurityCheck<TravelWorld> => ({ security: (input) => runTravelCheck(check, input) })),
};
