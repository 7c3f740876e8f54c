/**
 * The Python types of AgentDojo's pydantic models and tool signatures, as data: what a suite's environment and
 * each tool's parameters and return value are. They decide what the JSON state cannot say by itself (that
 * `amount: float` prints `100.0` where an `int` prints `100`, that a datetime prints `2024-05-13 13:00:00`), the
 * JSON Schema a tool offers (as pydantic's `model_json_schema` writes it) and how a loaded environment is read
 * into the state (pydantic's `model_validate`, lax as AgentDojo runs it, for the types its data holds).
 */
import type { Json } from '../../../../core/shim.ts';
import { PyFloat } from './python.ts';
import { PyPlain } from './yaml-dump.ts';

/** A Python type AgentDojo's models and tools use. */
export type PyType =
  | 'str' | 'int' | 'float' | 'bool' | 'none' | 'date' | 'datetime' | 'time' | 'any'
  | { kind: 'list'; items: PyType }
  | { kind: 'dict'; values: PyType }
  | { kind: 'model'; name: string; fields: Readonly<Record<string, PyType>> }
  | { kind: 'optional'; inner: PyType }
  | { kind: 'enum'; name: string; values: readonly string[] };

/** `list[T]`. */
export const list = (items: PyType): PyType => ({ kind: 'list', items });
/** `dict[str, T]`. */
export const dict = (values: PyType): PyType => ({ kind: 'dict', values });
/** `T | None`. */
export const optional = (inner: PyType): PyType => ({ kind: 'optional', inner });
/** A pydantic model: its fields in declaration order (`model_dump`'s order). */
export const model = (name: string, fields: Record<string, PyType>): Extract<PyType, { kind: 'model' }> => ({ kind: 'model', name, fields });
/** A `StrEnum`: its values. */
export const strEnum = (name: string, values: readonly string[]): PyType => ({ kind: 'enum', name, values });

type JsonObject = { [key: string]: Json };

/**
 * `value` (state JSON) as Python holds it for printing: floats marked `PyFloat`, dates and datetimes as the plain
 * scalars PyYAML writes (`str(datetime)` form), models as their `model_dump()` (fields in declaration order, which
 * `safe_dump`'s key sorting makes moot). Unknown members pass through.
 */
export function toPython(value: unknown, type: PyType): unknown {
  if (value === null || value === undefined) return null;
  if (typeof type === 'string') {
    if (type === 'float' && typeof value === 'number') return new PyFloat(value);
    if ((type === 'date' || type === 'datetime' || type === 'time') && typeof value === 'string') return new PyPlain(value.replace('T', ' '));
    return value;
  }
  switch (type.kind) {
    case 'optional': return toPython(value, type.inner);
    case 'list': return Array.isArray(value) ? value.map((item) => toPython(item, type.items)) : value;
    case 'dict': return typeof value === 'object' ? Object.fromEntries(Object.entries(value as JsonObject).map(([key, entry]) => [key, toPython(entry, type.values)])) : value;
    case 'model': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const record = value as JsonObject;
      const out: Record<string, unknown> = {};
      for (const [field, fieldType] of Object.entries(type.fields)) out[field] = toPython(record[field], fieldType);
      return out;
    }
    default: return value;
  }
}

/** Why a loaded value does not fit its type (pydantic would refuse the environment). */
export class EnvironmentError extends Error {}

const pad = (n: number) => String(n).padStart(2, '0');
/** A YAML timestamp (the `yaml` package gives a Date in UTC) as the ISO text pydantic's JSON mode writes. */
function isoOf(date: Date, type: 'date' | 'datetime' | 'time'): string {
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return type === 'date' ? day : type === 'time' ? time : `${day}T${time}`;
}

function coerceScalar(value: unknown, type: string, path: string): Json {
  if (value instanceof PyFloat) value = value.value;
  if (value instanceof Date && (type === 'date' || type === 'datetime' || type === 'time')) return isoOf(value, type);
  if (value instanceof Date && type === 'str') throw new EnvironmentError(`${path}: a date where a string is expected`);
  switch (type) {
    case 'str': if (typeof value === 'string') return value; break;
    case 'int': if (typeof value === 'number' && Number.isInteger(value)) return value; break;
    case 'float': if (typeof value === 'number') return value; break;
    case 'bool': if (typeof value === 'boolean') return value; break;
    case 'none': if (value === null) return null; break;
    case 'date': case 'datetime': case 'time': if (typeof value === 'string') return value.replace(' ', 'T'); break;
    default: return value as Json;
  }
  throw new EnvironmentError(`${path}: ${JSON.stringify(value)} is not a valid ${type}`);
}

/** A loaded environment value read into the state under `type` (pydantic's validation, for AgentDojo's data). */
export function coerce(value: unknown, type: PyType, path = 'environment'): Json {
  if (typeof type === 'string') return coerceScalar(value, type, path);
  switch (type.kind) {
    case 'optional': return value === null || value === undefined ? null : coerce(value, type.inner, path);
    case 'enum':
      if (typeof value === 'string' && type.values.includes(value)) return value;
      throw new EnvironmentError(`${path}: ${JSON.stringify(value)} is not one of ${type.name}'s values`);
    case 'list':
      if (!Array.isArray(value)) throw new EnvironmentError(`${path}: a list is expected`);
      return value.map((item, index) => coerce(item, type.items, `${path}[${index}]`));
    case 'dict': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new EnvironmentError(`${path}: a mapping is expected`);
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, coerce(entry, type.values, `${path}.${key}`)]));
    }
    case 'model': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new EnvironmentError(`${path}: a ${type.name} is expected`);
      const record = value as Record<string, unknown>;
      const out: JsonObject = {};
      for (const [field, fieldType] of Object.entries(type.fields)) {
        if (!Object.hasOwn(record, field)) {
          if (typeof fieldType === 'object' && fieldType.kind === 'optional') continue;
          throw new EnvironmentError(`${path}.${field}: required by ${type.name}`);
        }
        out[field] = coerce(record[field], fieldType, `${path}.${field}`);
      }
      return out;
    }
  }
}

/** `name` as pydantic titles a field: `file_path` → `File Path`. */
export const titleOf = (name: string) => name.split('_').map((word) => (word ? word[0]!.toUpperCase() + word.slice(1).toLowerCase() : word)).join(' ');

/** The JSON Schema pydantic writes for a field of `type` (without title and description). */
export function schemaOf(type: PyType): JsonObject {
  if (typeof type === 'string') {
    const simple: Record<string, JsonObject> = {
      str: { type: 'string' }, int: { type: 'integer' }, float: { type: 'number' }, bool: { type: 'boolean' }, none: { type: 'null' },
      date: { format: 'date', type: 'string' }, datetime: { format: 'date-time', type: 'string' }, time: { format: 'time', type: 'string' }, any: {},
    };
    return simple[type]!;
  }
  switch (type.kind) {
    case 'optional': return { anyOf: [schemaOf(type.inner), { type: 'null' }] };
    case 'list': return { items: schemaOf(type.items), type: 'array' };
    case 'dict': return { additionalProperties: schemaOf(type.values), type: 'object' };
    case 'enum': return { enum: [...type.values], title: type.name, type: 'string' };
    case 'model': return { title: type.name, type: 'object' };
  }
}
