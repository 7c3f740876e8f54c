/**
 * Text helpers shared by mutators: grapheme-safe splitting (UAX #29 through `Intl.Segmenter`, with an ASCII
 * fast path), the "is this letter safe to touch" test that keeps combining marks, emoji sequences and
 * surrogate pairs whole, and option readers that turn a bad option into a 400 naming it.
 */
import { Problem } from '../../core/problems.ts';
import type { ProtectedKind, ProtectedSpan, Rng } from '../../core/mutator.ts';

// Hoisted so the check costs one regex test; a lone char outside ASCII sends us to the segmenter.
const NON_ASCII = /[^\x00-\x7f]/;

let segmenter: Intl.Segmenter | undefined;

/** True when every character is ASCII (no surrogates, no combining marks). */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

/** Window of the segmenter; a cluster longer than this is still found whole (the window grows). */
const WINDOW = 512;

/** Segments `piece` into `clusters` in windows (see `graphemes`). */
function segmentInto(clusters: string[], piece: string): void {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let start = 0;
  let window = WINDOW;
  while (start < piece.length) {
    let end = Math.min(piece.length, start + window);
    // Cut between code points: boundaries before the cut are then final (UAX #29 rules look back, never ahead
    // past the next code point), and only the last cluster can be truncated.
    const last = piece.charCodeAt(end - 1);
    if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end--;
    const found: string[] = [];
    for (const { segment } of segmenter.segment(piece.slice(start, end))) found.push(segment);
    if (end === piece.length) {
      for (const cluster of found) clusters.push(cluster);
      return;
    }
    if (found.length < 2) {
      window *= 2; // one cluster fills the window: look further before cutting it
      continue;
    }
    found.pop();
    for (const cluster of found) {
      clusters.push(cluster);
      start += cluster.length;
    }
    window = WINDOW;
  }
}

/** Grapheme_Cluster_Break=Extend outside the SEGMENTER_SCRIPTS (marks, ZWNJ, emoji modifiers, tags) and ZWJ. */
const EXTEND = String.raw`[\p{M}\p{Emoji_Modifier}\u200C\u200D\uFF9E\uFF9F\u{E0020}-\u{E007F}]`;
const EXTEND_NO_ZWJ = String.raw`[\p{M}\p{Emoji_Modifier}\u200C\uFF9E\uFF9F\u{E0020}-\u{E007F}]`;
/** Grapheme_Cluster_Break=Control: breaks on both sides (GB4, GB5); ZWNJ, ZWJ and tags are Extend instead. */
const CONTROL = String.raw`(?![\u200C\u200D\u{E0020}-\u{E007F}])[\p{Cc}\p{Zl}\p{Zp}\p{Cf}]`;
/**
 * One extended grapheme cluster (UAX #29) for text outside SEGMENTER_SCRIPTS: CR LF (GB3), a control (GB4-5),
 * a flag of two regional indicators (GB12-13), an emoji ZWJ sequence (GB11), or any code point with its
 * Extend characters (GB9).
 */
const CLUSTER = new RegExp(
  String.raw`\r\n|${CONTROL}|\p{Regional_Indicator}{2}${EXTEND}*|\p{Extended_Pictographic}(?:${EXTEND_NO_ZWJ}*\u200D\p{Extended_Pictographic})*${EXTEND}*|[\s\S]${EXTEND}*`,
  'gu',
);
/**
 * Characters whose clusters need the full UAX #29 rules (Indic conjuncts GB9c, prepend marks GB9b, Hangul jamo
 * GB6-8): text holding any of them goes to `Intl.Segmenter`.
 */
const SEGMENTER_SCRIPTS = /[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u0900-\u0DFF\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF]|[\u{11000}-\u{11FFF}]/u;

/**
 * Splits text into extended grapheme clusters (UAX #29), so no emoji, flag or accented letter is ever split.
 * ASCII splits per character; Latin, Greek, Cyrillic, Arabic, CJK and emoji go through one native regex (the
 * same clusters as `Intl.Segmenter`, checked by a property test, at a fraction of its cost); scripts with
 * conjunct, prepend or jamo rules go to `Intl.Segmenter`.
 */
