/**
 * What a mutation must leave as it is (issue 16 item 5, "mutations keep their meaning"): the spans of a task
 * input its outcome hinges on. Computed here once for every mutator; `mutateScenario` (mutation.ts) hides them
 * from mutators that edit in place and tells mutators that transform the whole message where they are.
 *
 * - `expected`: the task's own `expected` values (`equals`, `contains`, literal runs of `regex`) and the string
 *   values its `expected_outcome` checks for;
 * - `metric_param`: every string its metrics' params name (canaries, counterfactual attributes, markers…) and
 *   the tools it names;
 * - `quoted`: text in quotes or backticks; `url` and `email`;
 * - `number` and `code`: numbers with their separators and currency (`$10,000`, `4111 1111 1111 1111`), number
 *   words (`seven`), tokens with a digit (`87T`, `CLOSED-FP-0001`);
 * - `name`: capitalised words inside a sentence, acronyms and mixed case (`Dana`, `AES`, `iPhone`);
 * - `harm_term`: the words and phrases that make a request harmful (protected-terms.ts).
 */
import type { ProtectedKind, ProtectedSpan } from '../mutator.ts';
import type { ScenarioTask } from './scenario.ts';
import { HARM_PHRASES, HARM_STEMS, HARM_WORDS, NUMBER_WORDS } from './protected-terms.ts';

/** A string the task's checks look for, and why. */
export interface TaskLiteral {
  value: string;
  kind: 'expected' | 'metric_param';
}

/** Longer strings (rubrics, whole counterfactual inputs) are not looked for in the input. */
const MAX_LITERAL = 500;
const MAX_QUOTED = 300;
/** More spans than this in one input are not all protected: the placeholders (Private Use Area) would run out. */
export const MAX_PROTECTED_SPANS = 4096;

const QUOTED = new RegExp(String.raw`"[^"\n]{1,${MAX_QUOTED}}"|“[^”\n]{1,${MAX_QUOTED}}”|„[^“”\n]{1,${MAX_QUOTED}}[“”]|«[^»\n]{1,${MAX_QUOTED}}»|‘[^’\n]{1,${MAX_QUOTED}}’|\x60[^\x60\n]{1,${MAX_QUOTED}}\x60|(?<![\p{L}\p{N}])'(?:[^'\n]|'(?=\p{L})){1,${MAX_QUOTED}}'(?![\p{L}\p{N}])`, 'gu');
const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"'`]{1,2000}/giu;
const EMAIL = /[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,8}/gu;
/**
 * A token with currency signs, separators and suffixes (`$48,000`, `2026-03-01`, `87T`); those holding a digit
 * are protected. Matched as tokens first, so a megabyte without a digit costs one pass (a pattern that looked
 * for the digit inside a run of letters backtracked over the whole run at every start: quadratic).
 */
