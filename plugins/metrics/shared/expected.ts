/**
 * Checks an output against a task's `expected` (`equals`, `contains`, `regex`, `json_schema`), shared by
 * `task_success`, `counterfactual_parity` and `robustness`. `rubric` is an LLM judge's business, not this.
 *
 * Scenario-supplied patterns are untrusted: regexes run on RE2 (re2js), whose matching is linear in the input
 * whatever the pattern, so `(a+)+$` cannot stall the engine; the same engine serves JSON Schema `pattern`s.
 * Scenario-supplied schemas compile in their own ajv instance (a scenario `$id` cannot shadow ours), cached by
 * content and evicted so 10,000 runs do not grow memory.
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import type { Expected } from '../../../core/domain/scenario.ts';
import { fieldErrors, describeErrors } from '../../../core/validate.ts';
import { createAjv } from '../../../core/schema-compiler.ts';
import type { FieldError } from '../../../core/problems.ts';
import { collapseWhitespace, excerpt } from './text.ts';

/** Longest output a regex check reads; beyond it the check is skipped, never silently truncated. */
export const REGEX_INPUT_LIMIT = 1_000_000;
const CACHE_SIZE = 128;

export type CheckKind = 'equals' | 'contains' | 'regex' | 'json_schema';

export interface ExpectationCheck {
  check: CheckKind;
  /** `null` when the check could not run (invalid pattern or schema, output too long). */
  passed: boolean | null;
  /** Taxonomy code when it failed. */
  code?: 'LOGIC.TASK_FAILED' | 'LOGIC.OUTPUT_NOT_JSON' | 'LOGIC.SCHEMA_MISMATCH';
  detail: string;
  errors?: FieldError[];
}

export interface ExpectationOutcome {
  /** False when no check could run (no expectation, rubric only, or every check invalid). */
  measured: boolean;
  passed: boolean;
  checks: ExpectationCheck[];
}

export interface ExpectationOptions {
  /** Compare `equals` and `contains` case-sensitively (default false). */
  caseSensitive?: boolean;
  /** Collapse runs of whitespace and trim before comparing (default true). */
  normalizeWhitespace?: boolean;
  /** Flags for `regex`: any of `i`, `m`, `s` (default none). */
  regexFlags?: string;
  /** Look for a JSON value inside prose or a fenced block when the whole output is not JSON (default true). */
  extractJson?: boolean;
}

function lru<V>(onEvict?: (key: string, value: V) => void) {
  const entries = new Map<string, V>();
  return {
    get(key: string): V | undefined {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key: string, value: V): void {
      entries.set(key, value);
      if (entries.size > CACHE_SIZE) {
        const [oldest, evicted] = entries.entries().next().value as [string, V];
        entries.delete(oldest);
        onEvict?.(oldest, evicted);
      }
    },
  };
}

const regexCache = lru<RE2JS | Error>();

/** Compiles a pattern with RE2 semantics (no backreferences or lookaround); an `Error` when it cannot. */
export function compileSafeRegex(pattern: string, flags = ''): RE2JS | Error {
  const key = `${flags}/${pattern}`;
  let compiled = regexCache.get(key);
  if (!compiled) {
    let mask = 0;
    if (flags.includes('i')) mask |= RE2JS.CASE_INSENSITIVE;
    if (flags.includes('m')) mask |= RE2JS.MULTILINE;
    if (flags.includes('s')) mask |= RE2JS.DOTALL;
    try {
      compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), mask);
    } catch (error) {
      compiled = new Error(`regex is not supported by the linear-time engine: ${(error as Error).message}`);
    }
    regexCache.set(key, compiled);
  }
  return compiled;
}

/** ajv's pattern engine backed by RE2, so a schema's `pattern` is as safe as `regex`. */
const re2Engine = Object.assign(
  (pattern: string, unicode: string) => {
    const compiled = compileSafeRegex(pattern);
    if (compiled instanceof Error) throw compiled;
    return { test: (input: string) => compiled.test(input), toString: () => `re2:/${pattern}/${unicode}` };
  },
  { code: 're2js' },
);

let ajv: Ajv2020 | undefined;
const schemaCache = lru<{ schema: object; validate: ValidateFunction } | Error>((_key, entry) => {
  if (!(entry instanceof Error)) ajv?.removeSchema(entry.schema);
});

function schemaValidator(schema: Record<string, unknown>): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  const cached = schemaCache.get(key);
  if (cached) return cached instanceof Error ? cached : cached.validate;
  try {
    // ajv loads on the first scenario schema (core/schema-compiler.ts); where it cannot, the check says why.
    ajv ??= createAjv({ allErrors: true, strict: false, allowUnionTypes: true, addUsedSchema: false, code: { regExp: re2Engine } });
    const validate = ajv.compile(schema);
    schemaCache.set(key, { schema, validate });
    return validate;
  } catch (error) {
    const failure = new Error(`expected.json_schema does not compile: ${(error as Error).message}`);
    schemaCache.set(key, failure);
    return failure;
  }
}

/**
 * Loads ajv and runs its first compile, the code generator's cold start (about 100 ms together on a quiet
 * machine, far more on a busy one), so that a scenario's first `json_schema` check is not charged for them
 * within the metric budget: the metrics that check expectations run this as their `warm`. Where ajv cannot
 * load, the check itself says so later.
 */
