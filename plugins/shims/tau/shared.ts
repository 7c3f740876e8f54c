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
import type { JsonSchema } from '../../../core/validate.ts';
import { calculate } from './calculate.ts';
import { pointerSegment, stateDiffInto, type PatchOperation } from '../../../core/domain/state-diff.ts';

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** Records by id, as τ-bench keeps them (small ones stay so in our states too: payment methods, variants, dates). */
export type Keyed<T extends Json = JsonObject> = { [id: string]: T };

/** A copy of `keyed` with `id` set to `record` (the other records shared). */
export function withKey<T extends Json>(keyed: Keyed<T>, id: string, record: T): Keyed<T> {
  return { ...keyed, [id]: record };
}

/** The record of `keyed` with `id`, or undefined (own keys only: `__proto__` or `toString` are not records). */
export function keyOf<T extends Json>(keyed: Keyed<T>, id: unknown): T | undefined {
  return typeof id === 'string' && Object.hasOwn(keyed, id) ? keyed[id] : undefined;
}

// Each version of a big table shares its id → position index with the version it came from whenever the call
// only replaced records (positions unchanged), so a lookup stays one Map access and a write one array copy.
const indexes = new WeakMap<readonly JsonObject[], Map<string, number>>();
/** Each table's keyed form, kept while the table lives: an unchanged table keeps its view (world.json diffs compare by identity). */
const keyedForms = new WeakMap<readonly JsonObject[], Keyed<JsonObject>>();

/** A big table of a τ-bench database (orders, users, flights, …) and how its records are identified. */
export interface Table<T extends JsonObject> {
  /** The id field of its records (`order_id`), equal to their key in τ-bench's JSON. */
  idField: string;
  /** How τ-bench publishes the table: an object keyed by id (retail, airline) or a list (telecom). */
  published: 'keyed' | 'list';
  get(rows: readonly T[], id: unknown): T | undefined;
  /** A copy of `rows` with `record` in place of the one with its id, or appended; the other records shared. */
  put(rows: readonly T[], record: T): T[];
  /** τ-bench's keyed form to ours, refusing a record whose id field is not its key. */
  fromKeyed(keyed: Keyed<T> | readonly T[], name: string): T[];
  toKeyed(rows: readonly T[]): Keyed<T> | T[];
  /** Appends to `operations` the diff at `path` from `before`'s view (`toKeyed`) to `after`'s. */
  viewDiff(before: readonly T[], after: readonly T[], path: string, operations: PatchOperation[]): void;
}

/**
 * A big table held as an array of records in τ-bench's order. Copying an object of 1,000 keys costs hundreds of
 * microseconds (V8 keeps such objects as hash tables); copying an array of 1,000 references costs about one, so
 * a call that changes one order stays far inside the shim-call budget. The view shows τ-bench's keyed form, or
 * with `published: 'list'` its list (telecom's tables are pydantic lists, searched first match first).
 */
export function table<T extends JsonObject>(idField: string, published: 'keyed' | 'list' = 'keyed'): Table<T> {
  const indexOf = (rows: readonly T[]) => {
    let index = indexes.get(rows);
    if (!index) {
      // The first record with an id wins, as τ-bench's lookups of a list return the first match.
      index = new Map();
      rows.forEach((row, position) => {
        if (!index!.has(row[idField] as string)) index!.set(row[idField] as string, position);
      });
      indexes.set(rows, index);
    }
    return index;
  };
  return {
    idField,
    published,
    get(rows, id) {
      const position = typeof id === 'string' ? indexOf(rows).get(id) : undefined;
      return position === undefined ? undefined : rows[position];
    },
    put(rows, record) {
      const index = indexOf(rows);
      const id = record[idField] as string;
      const position = index.get(id);
      const copy = rows.slice();
      if (position !== undefined) {
        copy[position] = record;
        indexes.set(copy, index);
      } else {
        copy.push(record);
        indexes.set(copy, new Map(index).set(id, copy.length - 1));
      }
      return copy;
    },
    fromKeyed(keyed, name) {
      if (published === 'list') {
        if (!Array.isArray(keyed)) throw new Error(`${name} must be a list of records`);
        return keyed.map((record, position) => {
          if (record === null || typeof record !== 'object' || Array.isArray(record) || typeof record[idField] !== 'string') throw new Error(`${name}[${position}] must be an object with a string ${idField}`);
          return record;
        });
      }
      return Object.entries(keyed as Keyed<T>).map(([id, record]) => {
        if (record === null || typeof record !== 'object' || record[idField] !== id) throw new Error(`${name}["${id}"] must be an object whose ${idField} is "${id}"`);
        return record;
      });
    },
    toKeyed(rows) {
      if (published === 'list') return rows as T[];
      let keyed = keyedForms.get(rows) as Keyed<T> | undefined;
      if (!keyed) {
        keyed = {};
        for (const row of rows) keyed[row[idField] as string] = row;
        keyedForms.set(rows, keyed as Keyed<JsonObject>);
      }
      return keyed;
    },
    viewDiff(before, after, path, operations) {
      if (before === after) return;
      if (published === 'list') return stateDiffInto(before, after, path, operations);
      if (!keyedChanges(idField, indexOf(before), before, after, path, operations)) stateDiffInto(this.toKeyed(before), this.toKeyed(after), path, operations);
    },
  };
}

/**
 * The keyed views' diff from the arrays, when `after` is `before` with records replaced in place (same id)
 * and new ids appended, as `put` makes it, and `before` has no id twice; false otherwise (then the views are
 * diffed; `index` is `before`'s id → position index). The operations come in the views' own key order (a
 * JavaScript object's: integer-like ids first, ascending, then the others as inserted), which objects of the
 * changed and added ids reproduce.
 */
function keyedChanges<T extends JsonObject>(idField: string, index: ReadonlyMap<string, number>, before: readonly T[], after: readonly T[], path: string, operations: PatchOperation[]): boolean {
  if (index.size !== before.length || after.length < before.length) return false;
  const changed: Record<string, number> = Object.create(null);
  for (let position = 0; position < before.length; position++) {
    if (before[position] === after[position]) continue;
    const id = before[position]![idField] as string;
    if (after[position]![idField] !== id) return false;
    changed[id] = position;
  }
  const added: Record<string, number> = Object.create(null);
  for (let position = before.length; position < after.length; position++) {
    const id = after[position]![idField] as string;
    if (typeof id !== 'string' || index.has(id) || id in added) return false;
    added[id] = position;
  }
  for (const id in changed) stateDiffInto(before[changed[id]!], after[changed[id]!], `${path}/${pointerSegment(id)}`, operations);
  for (const id in added) operations.push({ op: 'add', path: `${path}/${pointerSegment(id)}`, value: after[added[id]!] });
  return true;
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

export { calculate, pyFloatString, roundMoney } from './calculate.ts';

/** τ-bench's `calculate` tool as an action: the result, or its error message as an `invalid` refusal. */
export function calculateAction(params: Record<string, unknown>): { result: Json } {
  const outcome = calculate(params.expression as string);
  return 'error' in outcome ? fail('invalid', outcome.error) : { result: outcome.result };
}

/** The parameters schema of an action: an object of `properties`, `required` ones, nothing else. */
export function objectSchema(required: string[], properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', required, properties, additionalProperties: false };
}

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
