/**
 * A tool's arguments as AgentDojo's FunctionsRuntime hands them to the function: `model_validate(kwargs)
 * .model_dump()` of the tool's input model, pydantic 2 in its lax (Python) mode: a number sent as text is read as
 * the number (`"10.0"` for a float, `"5"` or `"5.0"` for an int), an integral float is an int, `"yes"` is True,
 * defaults fill what is missing, unknown names are dropped. What pydantic refuses raises its `ValidationError`,
 * worded as pydantic words it (the agent reads it as the tool's error), with the release the published runs used. Models answer tool calls with such
 * arguments (Llama 3.3 sends `"amount": "10.0"`), and what the reference did with them is what a run judges.
 */
import { PyError, pyRepr } from './python.ts';
import type { PyType } from './types.ts';

/** The pydantic release whose messages are reproduced (its documentation link names it): the published runs'. */
export const PYDANTIC_RELEASE = '2.9';

/** pydantic-core's `input_value`: the repr, cut to its first 25 and last 24 characters past 50. */
function inputValue(value: unknown): string {
  const text = [...pyRepr(value)];
  return text.length > 50 ? `${text.slice(0, 25).join('')}...${text.slice(-24).join('')}` : text.join('');
}

interface Issue { loc: string; message: string; type: string; input: unknown }

const BOOL_TEXT = new Map<string, boolean>([['0', false], ['off', false], ['f', false], ['false', false], ['n', false], ['no', false], ['1', true], ['on', true], ['t', true], ['true', true], ['y', true], ['yes', true]]);

const pyTypeName = (value: unknown) => (value === null || value === undefined ? 'NoneType' : typeof value === 'string' ? 'str' : typeof value === 'boolean' ? 'bool'
  : typeof value === 'number' ? (Number.isInteger(value) ? 'int' : 'float') : Array.isArray(value) ? 'list' : 'dict');

/** `value` read as `type`; `issues` collects what pydantic refuses (the value then stays as sent). */
function lax(value: unknown, type: PyType, loc: string, issues: Issue[]): unknown {
  const refuse = (message: string, kind: string) => (issues.push({ loc, message, type: kind, input: value }), value);
  if (typeof type === 'string') {
    switch (type) {
      case 'any': return value;
      case 'none': return value === null ? null : refuse('Input should be None', 'none_required');
      case 'str': case 'date': case 'datetime': case 'time':
        return typeof value === 'string' ? value : refuse('Input should be a valid string', 'string_type');
      case 'bool': {
        if (typeof value === 'boolean') return value;
        if (value === 0 || value === 1) return value === 1;
        if (typeof value === 'string' && BOOL_TEXT.has(value.trim().toLowerCase())) return BOOL_TEXT.get(value.trim().toLowerCase());
        return refuse(typeof value === 'number' ? 'Input should be a valid boolean, unable to interpret input' : typeof value === 'string' ? 'Input should be a valid boolean, unable to interpret input' : 'Input should be a valid boolean', typeof value === 'number' || typeof value === 'string' ? 'bool_parsing' : 'bool_type');
      }
      case 'int': {
        if (typeof value === 'boolean') return value ? 1 : 0;
        if (typeof value === 'number') return Number.isInteger(value) ? value : refuse('Input should be a valid integer, got a number with a fractional part', 'int_from_float');
        if (typeof value === 'string') {
          // pydantic-core strips white space and trailing decimal zeros ("5.0" is 5) before parsing.
          const text = value.trim().replace(/\.0*$/, '');
          return /^[+-]?\d+$/.test(text) ? Number(text) : refuse('Input should be a valid integer, unable to parse string as an integer', 'int_parsing');
        }
        return refuse('Input should be a valid integer', 'int_type');
      }
      case 'float': {
        if (typeof value === 'boolean') return value ? 1 : 0;
        if (typeof value === 'number') return value;
        if (typeof value === 'string') {
          const text = value.trim();
          return /^[+-]?(\d+(_\d+)*\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(text) ? Number(text.replace(/_/g, '')) : refuse('Input should be a valid number, unable to parse string as a number', 'float_parsing');
        }
        return refuse('Input should be a valid number', 'float_type');
      }
      default: return value;
    }
  }
  switch (type.kind) {
    case 'optional': return value === null ? null : lax(value, type.inner, loc, issues);
    case 'enum': return typeof value === 'string' && type.values.includes(value) ? value : refuse(`Input should be ${type.values.map((entry) => `'${entry}'`).join(', ').replace(/, ([^,]*)$/, ' or $1')}`, 'enum');
    case 'list': return Array.isArray(value) ? value.map((item, index) => lax(item, type.items, `${loc}.${index}`, issues)) : refuse('Input should be a valid list', 'list_type');
    case 'dict':
      return value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, lax(entry, type.values, `${loc}.${key}`, issues)]))
        : refuse('Input should be a valid dictionary', 'dict_type');
    case 'model': return value;
  }
}

/** A parameter as `validateArguments` reads it. */
export interface ArgumentSpec { name: string; type: PyType; default?: unknown }

/**
 * The arguments `params` as the function receives them, or pydantic's `ValidationError` for `title` (the input
 * model's title: ``Input schema for `send_money` ``).
 */
export function validateArguments(title: string, specs: readonly ArgumentSpec[], params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const issues: Issue[] = [];
  const args: Record<string, unknown> = {};
  for (const spec of specs) {
    if (!Object.hasOwn(params, spec.name)) {
      if (spec.default === undefined) issues.push({ loc: spec.name, message: 'Field required', type: 'missing', input: params });
      else args[spec.name] = spec.default;
      continue;
    }
    args[spec.name] = lax(params[spec.name], spec.type, spec.name, issues);
  }
  if (!issues.length) return args;
  const lines = issues.map((issue) => `${issue.loc}\n  ${issue.message} [type=${issue.type}, input_value=${inputValue(issue.input)}, input_type=${pyTypeName(issue.input)}]\n    For further information visit https://errors.pydantic.dev/${PYDANTIC_RELEASE}/v/${issue.type}`);
  throw new PyError('ValidationError', `${issues.length} validation error${issues.length === 1 ? '' : 's'} for ${title}\n${lines.join('\n')}`);
}
