/**
 * Python's semantics where AgentDojo's travel and workspace tools and checks lean on them (the foundation's
 * shared/python.ts has repr, str and the exception type): naive `datetime` values, held as pydantic's JSON form
 * (`YYYY-MM-DDTHH:MM:SS[.ffffff]`), `strptime` / `fromisoformat` parsing, `isoformat` / `strftime` / `str`
 * formatting, date arithmetic in microseconds, and a tool that raises half-way keeping what it did.
 */
import { PyError, pyFloatRepr, pyStrRepr } from '../shared/python.ts';

export { PyError };

/** Python's `str(float)`. */
export const floatStr = pyFloatRepr;
/** Python's `repr(str)`. */
export const pyRepr = pyStrRepr;

/**
 * Runs `step`; an exception it raises leaves `partial`, the world so far (Python mutates in place, so a tool that
 * raises half-way keeps what it did: `reserve_hotel` has set type, title and contact before it parses a bad date).
 */
export function partway<T>(partial: unknown, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof PyError && error.partial === undefined) throw new PyError(error.type, error.message, partial);
    throw error;
  }
}

/** Microseconds since the epoch of a naive datetime's fields (Python's datetimes here carry no zone). */
export interface DateTimeParts { year: number; month: number; day: number; hour: number; minute: number; second: number; micro: number }

const two = (n: number) => String(n).padStart(2, '0');

/** `datetime.isoformat()`: `YYYY-MM-DDTHH:MM:SS`, with `.ffffff` only when there are microseconds. */
export function isoOf(parts: DateTimeParts): string {
  const base = `${String(parts.year).padStart(4, '0')}-${two(parts.month)}-${two(parts.day)}T${two(parts.hour)}:${two(parts.minute)}:${two(parts.second)}`;
  return parts.micro ? `${base}.${String(parts.micro).padStart(6, '0')}` : base;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/;

/** The fields of an ISO date or datetime this module wrote or the data holds, or undefined. */
export function partsOf(text: string): DateTimeParts | undefined {
  const match = ISO.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = match;
  const parts = { year: +y, month: +mo, day: +d, hour: +h, minute: +mi, second: +s, micro: +(frac.padEnd(6, '0') || 0) };
  if (!validParts(parts)) return undefined;
  return parts;
}

function validParts(p: DateTimeParts): boolean {
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.hour > 23 || p.minute > 59 || p.second > 59) return false;
  return p.day <= daysIn(p.year, p.month);
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate() || [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/**
 * The message `datetime(...)` raises for fields out of range, checked in CPython's order (year, month, day, hour,
 * minute, second); undefined when they are valid.
 */
function rangeError(p: DateTimeParts): string | undefined {
  if (p.year < 1 || p.year > 9999) return `year ${p.year} is out of range`;
  if (p.month < 1 || p.month > 12) return 'month must be in 1..12';
  if (p.day < 1 || p.day > daysIn(p.year, p.month)) return 'day is out of range for month';
  if (p.hour > 23) return 'hour must be in 0..23';
  if (p.minute > 59) return 'minute must be in 0..59';
  if (p.second > 59) return 'second must be in 0..59';
  return undefined;
}

// _strptime's regular expressions for the directives (CPython 3.11 Lib/_strptime.py), a space as \s+, matched
// case-insensitively from the start: the first alternative that lets the rest match wins, as in `re`.
const STRPTIME: Record<'%Y-%m-%d %H:%M' | '%Y-%m-%d', RegExp> = {
  '%Y-%m-%d': /^(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])/i,
  '%Y-%m-%d %H:%M': /^(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])\s+(2[0-3]|[0-1]\d|\d):([0-5]\d|\d)/i,
};

/** `datetime.strptime(text, "%Y-%m-%d %H:%M")` (or `"%Y-%m-%d"`), with Python's error texts. */
export function strptime(text: string, format: '%Y-%m-%d %H:%M' | '%Y-%m-%d'): string {
  const match = STRPTIME[format].exec(text);
  if (!match) throw new PyError('ValueError', `time data ${pyRepr(text)} does not match format ${pyRepr(format)}`);
  if (match[0].length !== text.length) throw new PyError('ValueError', `unconverted data remains: ${text.slice(match[0].length)}`);
  const parts = { year: +match[1]!, month: +match[2]!, day: +match[3]!, hour: +(match[4] ?? 0), minute: +(match[5] ?? 0), second: 0, micro: 0 };
  const invalid = rangeError(parts);
  if (invalid) throw new PyError('ValueError', invalid);
  return isoOf(parts);
}

/**
 * `datetime.datetime.fromisoformat(text)` for the forms agents send (a date, a date and time to the minute, second
 * or beyond): text of another shape is "Invalid isoformat string", fields out of range the constructor's message.
 */
export function fromIsoFormat(text: string): string {
  const match = ISO.exec(text);
  if (!match) throw new PyError('ValueError', `Invalid isoformat string: ${pyRepr(text)}`);
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = ''] = match;
  const parts = { year: +y!, month: +mo!, day: +d!, hour: +h, minute: +mi, second: +sec, micro: +(frac.padEnd(6, '0') || 0) };
  const invalid = rangeError(parts);
  if (invalid) throw new PyError('ValueError', invalid);
  return isoOf(parts);
}

/** Microseconds since 1970 of a naive datetime, for comparison and arithmetic. */
export function microsOf(iso: string): number {
  const p = partsOf(iso);
  if (!p) throw new Error(`not a datetime: ${iso}`);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) * 1000 + p.micro;
}

/** The naive datetime `micros` microseconds after 1970. */
export function isoFromMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const date = new Date(ms);
  return isoOf({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: date.getUTCHours(), minute: date.getUTCMinutes(), second: date.getUTCSeconds(), micro: micros - ms * 1000 + (ms % 1000) * 1000 });
}

/** `dt.date().isoformat()`. */
export const dateOf = (iso: string): string => iso.slice(0, 10);
/** `dt.time().isoformat()`. */
export const timeOf = (iso: string): string => iso.slice(11);
/** `dt.strftime(format)` for the directives AgentDojo uses: %Y %m %d %H %M %S. */
export function strftime(iso: string, format: string): string {
  const p = partsOf(iso)!;
  const values: Record<string, string> = { Y: String(p.year).padStart(4, '0'), m: two(p.month), d: two(p.day), H: two(p.hour), M: two(p.minute), S: two(p.second) };
  return format.replace(/%([YmdHMS%])/g, (_, d: string) => (d === '%' ? '%' : values[d]));
}
/** `str(dt)`: isoformat with a space between the date and the time. */
export const datetimeStr = (iso: string): string => iso.replace('T', ' ');

/** The naive datetime of the world's logical clock (ISO 8601, UTC), as `datetime.now()` reads on the reference's machine. */
export function nowOf(clock: string): string {
  const ms = Date.parse(clock);
  if (Number.isNaN(ms)) throw new Error(`the world's clock is no ISO 8601 instant: ${clock}`);
  return isoFromMicros(ms * 1000);
}

