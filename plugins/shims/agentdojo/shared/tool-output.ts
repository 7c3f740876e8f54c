/**
 * What the agent reads from an AgentDojo tool: `tool_result_to_str` (agent_pipeline/tool_execution.py at
 * 96046ab54) applied to the tool's return value. A model or a list is YAML as PyYAML's `safe_dump` writes it,
 * stripped; a list's strings and ints become `str(item)` first; anything else is Python's `str()` of it, so a
 * dict reads `{'message': 'Transaction to … for 100.0 sent.'}` and a tool that returns nothing reads `None`.
 */
import { pyStr } from './python.ts';
import { toPython, type PyType } from './types.ts';
import { pyYamlDump } from './yaml-dump.ts';

const isModel = (type: PyType) => typeof type === 'object' && type.kind === 'model';
const unwrap = (type: PyType): PyType => (typeof type === 'object' && type.kind === 'optional' ? unwrap(type.inner) : type);

/** Python's `str.strip()`: whitespace as Python counts it (JavaScript's `trim` plus the C0 separators). */
const pyStrip = (text: string) => text.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g, '');

/**
 * The tool output string for `value` of the tool's declared return type. A list item that is neither a string,
 * an int nor a model raises in the reference (`TypeError`); it does here too.
 */
export function toolResultToStr(value: unknown, returns: PyType): string {
  const type = unwrap(returns);
  if (typeof type === 'string' || value === null || value === undefined) return resultText(value, type);
  const key = plainJson(value);
  if (key === undefined) return resultText(value, type);
  let byValue = written.get(type);
  if (!byValue) written.set(type, (byValue = new Map()));
  let text = byValue.get(key);
  if (text === undefined) {
    text = resultText(value, type);
    if (byValue.size >= MAX_WRITTEN) byValue.clear();
    byValue.set(key, text);
  }
  return text;
}

// The same answers come back unit after unit (a user task's calls read the same mail, files and events under every
// injection task): dumping each again as YAML was a tenth of a replay's CPU. Keyed by the declared type (its
// object) and the value's JSON; bounded: a full cache starts again empty.
const MAX_WRITTEN = 5_000;
const written = new WeakMap<object, Map<string, string>>();

/**
 * The JSON of `value` when it says all its dump depends on, else undefined: JSON writes -0, NaN and the
 * infinities as numbers it cannot tell apart (PyYAML's `-0.0`, `.nan`), drops an undefined entry (a dict's
 * `key: null`), and writes a class instance or a date by its own rules, so a value holding one is not cached.
 */
function plainJson(value: unknown): string | undefined {
  let plain = true;
  try {
    const json = JSON.stringify(value, function check(this: Record<string, unknown>, key: string, entry: unknown) {
      const original = this[key];
      if (typeof original === 'number') plain &&= !Object.is(original, -0) && Number.isFinite(original);
      else if (typeof original === 'object' && original !== null && !Array.isArray(original)) plain &&= [Object.prototype, null].includes(Object.getPrototypeOf(original));
      else if (typeof original !== 'string' && typeof original !== 'boolean' && original !== null) plain = false;
      return entry;
    });
    return plain ? json : undefined;
  } catch {
    return undefined;
  }
}

function resultText(value: unknown, type: PyType): string {
  if (value !== null && value !== undefined && isModel(type)) return pyStrip(pyYamlDump(toPython(value, type)));
  if (Array.isArray(value) && typeof type === 'object' && type.kind === 'list') {
    const itemType = unwrap(type.items);
    const items = value.map((item) => {
      if (typeof item === 'string') return item;
      if (typeof item === 'number' && itemType === 'int') return String(item);
      if (item && typeof item === 'object' && isModel(itemType)) return toPython(item, itemType);
      throw new TypeError(`Not valid type for item tool result: ${typeof item}`);
    });
    return pyStrip(pyYamlDump(items));
  }
  return pyStr(toPython(value ?? null, type));
}
