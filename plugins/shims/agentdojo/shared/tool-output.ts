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
