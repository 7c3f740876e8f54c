/**
 * The text as a reader (or a JSON parser) sees it, for finding secrets that were escaped or hidden: JSON
 * escapes decoded (`\"`, `\\`, `\/`, `\n`, `\uXXXX`, at any depth of escaping: `\\\"` as well), invisible
 * characters dropped (zero-width spaces and joiners, soft hyphens, bidi controls, the BOM). Each folded
 * character remembers the span of the original it came from, so what is found in the folded text is masked in
 * the original. One pass, linear in the text.
 */

const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/;
const NEEDS_FOLDING = /[\\\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/;
const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', "'": "'", '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };

export interface Folded {
  /** The folded text, case kept (for detectors that read case: IBANs, key shapes). */
  text: string;
  /** The folded text in lower case, as long as `text` (for case-insensitive secret search). */
  lower: string;
  /** Where in the original the folded character at `index` starts. */
  startOf(index: number): number;
  /** Where in the original the folded character at `index` ends (exclusive). */
  endOf(index: number): number;
}

/** Lower case that never changes the length (`İ` stays as it is rather than becoming two code units). */
function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const char of text) {
    const folded = char.toLowerCase();
    out += folded.length === char.length ? folded : char;
  }
  return out;
}

function isHex(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** Folds `text` (see the module comment); text without escapes or invisible characters is its own fold. */
export function foldForSearch(text: string): Folded {
  if (!NEEDS_FOLDING.test(text)) {
    const lower = lowerSameLength(text);
    return { text, lower, startOf: (index) => index, endOf: (index) => index + 1 };
  }
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let out = '';
  let count = 0;
  const push = (char: string, start: number, end: number) => {
    out += char;
    starts[count] = start;
    ends[count] = end;
    count++;
  };
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (INVISIBLE.test(char)) {
      index++;
      continue;
    }
    if (char !== '\\') {
      push(char, index, index + 1);
      index++;
      continue;
    }
    // A run of backslashes escapes what follows at whatever depth the text was escaped.
    let next = index;
    while (next < text.length && text[next] === '\\') next++;
    const escaped = text[next];
    if (escaped === 'u' && next + 4 < text.length && [1, 2, 3, 4].every((offset) => isHex(text.charCodeAt(next + offset)))) {
      const decoded = String.fromCharCode(Number.parseInt(text.slice(next + 1, next + 5), 16));
      if (!INVISIBLE.test(decoded)) push(decoded, index, next + 5);
      index = next + 5;
    } else if (escaped !== undefined && SIMPLE_ESCAPES[escaped] !== undefined) {
      push(SIMPLE_ESCAPES[escaped]!, index, next + 1);
      index = next + 1;
    } else {
      push('\\', index, next);
      index = next;
    }
  }
  return { text: out, lower: lowerSameLength(out), startOf: (at) => starts[at]!, endOf: (at) => ends[at]! };
}
