/**
 * JSON Schema validation (2020-12, ajv).
 *
 * Edge runtimes forbid code generation, so the build compiles every schema it can find ahead of time
 * (ajv's standalone output, `scripts/precompile-validators.mjs`) and runtime entries register those validators
 * with `registerPrecompiled`. They are keyed by `schemaKey`: a SHA-256 of the schema's JSON with sorted keys,
 * so a schema matches its precompiled validator by content (keys sorted), whichever module object holds it. Each schema
 * object is hashed and resolved once (WeakMap). A schema the build did not see (a user plugin's, a scenario's)
 * is compiled at run time where the runtime allows it (Node).
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction, ErrorObject } from 'ajv';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { Problem, type FieldError } from './problems.ts';
import { createAjv } from './schema-compiler.ts';
import { schemaErrorSentence } from './schema-sentences.ts';

export type JsonSchema = Record<string, unknown>;

/** The ajv options shared by run-time compilation and the build's precompilation (they must agree). */
export const AJV_OPTIONS = { allErrors: true, strict: false, allowUnionTypes: true } as const;

let ajv: Ajv2020 | undefined;
const resolved = new WeakMap<object, ValidateFunction>();
const precompiled = new Map<string, ValidateFunction>();

function instance(): Ajv2020 {
  // Loaded on the first schema the build did not precompile (core/schema-compiler.ts).
  ajv ??= createAjv({ ...AJV_OPTIONS });
  return ajv;
}

/**
 * JSON with object keys sorted at every level, so equal schemas serialise equally whatever their key order.
 * (Not the `canonicalize` package: it is import-only, and users' TypeScript plugins may be loaded as CommonJS.)
 */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => stableJson(item ?? null)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).sort().filter((key) => (value as Record<string, unknown>)[key] !== undefined);
    return `{${entries.map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

type SyncSha256 = (text: string) => string;
let sha256Hex: SyncSha256 | undefined;

/**
 * The runtime's own synchronous SHA-256 where it has one (Node, Deno and Bun, through `process.getBuiltinModule`),
 * else the pure-JavaScript one (workerd): the same digest, but a start hashes every schema its definitions hold,
 * and the pure-JavaScript hash, not yet optimised that early, was ~60 ms of a profiled start (issue 26).
 */
function sha256Of(): SyncSha256 {
  if (sha256Hex) return sha256Hex;
  type NodeCrypto = { createHash(algorithm: string): { update(text: string, encoding: string): { digest(encoding: string): string } } };
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const crypto = getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
  sha256Hex = typeof crypto?.createHash === 'function'
    ? (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex')
    : (text) => bytesToHex(sha256(new TextEncoder().encode(text)));
  return sha256Hex;
}

/** The stable key of a schema: hex SHA-256 of its JSON with sorted keys. */
export function schemaKey(schema: JsonSchema): string {
  return sha256Of()(stableJson(schema));
}

/** Registers a validator compiled ahead of time for the schema whose `schemaKey` is `key`. */
export function registerPrecompiled(key: string, validate: ValidateFunction): void {
  precompiled.set(key, validate);
}

/** How many precompiled validators are registered (for `/api/info`-style diagnostics and tests). */
export function precompiledCount(): number {
  return precompiled.size;
}

/** The validator of a schema: precompiled when the build saw it, compiled (once) otherwise. */
export function validatorOf(schema: JsonSchema): ValidateFunction {
  let validate = resolved.get(schema);
  if (validate) return validate;
  // Hashing is only worth it when there is something to find.
  if (precompiled.size) validate = precompiled.get(schemaKey(schema));
  if (!validate) {
    const id = typeof schema.$id === 'string' ? schema.$id : undefined;
    validate = id && instance().getSchema(id) ? instance().getSchema(id)! : instance().compile(schema);
  }
  resolved.set(schema, validate);
  return validate;
}

/**
 * ajv errors as `{path, message}`: JSON Pointer paths, and messages that are sentences naming the field
 * (core/schema-sentences.ts). A `oneOf` or `anyOf` error whose branches already said what is wrong is left out:
 * the branches' sentences are the useful ones.
 */
export function fieldErrors(errors: ErrorObject[] | null | undefined, prefix = ''): FieldError[] {
  const list = errors ?? [];
  return list.map((error) => {
    let path = prefix + (error.instancePath || '');
    if (error.keyword === 'required') path += `/${escapePointer((error.params as { missingProperty: string }).missingProperty)}`;
    if (error.keyword === 'additionalProperties') path += `/${escapePointer((error.params as { additionalProperty: string }).additionalProperty)}`;
    return { path: path || '/', message: schemaErrorSentence(error, path) };
  });
}

/** A property name as one JSON Pointer segment (RFC 6901). */
function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Field errors in one line for a problem's `detail`: the first three, each `path: sentence`. */
export function describeErrors(errors: readonly FieldError[], most = 3): string {
  const shown = errors.slice(0, most).map((e) => `${e.path}: ${e.message}`).join('; ');
  return errors.length > most ? `${shown}; and ${errors.length - most} more` : shown;
}

/** Validates `data`; returns the field errors (empty when valid). */
export function check(schema: JsonSchema, data: unknown, prefix = ''): FieldError[] {
  const validate = validatorOf(schema);
  return validate(data) ? [] : fieldErrors(validate.errors, prefix);
}

/** Validates `data` or throws `validation_failed` listing every failing path. */
export function assertValid<T>(schema: JsonSchema, data: unknown, what = 'body', prefix = ''): T {
  const errors = check(schema, data, prefix);
  if (errors.length) {
    throw new Problem('validation_failed', { detail: `${what} is invalid: ${describeErrors(errors)}`, errors });
  }
  return data as T;
}