export function graphemes(text: string): string[] {
  if (isAscii(text) && !text.includes('\r\n')) return text.split('');
  if (!SEGMENTER_SCRIPTS.test(text)) return text.match(CLUSTER) ?? [];
  const clusters: string[] = [];
  segmentInto(clusters, text);
  return clusters;
}

/**
 * True when the code unit attaches to the character before it (combining marks, variation selectors, joiners,
 * emoji modifiers' and tags' surrogates, keycap), so that character must not be dropped, moved or separated.
 */
export function attachesToPrevious(code: number): boolean {
  return (
    (code >= 0x0300 && code <= 0x036f) ||
    (code >= 0x1ab0 && code <= 0x1aff) ||
    (code >= 0x1dc0 && code <= 0x1dff) ||
    (code >= 0x20d0 && code <= 0x20ff) ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xfe20 && code <= 0xfe2f) ||
    code === 0x200d ||
    code === 0x200c ||
    (code >= 0xd800 && code <= 0xdfff)
  );
}

/** True for A-Z and a-z. */
export function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * True when `text[index]` is an ASCII letter that stands alone as a grapheme: no mark, joiner or selector
 * follows it and no joiner precedes it. Mutators that edit letter by letter touch only these.
 */
export function isLoneAsciiLetter(text: string, index: number): boolean {
  if (!isAsciiLetter(text.charCodeAt(index))) return false;
  if (index + 1 < text.length && attachesToPrevious(text.charCodeAt(index + 1))) return false;
  return !(index > 0 && text.charCodeAt(index - 1) === 0x200d);
}

function optionError(name: string, message: string): Problem {
  return new Problem('validation_failed', { detail: `option "${name}" ${message}`, errors: [{ path: `/options/${name}`, message }] });
}

/** Reads a probability option in [0, 1]; throws 400 naming the option otherwise. */
export function rateOption(options: Record<string, unknown>, name: string, fallback: number): number {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) throw optionError(name, 'must be a number from 0 to 1');
  return value;
}

/** Reads an option that must be one of `allowed`; throws 400 listing them otherwise. */
export function choiceOption<T extends string>(options: Record<string, unknown>, name: string, allowed: readonly T[], fallback: T): T {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw optionError(name, `must be one of: ${allowed.join(', ')}`);
  return value as T;
}

/** Reads a boolean option; throws 400 otherwise. */
export function booleanOption(options: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw optionError(name, 'must be true or false');
  return value;
}

/** Reads a string option of at most `maxLength` characters; throws 400 otherwise. */
export function stringOption(options: Record<string, unknown>, name: string, maxLength = 2000): string | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) throw optionError(name, `must be a non-empty string of at most ${maxLength} characters`);
  return value;
}

/** Returns a Fisher-Yates shuffled copy of `items`, drawing from `rng`. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = rng.int(index + 1);
    const held = copy[index]!;
    copy[index] = copy[other]!;
    copy[other] = held;
  }
  return copy;
}

/**
 * Picks the positions to edit: each candidate with probability `rate`, and (unless `atLeastOne` is false) at
 * least one when `rate` > 0, so a requested perturbation always perturbs something that can be perturbed.
 */
export function pickPositions(candidates: number, rate: number, rng: Rng, atLeastOne = true): Set<number> {
  const chosen = new Set<number>();
  if (candidates === 0 || rate <= 0) return chosen;
  for (let index = 0; index < candidates; index++) if (rng.next() < rate) chosen.add(index);
  if (chosen.size === 0 && atLeastOne) chosen.add(rng.int(candidates));
  return chosen;
}

/**
 * The protected spans of `text` as a sentence for a language model's instructions (`Keep these exactly as
 * written: "Dana", "$10,000".`), or '' when there are none: an LLM-backed mutator cannot be given placeholders,
 * so it is told. At most 40 distinct values, each at most 120 characters.
 */
export function keepInstruction(text: string, spans: readonly ProtectedSpan[] | undefined, kinds?: ReadonlySet<ProtectedKind>): string {
  const values = new Set<string>();
  for (const span of spans ?? []) {
    if (kinds && !kinds.has(span.kind)) continue;
    const value = text.slice(span.start, span.end);
    if (value.length <= 120) values.add(value);
    if (values.size >= 40) break;
  }
  return values.size ? ` Keep these exactly as written: ${[...values].map((value) => JSON.stringify(value)).join(', ')}.` : '';
}