const TOKEN = /[$€£¥#+]?[\p{L}\p{N}]+(?:[-_.,:/'’][\p{L}\p{N}]+)*%?/gu;
const DIGIT = /\p{N}/u;
const WORD = /[\p{L}\p{M}]+(?:[-'’][\p{L}\p{M}]+)*/gu;
const HARM_PHRASE = new RegExp(`(?<![\\p{L}\\p{N}])(?:${HARM_PHRASES.map((phrase) => `${phrase.split(' ').map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s{1,8}')}s?`).join('|')})(?![\\p{L}\\p{N}])`, 'giu');
const WORD_CHAR = /[\p{L}\p{N}]/u;
const PRONOUN_I = new Set(['I', "I'm", "I'd", "I'll", "I've", 'I’m', 'I’d', 'I’ll', 'I’ve']);
const NUMBERS = new Set(NUMBER_WORDS);
const HARM = new Set(HARM_WORDS);
const PRIORITY: readonly ProtectedKind[] = ['expected', 'metric_param', 'harm_term', 'quoted', 'url', 'email', 'number', 'code', 'name'];

/** The literal runs of a regular expression (`refunds? (issued|sent)` → `refund`, `issued`, `sent`). */
function regexLiterals(source: string): string[] {
  const literals: string[] = [];
  let run = '';
  const flush = () => {
    if (run.trim().length >= 3) literals.push(run.trim());
    run = '';
  };
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!;
    if (char === '\\') {
      const next = source[++index] ?? '';
      if (/[A-Za-z0-9]/.test(next)) flush();
      else run += next;
    } else if (char === '[') {
      flush();
      while (index < source.length && source[index] !== ']') index += source[index] === '\\' ? 2 : 1;
    } else if (char === '(' && source[index + 1] === '?') {
      // A group's prefix (`(?:`, `(?=`, `(?<name>`) is syntax, not text.
      flush();
      const named = /^\(\?(?:<[A-Za-z_$][\w$]*>|<=|<!|[:=!])/.exec(source.slice(index));
      index += (named?.[0].length ?? 2) - 1;
    } else if ('^$.|?*+(){}'.includes(char)) {
      // A quantifier makes the character before it optional: it is not part of the literal.
      if ('?*{'.includes(char)) run = run.slice(0, -1);
      flush();
    } else run += char;
  }
  flush();
  return literals;
}

function stringsIn(value: unknown, into: string[], depth = 0): void {
  if (typeof value === 'string') into.push(value);
  else if (value && typeof value === 'object' && depth < 8) for (const item of Object.values(value)) stringsIn(item, into, depth + 1);
}

/** The strings a task's checks look for: expected values, regex literals, metric params and tool names. */
export function taskLiterals(task: ScenarioTask): TaskLiteral[] {
  const expected: string[] = [];
  for (const key of ['equals', 'contains'] as const) if (typeof task.expected?.[key] === 'string') expected.push(task.expected[key]!);
  if (typeof task.expected?.regex === 'string') expected.push(...regexLiterals(task.expected.regex));
  for (const assertion of task.expected_outcome ?? []) stringsIn(assertion.expected, expected);
  const params: string[] = [...(task.tools ?? []), ...(task.required_tools ?? []), ...(task.forbidden_tools ?? [])];
  for (const ref of task.metrics ?? []) stringsIn(ref.params, params);
  const usable = (value: string) => value.trim().length > 0 && value.length <= MAX_LITERAL;
  return [
    ...expected.filter(usable).map((value) => ({ value: value.trim(), kind: 'expected' as const })),
    ...params.filter(usable).map((value) => ({ value: value.trim(), kind: 'metric_param' as const })),
  ];
}

function literalSpans(text: string, literals: readonly TaskLiteral[], push: (start: number, end: number, kind: ProtectedKind) => void): void {
  let lower = text.toLowerCase();
  // Offsets must hold: where lower case changes the length (`İ`), those characters are kept as they are.
  if (lower.length !== text.length) lower = Array.from(text, (char) => (char.toLowerCase().length === char.length ? char.toLowerCase() : char)).join('');
  for (const { value, kind } of literals) {
    const needle = value.toLowerCase();
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
      const end = at + needle.length;
      // Short values (`he`, `Mr`) count as whole words only.
      if (needle.length < 4 && ((at > 0 && WORD_CHAR.test(text[at - 1]!)) || (end < text.length && WORD_CHAR.test(text[end]!)))) continue;
      push(at, end, kind);
    }
  }
}

function isHarmTerm(lower: string): boolean {
  const singular = lower.endsWith('es') ? lower.slice(0, -2) : lower.endsWith('s') ? lower.slice(0, -1) : lower;
  if (HARM.has(lower) || HARM.has(singular)) return true;
  return lower.split(/[-'’]/).some((part) => HARM_STEMS.some((stem) => part.startsWith(stem))) || HARM_STEMS.some((stem) => stem.includes('-') && lower.startsWith(stem));
}

/** True when the word at `index` starts a sentence (or a line): its capital says nothing about it being a name. */
function startsSentence(text: string, index: number): boolean {
  let at = index - 1;
  while (at >= 0 && /[\s"'“‘«(\[]/.test(text[at]!)) {
    if (text[at] === '\n') return true;
    at--;
  }
  return at < 0 || /[.!?:;…]/.test(text[at]!);
}

function wordSpans(text: string, push: (start: number, end: number, kind: ProtectedKind) => void): void {
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const start = match.index!;
    const lower = word.toLowerCase();
    // A compound with a number word in it (`twenty-one`, `one-sentence`, `seven-year-old`) is protected whole.
    if (NUMBERS.has(lower) || lower.split(/-/).some((part) => NUMBERS.has(part))) push(start, start + word.length, 'number');
    else if (isHarmTerm(lower)) push(start, start + word.length, 'harm_term');
    else if (PRONOUN_I.has(word)) continue;
    else if (/\p{Lu}/u.test(word.slice(1)) || (/^\p{Lu}/u.test(word) && !startsSentence(text, start))) push(start, start + word.length, 'name');
  }
}

function patternSpans(text: string, push: (start: number, end: number, kind: ProtectedKind) => void): void {
  for (const match of text.matchAll(QUOTED)) push(match.index!, match.index! + match[0].length, 'quoted');
  for (const match of text.matchAll(HARM_PHRASE)) push(match.index!, match.index! + match[0].length, 'harm_term');
  for (const match of text.matchAll(URL_PATTERN)) push(match.index!, match.index! + match[0].replace(/[.,;:!?)\]}]+$/, '').length, 'url');
  for (const match of text.matchAll(EMAIL)) push(match.index!, match.index! + match[0].length, 'email');
  for (const match of text.matchAll(TOKEN)) {
    if (!DIGIT.test(match[0])) continue;
    const start = match.index!;
    const end = start + match[0].replace(/[.,:]+$/, '').length;
    push(start, end, /^[$€£¥#+]?[\p{N}.,:/'’-]+%?$/u.test(match[0]) ? 'number' : 'code');
  }
}

/**
 * Merges overlapping spans, and spans one space apart (`Dana Ortiz`, `DE89 3704 0044…`, `AB 12 34 56 C`: a
 * changed gap inside would break a name or a number a detector reads whole); the earlier kind in PRIORITY names
 * the merged span. Keeps at most MAX_PROTECTED_SPANS.
 */
function merged(text: string, spans: ProtectedSpan[]): ProtectedSpan[] {
  const sorted = spans.filter((span) => span.end > span.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const out: ProtectedSpan[] = [];
  for (const span of sorted) {
    const last = out[out.length - 1];
    if (last && (span.start < last.end || (span.start === last.end + 1 && text[last.end] === ' '))) {
      last.end = Math.max(last.end, span.end);
      if (PRIORITY.indexOf(span.kind) < PRIORITY.indexOf(last.kind)) last.kind = span.kind;
    } else out.push({ ...span });
  }
  if (out.length <= MAX_PROTECTED_SPANS) return out;
  return out
    .map((span, position) => ({ span, position }))
    .sort((a, b) => PRIORITY.indexOf(a.span.kind) - PRIORITY.indexOf(b.span.kind) || a.position - b.position)
    .slice(0, MAX_PROTECTED_SPANS)
    .sort((a, b) => a.position - b.position)
    .map(({ span }) => span);
}

/** The protected spans of `text` (a task's input, or what an earlier mutator of a chain made of it), in order. */
export function protectedSpans(text: string, literals: readonly TaskLiteral[] = []): ProtectedSpan[] {
  const spans: ProtectedSpan[] = [];
  const push = (start: number, end: number, kind: ProtectedKind) => spans.push({ start, end, kind });
  literalSpans(text, literals, push);
  patternSpans(text, push);
  wordSpans(text, push);
  return merged(text, spans);
}
