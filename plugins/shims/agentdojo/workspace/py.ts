/**
 * Python's semantics where AgentDojo's tools and checks lean on them: naive `datetime` values (held as pydantic's
 * JSON form, `YYYY-MM-DDTHH:MM:SS[.ffffff]`), `strptime`/`fromisoformat` parsing, `isoformat`/`strftime`/`str`
 * formatting, `str(float)`, and the exception a tool raises (its text is `<Type>: <message>` in the reference's
 * FunctionsRuntime). Tool results keep the types JSON loses as tagged values (`PyDateTime`, `PyFloat`) so the
 * renderer writes them as PyYAML dumps a `datetime` and a `float`.
 */

/** An exception as a reference tool raises it: `ValueError`, `KeyError`, … and its message. */
export class PyError extends Error {
  /**
   * The world as the reference leaves it when the exception interrupts a tool half-way (its models are mutated in
   * place: `reserve_hotel` has set type, title and contact before parsing a bad date), if it differs from before.
   */
  world?: unknown;
  constructor(readonly pyType: string, message: string) {
    super(message);
  }
}

/** Runs `step`; an exception it raises carries `partial`, the world so far. */
export function partway<T>(partial: unknown, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof PyError && error.world === undefined) error.world = partial;
    throw error;
  }
}

/** A `datetime.datetime` in a tool's result (PyYAML writes it `2024-05-15 10:00:00`, unquoted). */
export interface PyDateTime { py: 'datetime'; iso: string }
/** A `float` in a tool's result (PyYAML writes `30.0`, never `30`). */
export interface PyFloat { py: 'float'; value: number }
/** A tool's result before rendering: JSON plus the tagged Python values. */
export type PyValue = null | boolean | number | string | PyDateTime | PyFloat | PyValue[] | { [key: string]: PyValue };

export const pyFloat = (value: number): PyFloat => ({ py: 'float', value });
export const pyDateTime = (iso: string): PyDateTime => ({ py: 'datetime', iso });

/** Python's `str(float)` (repr): the shortest round-trip digits, as JS writes them, with `.0` on integral values. */
export function floatStr(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
  const text = String(value);
  // JS writes 1e-7 and 1e+21 where Python writes 1e-07 and 1e+21.
  return text.replace(/e([+-])(\d)$/, 'e$10$2');
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

/** `datetime.strptime(text, "%Y-%m-%d %H:%M")` (or `"%Y-%m-%d"`), with Python's error text when it does not match. */
export function strptime(text: string, format: '%Y-%m-%d %H:%M' | '%Y-%m-%d'): string {
  // strptime's %m, %d, %H and %M take one or two digits; %Y four.
  const pattern = format === '%Y-%m-%d' ? /^(\d{4})-(\d{1,2})-(\d{1,2})$/ : /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2})$/;
  const match = pattern.exec(text);
  const parts = match && { year: +match[1], month: +match[2], day: +match[3], hour: +(match[4] ?? 0), minute: +(match[5] ?? 0), second: 0, micro: 0 };
  if (!parts || !validParts(parts)) {
    if (match) throw new PyError('ValueError', `day is out of range for month`);
    throw new PyError('ValueError', `time data ${pyRepr(text)} does not match format ${pyRepr(format)}`);
  }
  return isoOf(parts);
}

/** `datetime.datetime.fromisoformat(text)` for the forms agents send (date, date and time to the second or beyond). */
export function fromIsoFormat(text: string): string {
  const parts = partsOf(text);
  if (!parts) throw new PyError('ValueError', `Invalid isoformat string: ${pyRepr(text)}`);
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

/** Python's `repr` of a string (single quotes unless the text holds one and no double quote). */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}
