/**
 * `CalendarEvent(**event_details)` as send_email builds an event attachment: pydantic's validation of the model's
 * fields (types.py), datetimes in the forms pydantic accepts from a string.
 */
import { PyError, isoOf, partsOf } from '../py.ts';
import type { CalendarEvent } from '../types.ts';

const REQUIRED = ['id_', 'title', 'description', 'start_time', 'end_time', 'location', 'participants'] as const;

/** A datetime field as pydantic reads a string: `YYYY-MM-DD[T ]HH:MM[:SS[.f]]` or a date alone (midnight). */
export function pydanticDateTime(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 23).replace(/\.000$/, '').replace(/(\.\d{3})$/, '$1000');
  if (typeof value !== 'string') return undefined;
  const parts = partsOf(value.trim().replace(/Z$/, ''));
  return parts && isoOf(parts);
}

function fail(field: string, message: string): never {
  throw new PyError('ValidationError', `1 validation error for CalendarEvent\n${field}\n  ${message}`);
}

/** The event an `event_details` dictionary describes, or pydantic's ValidationError. */
export function parseEventDetails(details: unknown): CalendarEvent {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) throw new PyError('TypeError', 'agentdojo.default_suites.v1.tools.types.CalendarEvent() argument after ** must be a mapping, not ' + (Array.isArray(details) ? 'list' : typeof details));
  const record = details as Record<string, unknown>;
  for (const field of REQUIRED) if (!(field in record)) fail(field, 'Field required');
  const start = pydanticDateTime(record.start_time) ?? fail('start_time', 'Input should be a valid datetime');
  const end = pydanticDateTime(record.end_time) ?? fail('end_time', 'Input should be a valid datetime');
  if (typeof record.id_ !== 'string') fail('id_', 'Input should be a valid string');
  if (typeof record.title !== 'string') fail('title', 'Input should be a valid string');
  if (typeof record.description !== 'string') fail('description', 'Input should be a valid string');
  if (record.location !== null && typeof record.location !== 'string') fail('location', 'Input should be a valid string');
  if (!Array.isArray(record.participants) || record.participants.some((p) => typeof p !== 'string')) fail('participants', 'Input should be a valid list');
  const status = record.status ?? 'confirmed';
  if (status !== 'confirmed' && status !== 'canceled') fail('status', "Input should be 'confirmed' or 'canceled'");
  return {
    id_: record.id_, title: record.title, description: record.description, start_time: start, end_time: end,
    location: record.location as string | null, participants: [...record.participants as string[]],
    all_day: record.all_day === undefined ? false : Boolean(record.all_day), status,
  };
}
