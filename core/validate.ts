/**
 * JSON Schema validation (2020-12, ajv). Validators are compiled once per schema and cached.
 * On runtimes that forbid code generation (workerd) the build's precompiled validators are registered with
 * `registerPrecompiled` and used instead of compiling.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction, ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Problem, type FieldError } from './problems.ts';

// ajv-formats ships CommonJS whose default export is the function itself.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

export type JsonSchema = Record<string, unknown>;

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction>();
const precompiled = new Map<string, ValidateFunction>();

function instance(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true });
    addFormats(ajv);
  }
  return ajv;
}

/** Registers a validator compiled ahead of time for the schema with this `$id`. */
export function registerPrecompiled(id: string, validate: ValidateFunction): void {
  precompiled.set(id, validate);
}

/** The (cached) validator of a schema. */
export function validatorOf(schema: JsonSchema): ValidateFunction {
  const id = typeof schema.$id === 'string' ? schema.$id : undefined;
  if (id && precompiled.has(id)) return precompiled.get(id)!;
  let validate = compiled.get(schema);
  if (!validate) {
    validate = id && instance().getSchema(id) ? instance().getSchema(id)! : instance().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** ajv errors as `{path, message}` with JSON Pointer paths. */
export function fieldErrors(errors: ErrorObject[] | null | undefined, prefix = ''): FieldError[] {
  return (errors ?? []).map((error) => {
    let path = prefix + (error.instancePath || '');
    if (error.keyword === 'required') path += `/${(error.params as { missingProperty: string }).missingProperty}`;
    if (error.keyword === 'additionalProperties') path += `/${(error.params as { additionalProperty: string }).additionalProperty}`;
    return { path: path || '/', message: error.message ?? 'is invalid' };
  });
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
    throw new Problem('validation_failed', { detail: `${what} is invalid: ${errors.slice(0, 3).map((e) => `${e.path} ${e.message}`).join('; ')}`, errors });
  }
  return data as T;
}
