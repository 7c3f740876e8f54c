/**
 * AES v1.4 `expected_outcome` → the scenario's `expected` (api-contract.md, "AES v1.4 scenarios").
 * In the published AES catalog almost every outcome is a sentence of prose even where `mode` says `regex`
 * ("Specialist confirms the employee meets the 1-year service requirement."): compiled as a regex it would
 * never match, so prose becomes `expected.rubric`, scored by an LLM judge, and only real patterns become
 * `regex`. Values an output can be checked against mechanically become `equals`/`contains`/`regex`/`json_schema`.
 */
import { RE2JS } from 're2js';
import type { Expected } from '../../core/domain/scenario.ts';

/** One entry of an AES node's `expected_outcome`. */
export interface AesOutcome {
  target?: string;
  property?: string;
  expected?: unknown;
  mode?: string;
  tolerance?: number;
}

// Constructs only regex authors write; prose never contains them.
// `\([^()|]*\|` takes the first `|` after a `(`: with `[^()]*` there, `(` and a long run of `|` were quadratic.
const REGEX_ONLY = /\\[dDwWsSbB]|\(\?[:=!<]|\([^()|]*\|[^()]*\)|\.\*|\.\+|\[\^?[A-Za-z0-9]-[A-Za-z0-9]\]|\{\d+(,\d*)?\}|^\^|\$$/;
const MAX_REGEX = 2000;

/** Runs of at least two letters, counted up to `limit`: the measure of "is this a sentence". */
function wordCount(text: string, limit: number): number {
  // A plain loop: this runs for every outcome of every catalog file at start-up.
  let words = 0;
  let run = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const letter = (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code >= 0xc0;
    if (letter) {
      run += 1;
      if (run === 2 && ++words >= limit) return words;
    } else run = 0;
  }
  return words;
}

/**
 * True when `text` is natural language rather than a pattern: three or more words, or two ending like a
 * sentence, and none of the constructs only a regex would contain.
 */
export function looksLikeProse(text: string): boolean {
  const trimmed = text.trim();
  if (REGEX_ONLY.test(trimmed)) return false;
  const words = wordCount(trimmed, 3);
  return words >= 3 || (words >= 2 && /[.!?]$/.test(trimmed));
}

/** True when `text` compiles as RE2 (what `task_success` matches with: linear time, no lookaround). */
function compiles(text: string): boolean {
  if (text.length === 0 || text.length > MAX_REGEX) return false;
  try {
    RE2JS.compile(text);
    return true;
  } catch {
    return false;
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The number as a whole token (`129.99` but not `1129.99`); RE2 has no lookbehind, so the borders are groups. */
function numberPattern(number: string): string {
  return `(^|[^0-9.])${escapeRegex(number)}($|[^0-9])`;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `$.a.b`, `a.b` or `/a/b` as property names, or `null` when the path needs a real JSONPath engine. */
function propertyPath(property: string): string[] | null {
  const trimmed = property.trim();
  const parts = trimmed.startsWith('/') ? trimmed.slice(1).split('/') : trimmed.replace(/^\$\.?/, '').split('.');
  return parts.length > 0 && parts.every((part) => /^[A-Za-z_][A-Za-z0-9_-]*$/.test(part)) ? parts : null;
}

/** A JSON Schema requiring `value` at `path` of a JSON output. */
function schemaAt(path: string[], value: unknown): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>(
    (inner, key) => ({ type: 'object', required: [key], properties: { [key]: inner } }),
    { const: value },
  );
}

/** Builds `expected` from a node's outcomes; `undefined` when there is nothing to check. */
export function outcomesToExpected(outcomes: AesOutcome[] | undefined): Expected | undefined {
  const equals: string[] = [];
  const patterns: string[] = [];
  const schemas: Record<string, unknown>[] = [];
  const rubric: string[] = [];

  for (const outcome of outcomes ?? []) {
    const value = outcome.expected;
    if (value === undefined || value === null || value === '') continue;
    const target = outcome.target?.trim() || 'message';
    const mode = outcome.mode ?? 'exact';
    // State assertions (`shim:loan_db`) are not visible in the output: only a judge reading the trace can weigh them.
    if (target !== 'message') {
      rubric.push(`The ${target} state${outcome.property ? ` at ${outcome.property}` : ''} ends up as: ${describe(value)}`);
      continue;
    }
    if (outcome.property) {
      const path = propertyPath(outcome.property);
      if (path && mode !== 'regex') schemas.push(schemaAt(path, value));
      else rubric.push(`The output's ${outcome.property} ${mode === 'regex' ? 'matches' : 'is'} ${describe(value)}`);
      continue;
    }
    if (typeof value !== 'string') {
      if (mode === 'numerical_tolerance' && typeof value === 'number') patterns.push(numberPattern(String(value)));
      else schemas.push({ const: value });
      continue;
    }
    if (looksLikeProse(value)) rubric.push(value.trim());
    else if (mode === 'regex' && compiles(value)) patterns.push(value);
    else if (mode === 'regex') rubric.push(value.trim());
    else if (mode === 'numerical_tolerance') patterns.push(numberPattern(value.trim()));
    else equals.push(value);
  }

  const expected: Expected = {};
  // Two different exact answers cannot both hold; the first is checked, the rest are left to the judge.
  if (equals.length) expected.equals = equals[0];
  for (const extra of equals.slice(1)) if (extra !== equals[0]) rubric.push(`The answer is exactly: ${extra}`);
  // RE2 cannot require several patterns at once (no lookahead): the first is checked, the rest go to the judge.
  if (patterns.length) expected.regex = patterns[0];
  for (const pattern of patterns.slice(1)) rubric.push(`The output matches the pattern /${pattern}/`);
  if (schemas.length === 1) expected.json_schema = schemas[0];
  else if (schemas.length > 1) expected.json_schema = { allOf: schemas };
  if (rubric.length === 1) expected.rubric = rubric[0];
  else if (rubric.length > 1) expected.rubric = rubric.map((line) => `- ${line}`).join('\n');
  return Object.keys(expected).length ? expected : undefined;
}
