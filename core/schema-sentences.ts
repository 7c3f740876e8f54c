/**
 * JSON Schema errors as sentences a person reads once (issue 32 item 4): each names the field it is about
 * (`"metrics" is missing`, `"trials" must be at most 20`), where ajv's own words ("must have required property
 * 'metrics'", "must be <= 20") leave the reader to work out which field and why. Paths stay JSON Pointers.
 */
import type { ErrorObject } from 'ajv';

const TYPE_WORDS: Record<string, string> = {
  string: 'text (a string)',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

/** The field a JSON Pointer ends at, as a sentence names it: `"metrics"`, `item 2 of "tasks"`, `the document`. */
export function fieldName(pointer: string): string {
  const segments = pointer.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (segments.length === 0 || (segments.length === 1 && segments[0] === '')) return 'the document';
  const last = segments[segments.length - 1]!;
  if (/^\d+$/.test(last)) {
    const parent = segments.length > 1 ? `"${segments[segments.length - 2]}"` : 'the list';
    return `item ${Number(last) + 1} of ${parent}`;
  }
  return `"${last}"`;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const typeWords = (type: unknown) => (Array.isArray(type) ? type : [type]).map((t) => TYPE_WORDS[String(t)] ?? String(t)).join(' or ');
const listed = (values: unknown) => (Array.isArray(values) ? values : [values]).map((value) => JSON.stringify(value)).join(', ');

/**
 * One ajv error as a sentence naming its field; `path` is where it points (for `required` and
 * `additionalProperties`, the missing or unknown field itself).
 */
export function schemaErrorSentence(error: ErrorObject, path: string): string {
  const field = fieldName(path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${field} is missing: it is required here`;
    case 'additionalProperties':
      return `${field} is not a field of this object (check its spelling, or remove it)`;
    case 'type':
      return `${field} must be ${typeWords(params.type)}`;
    case 'enum':
      return `${field} must be one of ${listed(params.allowedValues)}`;
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}`;
    case 'pattern':
      return `${field} does not have the expected form (the pattern ${String(params.pattern)})`;
    case 'format':
      return `${field} must be a valid ${String(params.format)}`;
    case 'minLength':
      return `${field} must have at least ${plural(Number(params.limit), 'character')}`;
    case 'maxLength':
      return `${field} must have at most ${plural(Number(params.limit), 'character')}`;
    case 'minItems':
      return `${field} must have at least ${plural(Number(params.limit), 'item')}`;
    case 'maxItems':
      return `${field} must have at most ${plural(Number(params.limit), 'item')}`;
    case 'minProperties':
      return `${field} must have at least ${plural(Number(params.limit), 'field')}`;
    case 'maxProperties':
      return `${field} must have at most ${plural(Number(params.limit), 'field')}`;
    case 'minimum':
      return `${field} must be at least ${String(params.limit)}`;
    case 'maximum':
      return `${field} must be at most ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `${field} must be greater than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${String(params.limit)}`;
    case 'multipleOf':
      return `${field} must be a multiple of ${String(params.multipleOf)}`;
    case 'uniqueItems':
      return `${field} repeats an item (items ${Number(params.j) + 1} and ${Number(params.i) + 1} are the same)`;
    case 'propertyNames':
      return `${field} has a field named ${JSON.stringify(params.propertyName)}, which is not an allowed name here`;
    case 'oneOf':
    case 'anyOf':
      return `${field} matches none of the forms it may take`;
    case 'not':
      return `${field} combines what may not be combined here`;
    case 'dependentRequired':
    case 'dependencies':
      return `${field} needs "${String(params.missingProperty)}" when it has "${String(params.property)}"`;
    case 'if':
      return `${field} does not fit what its other fields call for`;
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}
