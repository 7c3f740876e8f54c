/**
 * Matchers in a gold solution's arguments (`expected_actions[].arguments`), for what the right answer leaves
 * free: a transfer's description in the agent's own words, an idempotency key it chose, one of several valid
 * reasons. An argument (at any depth) may be:
 * - `{"$regex": "<RE2>"}`: a string in which the pattern finds a match (RE2, linear-time; anchor it with `^…$`
 *   for the whole value, `(?i)` for any case);
 * - `{"$in": [v1, v2, …]}`: one of these JSON values;
 * - `{"$any": true}`: any value, or none (the agent may leave the argument out).
 * An object is a matcher when its only member is one of these; one of these names beside other members is
 * refused at submission, so a typo never turns into a literal.
 *
 * A gold action with matchers is met by a successful call of the same tool whose arguments equal the gold's,
 * matchers aside (same members, same values, each matcher satisfied); the gold world then replays that call's
 * arguments, which are the gold's with the matched values taken from the agent. Each call meets one gold action
 * at most (a maximum matching, so an `$any` never takes the call a stricter matcher needed).
 */
import { RE2JS } from 're2js';
import type { FieldError } from '../problems.ts';
import type { ExpectedAction } from './scenario.ts';
import { deepEqual } from './assertions.ts';
import { canonicalToolName } from './tool-names.ts';

/** One matcher. */
export type GoldMatcher = { $regex: string } | { $in: unknown[] } | { $any: true };

const MATCHER_NAMES = ['$regex', '$in', '$any'];
/** The longest pattern, and the most values of `$in`: a matcher is a field of a scenario, not a program. */
const MAX_PATTERN = 2000;
const MAX_OPTIONS = 100;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** True when `value` is a matcher (an object whose only member is `$regex`, `$in` or `$any`). */
export function isGoldMatcher(value: unknown): value is GoldMatcher {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && MATCHER_NAMES.includes(keys[0]);
}

function containsMatcher(value: unknown): boolean {
  if (isGoldMatcher(value)) return true;
  if (Array.isArray(value)) return value.some(containsMatcher);
  return isPlainObject(value) && Object.values(value).some(containsMatcher);
}

/** True when a gold action's arguments hold a matcher. */
export function actionHasMatchers(action: ExpectedAction): boolean {
  return containsMatcher(action.arguments ?? {});
}

/** True when some gold action holds a matcher (its gold world then depends on the agent's calls). */
export function hasGoldMatchers(actions: readonly ExpectedAction[] | undefined): boolean {
  return (actions ?? []).some(actionHasMatchers);
}

/** Escapes a member name for the RFC 6901 path of an error. */
const segment = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

/** Why the matchers in `value` (found at `path`) are malformed: a bad shape, a pattern RE2 refuses. */
export function goldMatcherErrors(value: unknown, path: string, errors: FieldError[] = []): FieldError[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => goldMatcherErrors(item, `${path}/${index}`, errors));
    return errors;
  }
  if (!isPlainObject(value)) return errors;
  const keys = Object.keys(value);
  const named = keys.filter((key) => MATCHER_NAMES.includes(key));
  if (named.length && keys.length > 1) {
    errors.push({ path, message: `a matcher has one member (${named.join(', ')} beside ${keys.filter((key) => !named.includes(key)).join(', ') || 'another matcher'}): {"$regex": "…"}, {"$in": […]} or {"$any": true}` });
    return errors;
  }
  if (!named.length) {
    for (const key of keys) goldMatcherErrors(value[key], `${path}/${segment(key)}`, errors);
    return errors;
  }
  const operand = value[named[0]];
  const at = `${path}/${segment(named[0])}`;
  if (named[0] === '$any' && operand !== true) errors.push({ path: at, message: 'must be true ({"$any": true} matches any value)' });
  if (named[0] === '$in' && !(Array.isArray(operand) && operand.length >= 1 && operand.length <= MAX_OPTIONS)) errors.push({ path: at, message: `must be a list of 1 to ${MAX_OPTIONS} values` });
  if (named[0] === '$regex') {
    if (typeof operand !== 'string' || operand.length > MAX_PATTERN) errors.push({ path: at, message: `must be an RE2 pattern of at most ${MAX_PATTERN} characters` });
    else {
      try {
        RE2JS.compile(operand);
      } catch (error) {
        errors.push({ path: at, message: `is not a valid RE2 pattern (no lookaround or backreferences): ${(error as Error).message}`.slice(0, 300) });
      }
    }
  }
  return errors;
}

