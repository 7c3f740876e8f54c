/**
 * A plugin's settings: the plugin declares them as a JSON Schema of an object (`settings`); at start the kernel
 * takes each declared property from the plugin's entry in the config file, else from the environment variable
 * of the same name, turns environment strings into the declared type, fills defaults, validates, and hands the
 * plugin the frozen result as `host.settings`. A plugin sees only what it declared, never the whole environment.
 */
import { check, type JsonSchema } from './validate.ts';

export type Settings = Readonly<Record<string, unknown>>;

interface PropertySchema {
  type?: string | string[];
  default?: unknown;
}

function typesOf(schema: PropertySchema): string[] {
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

/** An environment string as the property's type; left a string when it does not read as one (validation says why). */
function fromEnvironment(raw: string, schema: PropertySchema): unknown {
  const value = raw.trim();
  for (const type of typesOf(schema)) {
    if ((type === 'integer' || type === 'number') && value !== '' && Number.isFinite(Number(value))) return Number(value);
    if (type === 'boolean' && /^(true|false|1|0|yes|no)$/i.test(value)) return /^(true|1|yes)$/i.test(value);
    if ((type === 'array' || type === 'object') && /^[[{]/.test(value)) {
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    }
    if (type === 'array') return value === '' ? [] : value.split(',').map((item) => item.trim()).filter(Boolean);
  }
  return value;
}

/**
 * Reads, coerces and validates one plugin's settings. Throws an `Error` naming each setting that is wrong
 * (never its value: settings hold secrets).
 */
export function readSettings(schema: JsonSchema, given: Record<string, unknown> | undefined, env: Readonly<Record<string, string | undefined>>): Settings {
  const properties = (schema.properties ?? {}) as Record<string, PropertySchema>;
  const values: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (given && given[name] !== undefined) values[name] = given[name];
    else if (env[name] !== undefined && env[name]!.trim() !== '') values[name] = fromEnvironment(env[name]!, property);
    else if (property.default !== undefined) values[name] = structuredClone(property.default);
  }
  const unknown = Object.keys(given ?? {}).filter((name) => !(name in properties));
  if (unknown.length) throw new Error(`settings: ${unknown.map((name) => `"${name.slice(0, 64)}"`).join(', ')} not declared (declared: ${Object.keys(properties).join(', ') || 'none'})`);
  const errors = check(schema, values, '');
  if (errors.length) throw new Error(`settings: ${errors.slice(0, 5).map((error) => error.message).join('; ')}`);
  return Object.freeze(values);
}

/**
 * The settings schema of a plugin that reads plain text variables and parses them itself: each name a string
 * setting. `describe` adds a description per name for the OpenAPI-less reader (docs, errors).
 */
export function textSettings(describe: Readonly<Record<string, string>>): JsonSchema {
  return { type: 'object', properties: Object.fromEntries(Object.entries(describe).map(([name, description]) => [name, { type: 'string', description }])) };
}

/** Settings as the text record `textSettings` plugins parse. */
export function asText(settings: Settings): Readonly<Record<string, string | undefined>> {
  return settings as Readonly<Record<string, string | undefined>>;
}
