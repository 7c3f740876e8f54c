/**
 * Hiding protected spans from a mutator that edits in place: each span becomes one Private Use Area character
 * (U+E000–U+F8FF, one not already in the text). No mutator edits such a character: it is no letter, digit,
 * whitespace or punctuation, has no case, and is a grapheme of its own. After the mutator, each placeholder is
 * put back as the text it hid; where the mutator ran a neighbouring word into it (a closed gap), the word
 * boundary is put back too, so `build a bomb` never comes back as `build abomb`.
 */
import type { ProtectedSpan } from '../mutator.ts';

const FIRST_PLACEHOLDER = 0xe000;
const LAST_PLACEHOLDER = 0xf8ff;
const WORD_CHAR = /[\p{L}\p{N}]/u;

interface Hidden {
  original: string;
  /** The original had a word boundary before / after the span, and the span's edge is a word character. */
  boundaryBefore: boolean;
  boundaryAfter: boolean;
}

/** A text with its protected spans hidden, and the way back. */
export interface HiddenSpans {
  /** The text with each span replaced by its placeholder. */
  text: string;
  /** Where the placeholders are in `text` (each one character long). */
  spans: ProtectedSpan[];
  /** The mutated text with every span put back; `undefined` when the mutator dropped or copied a placeholder. */
  restore(mutated: string): string | undefined;
}

/** Hides `spans` (sorted, not overlapping) of `text` behind placeholders. */
export function hideSpans(text: string, spans: readonly ProtectedSpan[]): HiddenSpans {
  const taken = new Set(text.match(/[\uE000-\uF8FF]/g) ?? []);
  const hidden = new Map<string, Hidden>();
  const placed: ProtectedSpan[] = [];
  let code = FIRST_PLACEHOLDER;
  let out = '';
  let cursor = 0;
  for (const span of spans) {
    while (code <= LAST_PLACEHOLDER && taken.has(String.fromCharCode(code))) code++;
    if (code > LAST_PLACEHOLDER) break;
    const placeholder = String.fromCharCode(code++);
    const original = text.slice(span.start, span.end);
    hidden.set(placeholder, {
      original,
      boundaryBefore: WORD_CHAR.test(original[0]!) && (span.start === 0 || !WORD_CHAR.test(text[span.start - 1]!)),
      boundaryAfter: WORD_CHAR.test(original[original.length - 1]!) && (span.end === text.length || !WORD_CHAR.test(text[span.end]!)),
    });
    out += text.slice(cursor, span.start);
    placed.push({ start: out.length, end: out.length + 1, kind: span.kind });
    out += placeholder;
    cursor = span.end;
  }
  out += text.slice(cursor);
  return { text: out, spans: placed, restore: (mutated) => restoreSpans(mutated, hidden) };
}

function restoreSpans(mutated: string, hidden: ReadonlyMap<string, Hidden>): string | undefined {
  const seen = new Map<string, number>();
  for (const char of mutated) if (hidden.has(char)) seen.set(char, (seen.get(char) ?? 0) + 1);
  if (seen.size !== hidden.size || [...seen.values()].some((count) => count !== 1)) return undefined;
  const isWordChar = (char: string | undefined) => char !== undefined && (WORD_CHAR.test(char) || hidden.has(char));
  let out = '';
  for (let index = 0; index < mutated.length; index++) {
    const char = mutated[index]!;
    const span = hidden.get(char);
    if (!span) {
      out += char;
      continue;
    }
    if (span.boundaryBefore && isWordChar(out[out.length - 1])) out += ' ';
    out += span.original;
    if (span.boundaryAfter && isWordChar(mutated[index + 1])) out += ' ';
  }
  return out;
}
