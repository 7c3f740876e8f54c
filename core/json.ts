/**
 * JSON parsing whose errors say where, never what (RFC 8259 grammar). V8's `JSON.parse` messages quote the
 * input (`Unexpected token 'p', "pw=Hunter2-Secret!" is not valid JSON`), so a message that reaches a
 * response, a log line or a trace could carry the content of a file or a body it was never meant to show.
 * Here the failure is located by a small scanner that runs only after `JSON.parse` has failed, and reported as
 * `invalid JSON at line L, column C`.
 */

/** A JSON syntax error that names a position and nothing of the text. */
export class JsonSyntaxError extends SyntaxError {
  constructor(readonly line: number, readonly column: number) {
    super(`invalid JSON at line ${line}, column ${column}`);
    this.name = 'JsonSyntaxError';
  }
}

const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';
const isHex = (char: string | undefined) => char !== undefined && /^[0-9a-fA-F]$/.test(char);

/**
 * The offset of the first JSON syntax error in `text` (its length for a text that ends too early), or
 * `undefined` when the text is valid JSON. Iterative, so a hostile nesting depth cannot overflow the stack.
 */
export function jsonErrorOffset(text: string): number | undefined {
  const length = text.length;
  const stack: string[] = [];
  let index = 0;
  const skipSpace = () => {
    while (index < length && (text[index] === ' ' || text[index] === '\t' || text[index] === '\n' || text[index] === '\r')) index++;
  };
  const string = (): boolean => {
    index++; // the opening quote
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code === 0x22) {
        index++;
        return true;
      }
      if (code < 0x20) return false;
      if (code === 0x5c) {
        const escape = text[index + 1];
        if (escape !== undefined && '"\\/bfnrt'.includes(escape)) index += 2;
        else if (escape === 'u') {
          for (let digit = 2; digit < 6; digit++) {
            if (!isHex(text[index + digit])) {
              index += digit;
              return false;
            }
          }
          index += 6;
        } else {
          index++;
          return false;
        }
        continue;
      }
      index++;
    }
    return false;
  };
  const digits = (): boolean => {
    if (!isDigit(text[index])) return false;
    while (isDigit(text[index])) index++;
    return true;
  };
  const number = (): boolean => {
    if (text[index] === '-') index++;
    if (text[index] === '0') index++;
    else if (!digits()) return false;
    if (text[index] === '.') {
      index++;
      if (!digits()) return false;
    }
    if (text[index] === 'e' || text[index] === 'E') {
      index++;
      if (text[index] === '+' || text[index] === '-') index++;
      if (!digits()) return false;
    }
    return true;
  };
  const literal = (word: string): boolean => {
    for (const char of word) {
      if (text[index] !== char) return false;
      index++;
    }
    return true;
  };
  /** A member name and its colon, after `{` or `,` in an object. */
  const memberName = (): boolean => {
    skipSpace();
    if (text[index] !== '"' || !string()) return false;
    skipSpace();
    if (text[index] !== ':') return false;
    index++;
    return true;
  };

  for (;;) {
    skipSpace();
    const char = text[index];
    let complete: boolean;
    if (char === '{' || char === '[') {
      index++;
      skipSpace();
      if (text[index] === (char === '{' ? '}' : ']')) {
        index++;
        complete = true;
      } else {
        stack.push(char);
        if (char === '{' && !memberName()) return index;
        continue;
      }
    } else if (char === '"') complete = string();
    else if (char === '-' || isDigit(char)) complete = number();
    else if (char === 't') complete = literal('true');
    else if (char === 'f') complete = literal('false');
    else if (char === 'n') complete = literal('null');
    else return index;
    if (!complete) return index;
    // After a value: close containers, or a comma and the next member or element.
    for (;;) {
      skipSpace();
      const open = stack[stack.length - 1];
      if (open === undefined) return index < length ? index : undefined;
      const next = text[index];
      if (next === ',') {
        index++;
        if (open === '{' && !memberName()) return index;
        break;
      }
      if (next === (open === '{' ? '}' : ']')) {
        index++;
        stack.pop();
        continue;
      }
      return index;
    }
  }
}

/** Line and column (both from 1, columns in UTF-16 code units) of an offset in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The `JsonSyntaxError` for a text `JSON.parse` refused. */
export function jsonSyntaxError(text: string): JsonSyntaxError {
  const { line, column } = lineAndColumn(text, jsonErrorOffset(text) ?? text.length);
  return new JsonSyntaxError(line, column);
}

/**
 * `JSON.parse` with an error that locates the failure without quoting the text: throws `JsonSyntaxError`
 * (`invalid JSON at line L, column C`). The scanner runs only on failure; valid input costs one `JSON.parse`.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw jsonSyntaxError(text);
  }
}
