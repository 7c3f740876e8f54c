/** Spans of text found by the detectors: `{index, length}` in code units. */
export interface Span {
  index: number;
  length: number;
}

/**
 * True when a span of `sorted` (by index, none overlapping another) overlaps `[index, index + length)`: a binary
 * search for the first span starting at or past the end, then a look at the few before it.
 */
export function overlapsSorted(sorted: readonly Span[], index: number, length: number): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle].index < index + length) low = middle + 1;
    else high = middle;
  }
  for (let at = low - 1; at >= 0 && at >= low - 8; at--) if (sorted[at].index + sorted[at].length > index) return true;
  return false;
}
