/**
 * `difflib.SequenceMatcher(None, a, b).ratio()` (CPython 3.11 Lib/difflib.py), which workspace injection task 13
 * compares against 0.95: the longest-match recursion over code points, with autojunk — in a `b` of 200 or more
 * elements, any element occurring more than len(b)//100 + 1 times is left out of the index (but, not being
 * "junk", still extends a match).
 */

interface Match { i: number; j: number; size: number }

function indexOf(b: readonly string[]): Map<string, number[]> {
  const b2j = new Map<string, number[]>();
  b.forEach((element, j) => {
    const list = b2j.get(element);
    if (list) list.push(j);
    else b2j.set(element, [j]);
  });
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [element, list] of [...b2j]) if (list.length > limit) b2j.delete(element);
  }
  return b2j;
}

function longestMatch(a: readonly string[], b: readonly string[], b2j: Map<string, number[]>, alo: number, ahi: number, blo: number, bhi: number): Match {
  let best: Match = { i: alo, j: blo, size: 0 };
  let j2len = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of b2j.get(a[i]) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (j2len.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > best.size) best = { i: i - k + 1, j: j - k + 1, size: k };
    }
    j2len = next;
  }
  let { i, j, size } = best;
  // No element is junk here (isjunk is None), so the extensions over equal neighbours are the only ones.
  while (i > alo && j > blo && a[i - 1] === b[j - 1]) { i--; j--; size++; }
  while (i + size < ahi && j + size < bhi && a[i + size] === b[j + size]) size++;
  return { i, j, size };
}

/** The sum of the sizes of SequenceMatcher's matching blocks. */
function matchedElements(a: readonly string[], b: readonly string[]): number {
  const b2j = indexOf(b);
  const queue: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  let matched = 0;
  while (queue.length) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const { i, j, size } = longestMatch(a, b, b2j, alo, ahi, blo, bhi);
    if (!size) continue;
    matched += size;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + size < ahi && j + size < bhi) queue.push([i + size, ahi, j + size, bhi]);
  }
  return matched;
}

/** `SequenceMatcher(None, a, b).ratio()`: 2·M / (len(a) + len(b)), 1.0 for two empty strings. */
export function sequenceRatio(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  const total = left.length + right.length;
  return total ? (2 * matchedElements(left, right)) / total : 1;
}
