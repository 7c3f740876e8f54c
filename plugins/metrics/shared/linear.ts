/**
 * Linear-time patterns for the detectors that read agent output (`refusal`, `harmful_content`): RE2 (`re2js`),
 * whose matching time is linear in the text whatever the pattern, so a hostile answer cannot stall a metric
 * (issue 13). RE2 has no lookaround: a pattern that needs context checks it in code around the match.
 * RE2 in JavaScript costs tens of microseconds per kilobyte, so callers run these patterns on short spans
 * (an answer's opening and closing sentences, or the sentences a literal prefilter picked) rather than on
 * whole answers.
 */
import { RE2JS } from 're2js';

/** A match: where it starts in the text and what it matched. */
export interface LinearMatch {
  index: number;
  text: string;
}

/** A compiled RE2 pattern with the two operations the detectors use. */
export interface LinearPattern {
  readonly source: string;
  /** The first match at or after `from`, or undefined. */
  find(text: string, from?: number): LinearMatch | undefined;
  test(text: string): boolean;
}

/** Every pattern made by `linear`, so a test can compile them all (they compile on first use). */
const made: Array<() => unknown> = [];

/**
 * A linear-time pattern for `source` (RE2 syntax, matched against folded text). It is compiled on first use:
 * the detectors define hundreds of patterns at import, most behind literal gates that seldom open, and compiling
 * them all was a sixth of the service's start (and of every metric worker's).
 */
export function linear(source: string): LinearPattern {
  let compiled: RE2JS | undefined;
  const program = () => (compiled ??= RE2JS.compile(source));
  made.push(program);
  return {
    source,
    find(text, from = 0) {
      const matcher = program().matcher(text);
      if (!matcher.find(from)) return undefined;
      return { index: matcher.start(), text: matcher.group() ?? '' };
    },
    test(text) {
      return program().matcher(text).find();
    },
  };
}

/** Compiles every pattern made so far; throws on the first RE2 refuses (tests: none may fail on first use). */
export function compileAllPatterns(): number {
  for (const program of made) program();
  return made.length;
}

/** Compiles alternatives into one pattern (`(?:a)|(?:b)`): one pass over the text instead of one per pattern. */
export function anyOf(sources: readonly string[]): LinearPattern {
  return linear(sources.map((source) => `(?:${source})`).join('|'));
}
