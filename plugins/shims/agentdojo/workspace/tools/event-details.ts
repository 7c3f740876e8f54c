/**
 * `CalendarEvent(**event_details)` as send_email builds an event attachment: pydantic's validation of the model's
 * fields (types.py), datetimes in the forms pydantic accepts from a string.
 */
import { PyError, isoOf, partsOf } from '../py.ts';
import { pyRepr } from '../../shared/python.ts';
import type { CalendarEvent } from '../types.ts';
import { PYDANTIC_RELEASE } from '../../shared/arguments.ts';

/** A datetime field as pydantic reads a string: `YYYY-MM-DD[T ]HH:MM[:SS[.f]]` or a date alone (midnight). */
export function pydanticDateTime(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 23).replace(/\.000$/, '').replace(/(\.\d{3})$/, '$1000');
  if (typeof value !== 'string') return undefined;
  const parts = partsOf(value.trim().replace(/Z$/, ''));
  return parts && isoOf(parts);
}

/** One of pydantic's line items: the field, the message and, for the kinds written in full, the error type. */
interface FieldError { field: string; message: string; type?: 'missing' | 'string_type'; input?: unknown }

// pydantic's error URLs name its minor version: the published runs' release, as for a tool's arguments.
const PYDANTIC_DOCS = `https://errors.pydantic.dev/${PYDANTIC_RELEASE}/v`;

const pyTypeName = (value: unknown): string => (value === null ? 'NoneType' : Array.isArray(value) ? 'list' : typeof value === 'string' ? 'str' : typeof value === 'boolean' ? 'bool' : typeof value === 'number' ? (Number.isInteger(value) ? 'int' : 'float') : 'dict');

/** pydantic-core's `input_value`: the repr, cut to its first 25 and last 24 characters past 50. */
function inputValue(value: unknown): string {
  const repr = [...pyRepr(value)];
  return repr.length > 50 ? `${repr.slice(0, 25).join('')}...${repr.slice(-24).join('')}` : repr.join('');
}

/** pydantic's `str(ValidationError)` for CalendarEvent: every field's error, in the model's order. */
function validationError(errors: readonly FieldError[]): never {
  const lines = errors.map((e) => `${e.field}\n  ${e.message}${e.type ? ` [type=${e.type}, input_value=${inputValue(e.input)}, input_type=${pyTypeName(e.input)}]\n    For further information visit ${PYDANTIC_DOCS}/${e.type}` : ''}`);
  throw new PyError('ValidationError', `${errors.length} validation error${errors.length > 1 ? 's' : ''} for CalendarEvent\n${lines.join('\n')}`);
}

/**
 * The event an `event_details` dictionary describes, or pydantic's ValidationError (every failing field; a missing
 * field or a non-string written in full, a bad datetime, list or status by its first line only).
 */
export function parseEventDetails(details: unknown): CalendarEvent {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) throw new PyError('TypeError', 'agentdojo.default_suites.v1.tools.types.CalendarEvent() argument after ** must be a mapping, not ' + (Array.isArray(details) ? 'list' : typeof details));
  const record = details as Record<string, unknown>;
  const errors: FieldError[] = [];
  const text = (field: string) => {
    if (!(field in record)) errors.push({ field, message: 'Field required', type: 'missing', input: record });
    else if (typeof record[field] !== 'string') errors.push({ field, message: 'Input should be a valid string', type: 'string_type', input: record[field] });
  };
  const time = (field: string) => {
    if (!(field in record)) errors.push({ field, message: 'Field required', type: 'missing', input: record });
    else if (pydanticDateTime(record[field]) === undefined) errors.push({ field, message: 'Input should be a valid datetime' });
  };
  text('id_');
  text('title');
  text('description');
  time('start_time');
  time('end_time');
  if (!('location' in record)) errors.push({ field: 'location', message: 'Field required', type: 'missing', input: record });
  else if (record.location !== null && typeof record.location !== 'string') errors.push({ field: 'location', message: 'Input should be a valid string', type: 'string_type', input: record.location });
  if (!('participants' in record)) errors.push({ field: 'participants', message: 'Field required', type: 'missing', input: record });
  else if (!Array.isArray(record.participants) || record.participants.some((p) => typeof p !== 'string')) errors.push({ field: 'participants', message: 'Input should be a valid list' });
  const status = record.status ?? 'confirmed';
  if (status !== 'confirmed' && status !== 'canceled') errors.push({ field: 'status', message: "Input should be 'confirmed' or 'canceled'" });
  if (errors.length) validationError(errors);
  return {
    id_: record.id_ as string, title: record.title as string, description: record.description as string,
    start_time: pydanticDateTime(record.start_time)!, end_time: pydanticDateTime(record.end_time)!,
    location: record.location as string | null, participants: [...record.participants as string[]],
    all_day: record.all_day === undefined ? false : Boolean(record.all_day), status: status as CalendarEvent['status'],
  };
}
