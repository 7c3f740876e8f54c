/**
 * The reference implementation's certificate schema (VC v3.0.0, JSON Schema draft-07), kept in the repository
 * at core/domain/schemas/vc.schema.json: it is the contract our certificates also satisfy, so the tests that
 * check it read nothing outside the checkout.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

/** Where the schema lives, so docs and tests name one file. */
export const REFERENCE_SCHEMA_URL = new URL('../core/domain/schemas/vc.schema.json', import.meta.url);

let compiled: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined;

/** The reference schema's errors for a certificate: an empty list when it satisfies the schema. */
export function referenceSchemaErrors(certificate: unknown): ErrorObject[] {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    compiled = ajv.compile(JSON.parse(readFileSync(REFERENCE_SCHEMA_URL, 'utf8')));
  }
  return compiled(certificate) ? [] : [...(compiled.errors ?? [])];
}
