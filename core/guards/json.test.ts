import { describe, it, expect } from 'vitest';
import { jsonErrorOffset, JsonSyntaxError, lineAndColumn, parseJson } from './json.ts';

function message(text: string): string {
  try {
    parseJson(text);
  } catch (error) {
    expect(error).toBeInstanceOf(JsonSyntaxError);
    return (error as Error).message;
  }
  throw new Error('expected a JSON syntax error');
}

describe('core: parseJson', () => {
  it('parses valid JSON like JSON.parse', () => {
    expect(parseJson('{"a":[1,-2.5e3,true,false,null,"x\\u00e9\\n"]}')).toEqual({ a: [1, -2500, true, false, null, 'xé\n'] });
  });

  it('says where without quoting the text (issue 13 item 6)', () => {
    const text = 'pw=Hunter2-Secret!';
    expect(message(text)).toBe('invalid JSON at line 1, column 1');
    expect(message(text)).not.toContain('Hunter2');
  });

  it.each([
    ['{"a":1,}', 1, 8],
    ['{"a" 1}', 1, 6],
    ['[1, 2', 1, 6],
    ['', 1, 1],
    ['{\n  "key": "value",\n  "secret": Hunter2\n}', 3, 13],
    ['{"a":"\u0001"}', 1, 7],
    ['{"a":"\\x"}', 1, 8],
    ['{"a":"\\u12G4"}', 1, 11],
    ['[01]', 1, 3],
    ['[1.]', 1, 4],
    ['[-]', 1, 3],
    ['[1e]', 1, 4],
    ['{"a":tru}', 1, 9],
    ['{"a":1} x', 1, 9],
    ['"unterminated', 1, 14],
    ['{"a":1}}', 1, 8],
    ['[1}', 1, 3],
    ['{1:2}', 1, 2],
    ['\ufeff{}', 1, 1],
  ])('%j → line %i, column %i', (text, line, column) => {
    expect(message(text)).toBe(`invalid JSON at line ${line}, column ${column}`);
  });

  it('agrees with JSON.parse on which texts are valid', () => {
    const pieces = ['{', '}', '[', ']', '"a"', ':', ',', '1', '-0.5e+2', 'true', 'null', ' ', '\n', 'x', '"\\', '01'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 3000; round++) {
      let text = '';
      const parts = 1 + Math.floor(random() * 8);
      for (let part = 0; part < parts; part++) text += pieces[Math.floor(random() * pieces.length)];
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      expect(jsonErrorOffset(text) === undefined, text).toBe(valid);
    }
  });

  it('survives hostile nesting without overflowing the stack', () => {
    const deep = '['.repeat(200_000);
    expect(jsonErrorOffset(deep)).toBe(200_000);
    expect(jsonErrorOffset(`${deep}${']'.repeat(200_000)}`)).toBeUndefined();
  });

  it('counts lines and columns from 1', () => {
    expect(lineAndColumn('ab\ncd\nef', 7)).toEqual({ line: 3, column: 2 });
    expect(lineAndColumn('abc', 0)).toEqual({ line: 1, column: 1 });
  });
});
