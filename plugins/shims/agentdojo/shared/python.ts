/**
 * Python's own text for values, as AgentDojo's tools and runtime print them: `repr` of floats (shortest round-trip,
 * `1e-05`, `1e+16`), `str` and `repr` of strings, lists and dicts (`{'message': 'Transaction to … sent.'}` is what
 * the agent reads when a tool returns a dict), `True`/`None`, and the error line its FunctionsRuntime returns
 * (`ValueError: Channel does not exist!`). Python 3.11 semantics; a string is indexed by code point, as Python does.
 */

/** A float as Python's `repr` (and `str`) prints it: `100.0`, `98.7`, `1e-05`, `1e+16`, `inf`, `nan`. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (Object.is(value, -0)) return '-0.0';
  const abs = Math.abs(value);
  // Python switches to exponent notation outside [1e-4, 1e16); JavaScript outside [1e-6, 1e21).
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** An int as Python prints it (JavaScript numbers past 2^53 are not ints AgentDojo's data holds). */
export function pyIntRepr(value: number): string {
  return Number.isInteger(value) ? value.toFixed(0) : pyFloatRepr(value);
}

/** A marker for a value Python holds as a float even when it is integral (`amount: float`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Python's `repr` of a string: single quotes unless it holds `'` and no `"`, escapes as CPython writes them. */
export function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (!isPrintable(code)) out += code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/**
 * Python's `str.isprintable` for one code point, approximately: what Unicode calls other (control, format,
 * surrogate, unassigned, private use) and separators but the space are not printable.
 */
function isPrintable(code: number): boolean {
  if (code === 0x20) return true;
  if (code >= 0x7f && code <= 0xa0) return false;
  if (code === 0xad) return false;
  return !/[\p{C}\p{Z}]/u.test(String.fromCodePoint(code));
}

/** Python's `repr` of a value: dicts and lists as Python prints them, floats marked with `PyFloat`. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (typeof value === 'number') return pyIntRepr(value);
  if (typeof value === 'string') return pyStrRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value).map(([key, entry]) => `${pyStrRepr(key)}: ${pyRepr(entry)}`).join(', ')}}`;
  return String(value);
}

/** Python's `str` of a value: a string as it is, anything else as its `repr`. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

/**
 * An exception a tool raises, as AgentDojo's FunctionsRuntime reports it: `"{type(e).__name__}: {e}"`. `KeyError`'s
 * `str` is the repr of its key, as CPython prints it.
 */
export class PyError extends Error {
  /**
   * @param partial the environment as the tool left it when it raised, for a tool that changed it before raising
   * (Python mutates in place, and the reference keeps what was done); absent, the call changed nothing.
   */
  constructor(readonly type: string, message: string, readonly partial?: unknown) {
    super(message);
  }

  /** The line the agent reads (the runtime's error string). */
  get text(): string {
    return `${this.type}: ${this.message}`;
  }
}

/** Throws Python's `ValueError(message)`. */
export function valueError(message: string): never {
  throw new PyError('ValueError', message);
}

/** Throws Python's `KeyError(key)`, whose message is the key's repr. */
export function keyError(key: unknown): never {
  throw new PyError('KeyError', pyRepr(key));
}

/** Python's `dict[key]`: the value, or the `KeyError` CPython raises. */
export function pyGet<T>(record: Readonly<Record<string, T>>, key: string): T {
  return Object.hasOwn(record, key) ? record[key]! : keyError(key);
}

/** Python's `str.lower()` on the characters AgentDojo's data holds (JavaScript's full Unicode lowering). */
export const pyLower = (text: string) => text.toLowerCase();
