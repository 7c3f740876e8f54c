/**
 * JSON parsing whose errors say where, never what (RFC 8259 grammar). V8's `JSON.parse` messages quote the
 * input (`Unexpected token 'p', "pw=Hunter2-Secret!" is not valid JSON`), so a message that reaches a
 * response, a log line or a trace could carry the content of a file or a body it was never meant to show.
 * Here the failure is located by a small scanner that runs only after `JSON.parse` has failed, and reported as
 * `invalid JSON at line L, column C`.
 */

import { JsonDepthError, parseWithinDepth } from './json-depth.ts';

/** A JSON syntax error that names a position and nothing of the text. */
export class JsonSyntaxError extends SyntaxError {
  constructor(readonly line: number, readonly column: number) {
    super(`invalid JSON at line ${line}, column ${column}`);
    this.name = 'JsonSyntaxError';
  }
}

const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';
const isHex = (char: string | undefined) => char !== undefined && /^[0-9a-fA-F]$/.test(char);

/** The scanner's text and position; the scan functions below move `index` past what they accept. */
interface Cursor {
  readonly text: string;
  index: number;
}

function skipSpace(cursor: Cursor): void {
  const { text } = cursor;
  while (cursor.index < text.length && (text[cursor.index] === ' ' || text[cursor.index] === '\t' || text[cursor.index] === '\n' || text[cursor.index] === '\r')) cursor.index++;
}

/** A string, from its opening quote; false at the first character that cannot be in one. */
function scanString(cursor: Cursor): boolean {
  const { text } = cursor;
  cursor.index++; // the opening quote
  while (cursor.index < text.length) {
    const code = text.charCodeAt(cursor.index);
    if (code === 0x22) {
      cursor.index++;
      return true;
    }
    if (code < 0x20) return false;
    if (code === 0x5c) {
      const escape = text[cursor.index + 1];
      if (escape !== undefined && '"\\/bfnrt'.includes(escape)) cursor.index += 2;
      else if (escape === 'u') {
        for (let digit = 2; digit < 6; digit++) {
          if (!isHex(text[cursor.index + digit])) {
            cursor.index += digit;
            return false;
          }
        }
        cursor.index += 6;
      } else {
        cursor.index++;
        return false;
      }
      continue;
    }
    cursor.index++;
  }
  return false;
}

function scanDigits(cursor: Cursor): boolean {
  if (!isDigit(cursor.text[cursor.index])) return false;
  while (isDigit(cursor.text[cursor.index])) cursor.index++;
  return true;
}

function scanNumber(cursor: Cursor): boolean {
  const { text } = cursor;
  if (text[cursor.index] === '-') cursor.index++;
  if (text[cursor.index] === '0') cursor.index++;
  else if (!scanDigits(cursor)) return false;
  if (text[cursor.index] === '.') {
    cursor.index++;
    if (!scanDigits(cursor)) return false;
  }
  if (text[cursor.index] === 'e' || text[cursor.index] === 'E') {
    cursor.index++;
    if (text[cursor.index] === '+' || text[cursor.index] === '-') cursor.index++;
    if (!scanDigits(cursor)) return false;
  }
  return true;
}

function scanLiteral(cursor: Cursor, word: string): boolean {
  for (const char of word) {
    if (cursor.text[cursor.index] !== char) return false;
    cursor.index++;
  }
  return true;
}

/** A member name and its colon, after `{` or `,` in an object. */
function scanMemberName(cursor: Cursor): boolean {
  skipSpace(cursor);
  if (cursor.text[cursor.index] !== '"' || !scanString(cursor)) return false;
  skipSpace(cursor);
  if (cursor.text[cursor.index] !== ':') return false;
  cursor.index++;
  return true;
}

/**
 * The start of a value: a scalar or an empty container is `complete`; a container with content is `opened`
 * (pushed on `stack`, and for an object its first member name read).
 */
function scanValueStart(cursor: Cursor, stack: string[]): 'complete' | 'opened' | 'error' {
  skipSpace(cursor);
  const char = cursor.text[cursor.index];
  let complete: boolean;
  if (char === '{' || char === '[') {
    cursor.index++;
    skipSpace(cursor);
    if (cursor.text[cursor.index] !== (char === '{' ? '}' : ']')) {
      stack.push(char);
      return char === '{' && !scanMemberName(cursor) ? 'error' : 'opened';
    }
    cursor.index++;
    complete = true;
  } else if (char === '"') complete = scanString(cursor);
  else if (char === '-' || isDigit(char)) complete = scanNumber(cursor);
  else if (char === 't') complete = scanLiteral(cursor, 'true');
  else if (char === 'f') complete = scanLiteral(cursor, 'false');
  else if (char === 'n') complete = scanLiteral(cursor, 'null');
  else return 'error';
  return complete ? 'complete' : 'error';
}

/** After a value: close containers, or a comma and the next member or element (`next`); `end` at the top. */
function scanAfterValue(cursor: Cursor, stack: string[]): 'next' | 'end' | 'error' {
  for (;;) {
    skipSpace(cursor);
    const open = stack[stack.length - 1];
    if (open === undefined) return 'end';
    const next = cursor.text[cursor.index];
    if (next === ',') {
      cursor.index++;
      return open === '{' && !scanMemberName(cursor) ? 'error' : 'next';
    }
    if (next !== (open === '{' ? '}' : ']')) return 'error';
    cursor.index++;
    stack.pop();
  }
}

/**
 * The offset of the first JSON syntax error in `text` (its length for a text that ends too early), or
 * `undefined` when the text is valid JSON. Iterative, so a hostile nesting depth cannot overflow the stack.
 */
export function jsonErrorOffset(text: string): number | undefined {
  const cursor: Cursor = { text, index: 0 };
  const stack: string[] = [];
  for (;;) {
    const start = scanValueStart(cursor, stack);
    if (start === 'error') return cursor.index;
    if (start === 'opened') continue;
    const after = scanAfterValue(cursor, stack);
    if (after === 'error') return cursor.index;
    if (after === 'end') return cursor.index < text.length ? cursor.index : undefined;
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

/**
 * `parseJson` for JSON that enters from outside (files, CSV cells, JSON Lines): also held to `MAX_JSON_DEPTH`,
 * throwing `JsonDepthError` naming the path past it (core/guards/json-depth.ts).
 */
export function parseBoundedJson(text: string): unknown {
  try {
    return parseWithinDepth(text);
  } catch (error) {
    if (error instanceof JsonDepthError) throw error;
    throw jsonSyntaxError(text);
  }
}