export function warmSchemaChecks(): void {
  schemaValidator(WARM_SCHEMA);
}

/** True when the task's expectation has a `json_schema` check, the only one `warmSchemaChecks` prepares (`Metric.warmsFor`). */
export function needsSchemaChecks(task: { expected?: Expected }): boolean {
  return typeof task.expected?.json_schema === 'object' && task.expected.json_schema !== null;
}

/** True once the schema checks' ajv instance exists (warmed, or built by a first check): for tests. */
export function schemaChecksReady(): boolean {
  return ajv !== undefined;
}

const WARM_SCHEMA = { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' }, at: { type: 'string', format: 'date-time' } } };

/**
 * Parses JSON from an output: the whole text, else a fenced ```json block, else the span from the first
 * `{`/`[` to the last `}`/`]`. `undefined` when none parses.
 */
export function extractJson(output: string, lenient = true): { value: unknown } | undefined {
  const attempt = (text: string): { value: unknown } | undefined => {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return undefined;
    }
  };
  const whole = attempt(output.trim());
  if (whole || !lenient) return whole;
  const fence = /```(?:json)?[ \t]*\r?\n([\s\S]*?)```/i.exec(output);
  if (fence) {
    const fenced = attempt(fence[1].trim());
    if (fenced) return fenced;
  }
  const start = output.search(/[{[]/);
  const end = Math.max(output.lastIndexOf('}'), output.lastIndexOf(']'));
  return start >= 0 && end > start ? attempt(output.slice(start, end + 1)) : undefined;
}

function normalise(text: string, { caseSensitive = false, normalizeWhitespace = true }: ExpectationOptions): string {
  let result = text.normalize('NFC');
  if (normalizeWhitespace) result = collapseWhitespace(result).trim();
  return caseSensitive ? result : result.toLowerCase();
}

/** True when the expectation has something this module can check (not only a rubric). */
export function hasCheckableExpectation(expected: Expected | undefined): boolean {
  return !!expected && (typeof expected.equals === 'string' || typeof expected.contains === 'string' || typeof expected.regex === 'string' || (typeof expected.json_schema === 'object' && expected.json_schema !== null));
}

/** Runs every check the expectation names; `passed` when every check that could run passed. */
export function checkExpected(expected: Expected | undefined, output: string, options: ExpectationOptions = {}): ExpectationOutcome {
  const checks: ExpectationCheck[] = [];
  if (!expected || !hasCheckableExpectation(expected)) return { measured: false, passed: false, checks };
  if (typeof expected.equals === 'string') {
    const passed = normalise(output, options) === normalise(expected.equals, options);
    checks.push({ check: 'equals', passed, ...(passed ? {} : { code: 'LOGIC.TASK_FAILED' as const }), detail: passed ? 'output equals the expected value' : `output does not equal "${excerpt(expected.equals, 80)}"` });
  }
  if (typeof expected.contains === 'string') {
    const passed = normalise(output, options).includes(normalise(expected.contains, options));
    checks.push({ check: 'contains', passed, ...(passed ? {} : { code: 'LOGIC.TASK_FAILED' as const }), detail: passed ? 'output contains the expected value' : `output does not contain "${excerpt(expected.contains, 80)}"` });
  }
  if (typeof expected.regex === 'string') {
    const compiled = compileSafeRegex(expected.regex, options.regexFlags ?? '');
    if (compiled instanceof Error) checks.push({ check: 'regex', passed: null, detail: compiled.message });
    else if (output.length > REGEX_INPUT_LIMIT) checks.push({ check: 'regex', passed: null, detail: `output is ${output.length} characters, over the ${REGEX_INPUT_LIMIT} a regex check reads` });
    else {
      const passed = compiled.test(output);
      checks.push({ check: 'regex', passed, ...(passed ? {} : { code: 'LOGIC.TASK_FAILED' as const }), detail: passed ? 'output matches the expected pattern' : `output does not match /${excerpt(expected.regex, 80)}/` });
    }
  }
  if (typeof expected.json_schema === 'object' && expected.json_schema !== null) {
    const validate = schemaValidator(expected.json_schema);
    if (validate instanceof Error) checks.push({ check: 'json_schema', passed: null, detail: validate.message });
    else {
      const parsed = extractJson(output, options.extractJson ?? true);
      if (!parsed) checks.push({ check: 'json_schema', passed: false, code: 'LOGIC.OUTPUT_NOT_JSON', detail: 'no JSON value could be parsed from the output' });
      else if (validate(parsed.value)) checks.push({ check: 'json_schema', passed: true, detail: 'output validates against the expected schema' });
      else {
        const errors = fieldErrors(validate.errors).slice(0, 10);
        checks.push({ check: 'json_schema', passed: false, code: 'LOGIC.SCHEMA_MISMATCH', detail: `output violates the expected schema: ${describeErrors(errors)}`, errors });
      }
    }
  }
  const ran = checks.filter((check) => check.passed !== null);
  return { measured: ran.length > 0, passed: ran.length > 0 && ran.every((check) => check.passed), checks };
}
