/**
 * Outcome assertions (issue 15, the AES `expected_outcome` shape): what must hold of the agent's messages, of a
 * shim's final state, or of the tool calls it made, once a task is over. An assertion names a `target`, an
 * optional `property` (a JSON path, json-path.ts), the `expected` value and a `mode`. Over a path that selects
 * several values, an assertion holds when it holds for at least one of them (`count`, `exists` and `absent` look
 * at how many there are); `not_contains` and `not_regex` hold when it holds for none.
 *
 * `message` selects every answer of the task's conversation, as τ-bench reads required outputs (an output said
 * in any turn counts; `contains` compares lower-cased, without thousands separators); `last_message` only the
 * last answer. A turn's own checks see that turn's answer as both.
 */
import { RE2JS } from 're2js';
import type { OutcomeAssertion } from './scenario.ts';
import { parsePath, select } from './json-path.ts';

export type AssertionMode = 'equals' | 'contains' | 'not_contains' | 'regex' | 'not_regex' | 'exists' | 'absent' | 'gte' | 'lte' | 'count' | 'numerical_tolerance';

/** An `expected_outcome` entry of a scenario task. */
export type Assertion = OutcomeAssertion;

/** What assertions are checked against. */
export interface AssertionSubject {
  /** The last answer (`last_message`). */
  message: string;
  /** Every answer of the task's conversation, in order (`message`); absent: `message` alone. */
  messages?: readonly string[];
  tool_calls: unknown[];
  /** Each enabled shim's final state, as its `view` shows it. */
  shims: Record<string, unknown>;
}

export interface AssertionOutcome {
  passed: boolean | null;
  /** What was found, for the failure's evidence; `null` when the check could not run. */
  actual?: unknown;
  detail: string;
}

/** True when `value` has every member of `pattern` (recursively), arrays element-wise by containment. */
export function containsPartial(value: unknown, pattern: unknown): boolean {
  if (pattern === null || typeof pattern !== 'object') return deepEqual(value, pattern);
  if (Array.isArray(pattern)) return Array.isArray(value) && pattern.every((item) => value.some((candidate) => containsPartial(candidate, item)));
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.entries(pattern).every(([key, wanted]) => Object.hasOwn(value, key) && containsPartial((value as Record<string, unknown>)[key], wanted));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, index) => deepEqual(item, (b as unknown[])[index]));
  const keysA = Object.keys(a as object);
  const keysB = Object.keys(b as object);
  return keysA.length === keysB.length && keysA.every((key) => Object.hasOwn(b as object, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Lower-cased, with the commas of thousands separators dropped ("$1,234.50" → "$1234.50"): τ-bench's reading. */
export function foldForContains(text: string): string {
  let folded = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === ',' && index > 0 && isDigit(text[index - 1]) && isDigit(text[index + 1]) && isDigit(text[index + 2]) && isDigit(text[index + 3]) && !isDigit(text[index + 4])) continue;
    folded += char;
  }
  return folded.toLowerCase();
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}

function holds(mode: AssertionMode, value: unknown, expected: unknown, tolerance: number): boolean {
  switch (mode) {
    case 'equals':
      return deepEqual(value, expected) || (typeof value === 'number' && typeof expected === 'string' && String(value) === expected.trim());
    case 'contains':
      if (typeof value === 'string') return typeof expected === 'string' && foldForContains(value).includes(foldForContains(expected));
      return containsPartial(value, Array.isArray(value) && !Array.isArray(expected) ? [expected] : expected);
    case 'regex':
      return typeof value === 'string' && typeof expected === 'string' && RE2JS.compile(expected).matcher(value).find();
    case 'gte':
      return typeof value === 'number' && typeof expected === 'number' && value >= expected;
    case 'lte':
      return typeof value === 'number' && typeof expected === 'number' && value <= expected;
    case 'numerical_tolerance': {
      const number = typeof value === 'string' ? Number(value) : value;
      return typeof number === 'number' && typeof expected === 'number' && Math.abs(number - expected) <= tolerance;
    }
    default:
      return false;
  }
}

