/**
 * Where two JSON values differ, as RFC 6901 pointers with both values: the evidence of a whole-state comparison
 * (a world against the one a task's gold actions produce; an `expected_outcome` that compares `$` with
 * `equals`), so a failure names each differing path instead of showing the first characters of two documents.
 * Arrays are compared element by element (an element only one side has is reported as missing on the other).
 * Parts named by pointer patterns (pointer-patterns.ts: a shim's incidental state, a scenario's `ignore_paths`)
 * can be left out of the comparison.
 */
import { stepPointerTrie, type PointerTrie } from './pointer-patterns.ts';

/** One difference: the pointer, what was expected there and what was found (`undefined`: absent). */
export interface JsonDifference {
  path: string;
  expected?: unknown;
  actual?: unknown;
}

/** RFC 6901: `~` and `/` escaped in a path segment. */
function segment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The ignore patterns still open below a member (`undefined`: none, the common case, checked for nothing more),
 * or `null` when a pattern covers the member itself.
 */
function below(ignore: readonly PointerTrie[] | undefined, key: string): PointerTrie[] | undefined | null {
  if (!ignore) return undefined;
  const next = stepPointerTrie(ignore, key);
  if (next.some((node) => node.covered)) return null;
  return next.length ? next : undefined;
}

function collect(expected: unknown, actual: unknown, path: string, found: JsonDifference[], limit: number, ignore?: readonly PointerTrie[]): void {
  if (found.length >= limit || expected === actual) return;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const length = Math.max(expected.length, actual.length);
    for (let index = 0; index < length && found.length < limit; index++) {
      if (index < expected.length && index < actual.length && expected[index] === actual[index]) continue;
      const open = below(ignore, String(index));
      if (open === null) continue;
      if (index >= expected.length) found.push({ path: `${path}/${index}`, actual: actual[index] });
      else if (index >= actual.length) found.push({ path: `${path}/${index}`, expected: expected[index] });
      else collect(expected[index], actual[index], `${path}/${index}`, found, limit, open);
    }
    return;
  }
  if (isPlainObject(expected) && isPlainObject(actual)) {
    // Identity before the path: two worlds share every record no call replaced (a τ-bench table of 1,000), and
    // escaping each key's path cost more than the whole comparison of what differs.
    for (const key of Object.keys(expected)) {
      if (found.length >= limit) return;
      const shared = Object.hasOwn(actual, key);
      if (shared && expected[key] === actual[key]) continue;
      const open = below(ignore, key);
      if (open === null) continue;
      if (!shared) found.push({ path: `${path}/${segment(key)}`, expected: expected[key] });
      else collect(expected[key], actual[key], `${path}/${segment(key)}`, found, limit, open);
    }
    for (const key of Object.keys(actual)) {
      if (found.length >= limit) return;
      if (!Object.hasOwn(expected, key) && below(ignore, key) !== null) found.push({ path: `${path}/${segment(key)}`, actual: actual[key] });
    }
    return;
  }
  // Numbers compare by value (1 and 1.0 are one JSON number); anything else that is not identical differs.
  if (typeof expected === 'number' && typeof actual === 'number' && expected === actual) return;
  found.push({ path: path || '', expected, actual });
}

/**
 * The differences between `expected` and `actual`, at most `limit` (default 1,000), in document order; with
 * `ignore` (pointer-patterns.ts `pointerTrie`), none under a path it covers (left out before the limit counts).
 */
export function jsonDifferences(expected: unknown, actual: unknown, limit = 1000, ignore?: PointerTrie): JsonDifference[] {
  const found: JsonDifference[] = [];
  if (ignore?.covered) return found;
  collect(expected, actual, '', found, limit, ignore && ignore.children.size ? [ignore] : undefined);
  return found;
}

/** `/payments/charges/0/status: expected "refunded", found "succeeded"` for the first `count` differences. */
export function describeDifferences(differences: readonly JsonDifference[], count = 3, clip = 80): string {
  const show = (value: unknown) => {
    if (value === undefined) return 'nothing';
    const text = JSON.stringify(value) ?? String(value);
    return text.length > clip ? `${text.slice(0, clip)}…` : text;
  };
  const listed = differences.slice(0, count).map((difference) => `${difference.path || '(the root)'}: expected ${show(difference.expected)}, found ${show(difference.actual)}`);
  return `${listed.join('; ')}${differences.length > count ? `; ${differences.length - count} more` : ''}`;
}
