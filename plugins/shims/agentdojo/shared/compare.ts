/**
 * Python's comparisons as AgentDojo's checks use them: `==` between pydantic models and dicts (field-wise, dicts
 * without regard to order, `1100 == 1100.0`), and `str.split()` on white space.
 */

/** Python's `a == b` for JSON-like values (a model compares as its fields; a `PyDict` by its entries, in any order). */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => pyEquals(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && pyEquals(left[key], right[key]));
}

/** Python's `str.split()`: runs of white space separate, none at either end. */
export function pySplit(text: string): string[] {
  return text.split(/[\s\x1c-\x1f\x85]+/u).filter((word) => word.length > 0);
}