/** What a target selects from: one root, or one per answer for `message`. */
function rootsOf(assertion: Assertion, subject: AssertionSubject): { roots?: unknown[]; missing?: string } {
  const target = assertion.target.trim();
  if (target === 'message' || target === 'last_message') {
    const texts = target === 'message' ? subject.messages ?? [subject.message] : [subject.message];
    if (!assertion.property) return { roots: [...texts] };
    const parsed = texts.flatMap((text) => {
      try {
        return [JSON.parse(text)];
      } catch {
        return [];
      }
    });
    return parsed.length ? { roots: parsed } : { missing: `${texts.length > 1 ? 'no message' : 'the message'} is JSON, so it has no property` };
  }
  if (target === 'tool_calls') return { roots: [subject.tool_calls] };
  if (target.startsWith('shim:')) {
    const name = target.slice(5);
    return Object.hasOwn(subject.shims, name) ? { roots: [subject.shims[name]] } : { missing: `shim "${name}" is not enabled in this run` };
  }
  return { missing: `unknown target "${target}"` };
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? 'nothing';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Checks one assertion. `passed: null` when it cannot be checked (an unknown shim, a bad path). */
export function checkAssertion(assertion: Assertion, subject: AssertionSubject): AssertionOutcome {
  const mode: AssertionMode = assertion.mode === undefined || assertion.mode === 'exact' ? 'equals' : assertion.mode;
  const { roots, missing } = rootsOf(assertion, subject);
  if (missing) return { passed: (mode === 'absent' || mode === 'not_contains' || mode === 'not_regex') && / message /.test(` ${missing}`) ? true : null, detail: missing };
  let values: unknown[] = [];
  try {
    const path = parsePath(assertion.property ?? '$');
    for (const root of roots!) {
      let base = root;
      if (assertion.where && Array.isArray(base)) base = base.filter((item) => containsPartial(item, assertion.where));
      // A filtered list without a path selects its elements: `where` then reads as "the calls that…".
      values = values.concat(assertion.where && Array.isArray(base) && !assertion.property ? base : select(base, path));
    }
  } catch (error) {
    return { passed: null, detail: `property: ${(error as Error).message}` };
  }
  const where = `${assertion.target}${assertion.property ? ` ${assertion.property}` : ''}${assertion.where ? ` where ${describe(assertion.where)}` : ''}`;
  if (mode === 'exists') return { passed: values.length > 0 && values.some((value) => value !== null), actual: values[0], detail: `${where} ${values.length ? 'exists' : 'is missing'}` };
  if (mode === 'absent') {
    // With `expected`: no selected value equals it ("ssn was never selected"); without: nothing is there.
    if (assertion.expected !== undefined) {
      const found = values.find((value) => holds('equals', value, assertion.expected, 0));
      return { passed: found === undefined, actual: found, detail: `${where} ${found === undefined ? `never is ${describe(assertion.expected)}` : `is ${describe(assertion.expected)}`}` };
    }
    return { passed: values.every((value) => value === null), actual: values[0], detail: `${where} ${values.length ? `is ${describe(values[0])}` : 'is absent'}` };
  }
  if (mode === 'count') {
    const count = values.length === 1 && Array.isArray(values[0]) ? (values[0] as unknown[]).length : values.length;
    return { passed: holds('equals', count, assertion.expected, 0), actual: count, detail: `${where}: ${count} found, ${describe(assertion.expected)} expected` };
  }
  if (mode === 'regex' || mode === 'not_regex') {
    try {
      RE2JS.compile(String(assertion.expected));
    } catch (error) {
      return { passed: null, detail: `expected is not a valid RE2 pattern: ${(error as Error).message}` };
    }
  }
  if (mode === 'not_contains' || mode === 'not_regex') {
    // "Never said": no selected value (no answer, for `message`) contains or matches it.
    const found = values.find((value) => holds(mode === 'not_contains' ? 'contains' : 'regex', value, assertion.expected, 0));
    return { passed: found === undefined, actual: found, detail: `${where} ${found === undefined ? `never ${mode === 'not_contains' ? 'contains' : 'matches'} ${describe(assertion.expected)}` : `${mode === 'not_contains' ? 'contains' : 'matches'} ${describe(assertion.expected)}: found ${describe(found)}`}` };
  }
  const tolerance = assertion.tolerance ?? 0.01;
  const passed = values.some((value) => holds(mode, value, assertion.expected, tolerance));
  return { passed, actual: values.length === 1 ? values[0] : values, detail: `${where} ${mode} ${describe(assertion.expected)}: ${passed ? 'holds' : `found ${values.length ? describe(values.length === 1 ? values[0] : values) : 'nothing'}`}` };
}
