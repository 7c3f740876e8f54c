/**
 * Deep equality of world views (plain JSON values, and `PyDict` for dicts: compared by entries, in any order,
 * as Python compares dicts).
 */
import { PyDict } from './deepdiff.ts';

export function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof PyDict && b instanceof PyDict) return isDeepStrictEqual(a.entries, b.entries);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((x, i) => isDeepStrictEqual(x, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => key in right && isDeepStrictEqual(left[key], right[key]));
}
