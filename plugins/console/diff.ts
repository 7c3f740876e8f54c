/**
 * A word-level diff of two short texts for the mutate page: the longest common subsequence of their tokens
 * (words and the whitespace or punctuation between them), so only what a mutator changed is marked.
 * Bounded: past MAX_CELLS of the LCS table the whole texts are shown as one removal and one insertion.
 */

/** One run of tokens that both texts share (`same`), or that only the old (`removed`) or new (`added`) has. */
export interface DiffPart {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

const MAX_CELLS = 250_000;

function tokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+|[^\p{L}\p{N}_]/gu) ?? [];
}

function push(parts: DiffPart[], kind: DiffPart['kind'], text: string): void {
  const last = parts[parts.length - 1];
  if (last && last.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

/** Diffs `before` against `after`, word by word. */
export function diffWords(before: string, after: string): DiffPart[] {
  const a = tokens(before);
  const b = tokens(after);
  if (a.length * b.length > MAX_CELLS) {
    return [...(before ? [{ kind: 'removed' as const, text: before }] : []), ...(after ? [{ kind: 'added' as const, text: after }] : [])];
  }
  // lengths[i][j] = LCS length of a[i..] and b[j..], filled from the end so the walk below goes forwards.
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      push(parts, 'same', a[i]!);
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) push(parts, 'removed', a[i++]!);
    else push(parts, 'added', b[j++]!);
  }
  while (i < a.length) push(parts, 'removed', a[i++]!);
  while (j < b.length) push(parts, 'added', b[j++]!);
  return parts;
}