/** True when `value` (what the agent passed) fits `pattern` (the gold's argument, matchers allowed). */
function fits(pattern: unknown, value: unknown, regexOf: (source: string) => RE2JS): boolean {
  if (isGoldMatcher(pattern)) {
    if ('$any' in pattern) return true;
    if ('$in' in pattern) return value !== undefined && pattern.$in.some((option) => deepEqual(option, value));
    return typeof value === 'string' && regexOf(pattern.$regex).matcher(value).find();
  }
  if (Array.isArray(pattern)) return Array.isArray(value) && value.length === pattern.length && pattern.every((item, index) => fits(item, value[index], regexOf));
  if (isPlainObject(pattern)) {
    if (!isPlainObject(value)) return false;
    for (const key of Object.keys(pattern)) if (!fits(pattern[key], Object.hasOwn(value, key) ? value[key] : undefined, regexOf)) return false;
    return Object.keys(value).every((key) => Object.hasOwn(pattern, key));
  }
  return deepEqual(pattern, value);
}

/** A call of the agent's as the trace records it (`tool-calls.ts`). */
export interface AgentCall {
  name: string;
  arguments: unknown;
  error?: unknown;
}

/** The gold actions with their matchers resolved against the agent's calls. */
export interface ResolvedGold {
  /** Every gold action, in order; those with matchers that a call met carry that call's arguments. */
  actions: ExpectedAction[];
  /** The indexes of gold actions with matchers that no call met. */
  unmatched: number[];
}

/**
 * Resolves the matchers of `gold` against the agent's successful `calls`: a maximum matching of gold actions to
 * calls (each call meets one action at most), earlier calls preferred. Actions without matchers stay as written.
 */
export function resolveGoldActions(gold: readonly ExpectedAction[], calls: readonly AgentCall[]): ResolvedGold {
  const compiled = new Map<string, RE2JS>();
  const regexOf = (source: string) => {
    let regex = compiled.get(source);
    if (!regex) compiled.set(source, (regex = RE2JS.compile(source)));
    return regex;
  };
  const usable = calls.filter((call) => !call.error).map((call) => ({ name: canonicalToolName(call.name), arguments: call.arguments }));
  const withMatchers = gold.map((action, index) => ({ action, index })).filter(({ action }) => actionHasMatchers(action));
  // Which calls each such action could take, in call order.
  const candidates = new Map(withMatchers.map(({ action, index }) => {
    const name = canonicalToolName(action.name);
    return [index, usable.flatMap((call, callIndex) => (call.name === name && fits(action.arguments ?? {}, call.arguments ?? {}, regexOf) ? [callIndex] : []))];
  }));
  const takenBy = new Map<number, number>();
  // Kuhn's augmenting paths: at most 200 gold actions and 200 calls a task.
  const assign = (index: number, seen: Set<number>): boolean => {
    for (const callIndex of candidates.get(index)!) {
      if (seen.has(callIndex)) continue;
      seen.add(callIndex);
      const holder = takenBy.get(callIndex);
      if (holder === undefined || assign(holder, seen)) {
        takenBy.set(callIndex, index);
        return true;
      }
    }
    return false;
  };
  for (const { index } of withMatchers) assign(index, new Set());
  const callOf = new Map([...takenBy].map(([callIndex, index]) => [index, callIndex]));
  return {
    actions: gold.map((action, index) => {
      const callIndex = callOf.get(index);
      return callIndex === undefined ? action : { name: action.name, arguments: usable[callIndex].arguments as Record<string, unknown> };
    }),
    unmatched: withMatchers.filter(({ index }) => !callOf.has(index)).map(({ index }) => index),
  };
}
