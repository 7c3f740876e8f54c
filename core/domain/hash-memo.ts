/**
 * Hashes of JSON values remembered by their `JSON.stringify` text (issue 36): a submission hashes the RFC 8785
 * form of its scenario and of its agent's configuration, and the same scenario and agent are submitted again and
 * again (a bench, CI, a schedule, a suite), while the canonical form (every object's keys sorted, every string
 * escaped again) costs ~0.2 ms for a twenty-task scenario, ten times its `JSON.stringify`. Equal texts are equal
 * JSON values, whose canonical forms, and so hashes, are equal. Values come from JSON documents (no NaN or
 * Infinity, which the canonical form refuses; no functions).
 */
import type { HexDigest } from './hash.ts';

/** Past this many characters of JSON text, the memo forgets its least recently used entries. */
const MEMO_MAX_CHARS = 4 * 1024 * 1024;
/** `<kind>\n<JSON text>` -> hash, least recently used first. */
const memo = new Map<string, HexDigest>();
let memoChars = 0;

/**
 * `hash(value)`, remembered per `kind` (one kind per hash function: a scenario's content hash, an agent's
 * configuration hash) by `value`'s JSON text; a text longer than a sixteenth of the memo is not kept.
 */
export function memoizedHash<T>(kind: string, value: T, hash: (value: T) => HexDigest): HexDigest {
  const key = `${kind}\n${JSON.stringify(value)}`;
  const known = memo.get(key);
  if (known !== undefined) {
    memo.delete(key);
    memo.set(key, known);
    return known;
  }
  const computed = hash(value);
  if (key.length > MEMO_MAX_CHARS / 16) return computed;
  memo.set(key, computed);
  memoChars += key.length;
  for (const [oldest] of memo) {
    if (memoChars <= MEMO_MAX_CHARS) break;
    memo.delete(oldest);
    memoChars -= oldest.length;
  }
  return computed;
}
