/**
 * What the τ-bench domain shims (`tau_retail`, `tau_airline`) share: copy-on-write updates of their id-keyed
 * databases, τ-bench's refusal shape, its `calculate` tool (Python's arithmetic and number printing, without
 * `eval`), and the canonical hash the fidelity check compares databases by.
 *
 * τ-bench keeps each domain's database as objects keyed by id (`orders["#W2611340"]`), mutated in place. Here a
 * call returns a new database sharing every record it did not touch, so a 2.8 MB database costs one shallow copy
 * of the changed table and the records on the path, and the scenario's initial state is never mutated.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { shimError, type Json, type ShimOutcome } from '../../../core/shim.ts';

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** A table of a τ-bench database: records by id. */
export type Table<T extends Json = JsonObject> = { [id: string]: T };

/** A copy of `table` with `id` set to `record` (the other records shared). */
export function withRecord<T extends Json>(table: Table<T>, id: string, record: T): Table<T> {
  return { ...table, [id]: record };
}

/** The record of `table` with `id`, or undefined (own keys only: `__proto__` or `toString` are not records). */
export function recordOf<T extends Json>(table: Table<T>, id: unknown): T | undefined {
  return typeof id === 'string' && Object.hasOwn(table, id) ? table[id] : undefined;
}

/**
 * A refusal with τ-bench's own message (its tools raise `ValueError(message)`; the agent sees
 * `Error: <message>`). Thrown inside an action and turned into a `ShimError` by `runAction`, the state unchanged.
 */
export class Refusal extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** Throws a `Refusal`: `fail('not_found', 'Order not found')`. */
export function fail(code: string, message: string): never {
  throw new Refusal(code, message);
}

/** Runs one action function; a `Refusal` it throws becomes the error outcome with the state unchanged. */
export function runAction<S extends Json>(state: S, run: () => { result: Json; state?: S }): ShimOutcome<S> {
  try {
    const outcome = run();
    return { result: outcome.result, state: outcome.state ?? state };
  } catch (error) {
    if (error instanceof Refusal) return shimError(state, error.code, error.message);
    throw error;
  }
}

/** τ-bench's `transfer_to_human_agents`: no change; the conversation ends (the action is `terminal`). */
export const TRANSFER_ACTION = {
  name: 'transfer_to_human_agents',
  description: 'Transfer the user to a human agent, with a summary of the user\'s issue. Only transfer if the user explicitly asks for a human agent, or given the policy and the available tools, you cannot solve the user\'s issue.',
  parameters: { type: 'object', required: ['summary'], properties: { summary: { type: 'string', description: 'A summary of the user\'s issue.' } }, additionalProperties: false },
  readOnly: true,
  terminal: true,
} as const;

/** τ-bench's `calculate` tool definition (both domains). */
export const CALCULATE_ACTION = {
  name: 'calculate',
  description: 'Calculate the result of a mathematical expression.',
  parameters: { type: 'object', required: ['expression'], properties: { expression: { type: 'string', maxLength: 1000, description: "The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces." } }, additionalProperties: false },
  readOnly: true,
} as const;

export { calculate, roundMoney } from './calculate.ts';

// Records a call did not touch are the same objects in every later state, so their canonical text is kept by
// identity: hashing a database after a call re-serialises only what the call replaced.
const canonicalText = new WeakMap<object, string>();

/**
 * The canonical form of a τ-bench database the fidelity check hashes: RFC 8785 (JCS) JSON with null object
 * members dropped, so Pydantic's `model_dump()` (which spells absent optional fields as null and integral
 * floats as `100.0`) and our states (which omit them, and have one number type) agree on equal databases.
 * Keys sort by UTF-16 code units and numbers and strings print as ECMAScript's JSON does, as JCS specifies.
 */
export function canonicalDb(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    if (text === undefined || (typeof value === 'number' && !Number.isFinite(value))) throw new TypeError('value has no JSON form');
    return text;
  }
  const cached = canonicalText.get(value);
  if (cached !== undefined) return cached;
  let text: string;
  if (Array.isArray(value)) text = `[${value.map(canonicalDb).join(',')}]`;
  else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => record[key] !== null && record[key] !== undefined).sort();
    text = `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalDb(record[key])}`).join(',')}}`;
  }
  canonicalText.set(value, text);
  return text;
}

/** SHA-256 (hex) of `canonicalDb(db)`. */
export function dbHash(db: unknown): string {
  const bytes = sha256(new TextEncoder().encode(canonicalDb(db)));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Python's `json.dumps(value, sort_keys=True)` of a flat object of strings (`", "` and `": "`, non-ASCII escaped). */
export function pyJsonStringMap(value: Record<string, string>): string {
  const text = (s: string) => JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${text(key)}: ${text(value[key])}`).join(', ')}}`;
}

/** How many times each string occurs in `values`. */
export function countsOf(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
