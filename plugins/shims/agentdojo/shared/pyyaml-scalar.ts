/**
 * How PyYAML (6.0, `yaml/emitter.py` and `yaml/resolver.py`) writes one string scalar in block context: the style
 * it chooses (plain, single- or double-quoted), and where it breaks long lines. The `yaml` package lays out the
 * document (yaml-dump.ts) and calls this for every string: its own folding breaks before a line passes the
 * width, where PyYAML breaks at the first space after it, and its double-quoted folding keeps the space where
 * PyYAML escapes it (`\` at the line's end, `\ ` on the next), so the text an agent reads, and the places where
 * injected text meets a line break when the environment is re-read, differ unless the scalars are PyYAML's.
 * Positions count code points, as Python's `str` does.
 */

/** PyYAML's implicit resolvers (YAML 1.1): a plain scalar matching one would not read back as a string. */
const RESOLVERS: Array<[string, RegExp]> = [
  ['yYnNtTfFoO', /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)\n?$/],
  ['-+0123456789.', /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\n?$/],
  ['-+0123456789', /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)\n?$/],
  ['<', /^(?:<<)\n?$/],
  ['~nN', /^(?:~|null|Null|NULL|)\n?$/],
  ['0123456789', /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)\n?$/],
  ['=', /^(?:=)\n?$/],
];

/** True when PyYAML's resolver reads `text`, written plain, as a string (`implicit[0]`). */
export function resolvesAsString(text: string): boolean {
  if (text === '') return false; // the null resolver's empty first character
  const first = text[0]!;
  return !RESOLVERS.some(([firsts, pattern]) => firsts.includes(first) && pattern.test(text));
}

const BREAKS = '\n\x85\u2028\u2029';
const SPACE_OR_BREAK = '\0 \t\r\n\x85\u2028\u2029';

interface Analysis { empty: boolean; multiline: boolean; blockPlain: boolean; singleQuoted: boolean }

const isUnicodePrintable = (ch: string) => {
  const code = ch.codePointAt(0)!;
  return (code === 0x85 || (code >= 0xa0 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code < 0x10ffff)) && code !== 0xfeff;
};

/** PyYAML's `analyze_scalar` (allow_unicode off, as `safe_dump` and `dump` default), block context only. */
function analyze(chars: string[]): Analysis {
  if (chars.length === 0) return { empty: true, multiline: false, blockPlain: true, singleQuoted: true };
  const text = chars.join('');
  let blockIndicators = text.startsWith('---') || text.startsWith('...');
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let followedByWhitespace = chars.length === 1 || SPACE_OR_BREAK.includes(chars[1]!);
  let previousSpace = false;
  let previousBreak = false;
  for (let index = 0; index < chars.length; index++) {
    const ch = chars[index]!;
    if (index === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      if ('?:'.includes(ch) && followedByWhitespace) blockIndicators = true;
      if (ch === '-' && followedByWhitespace) blockIndicators = true;
    } else {
      if (ch === ':' && followedByWhitespace) blockIndicators = true;
      if (ch === '#' && precededByWhitespace) blockIndicators = true;
    }
    if (BREAKS.includes(ch)) lineBreaks = true;
    const code = ch.codePointAt(0)!;
    // Non-ASCII characters are special without allow_unicode, printable or not.
    if (!(ch === '\n' || (code >= 0x20 && code <= 0x7e))) special = true;
    if (ch === ' ') {
      if (index === 0) leadingSpace = true;
      if (index === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (BREAKS.includes(ch)) {
      if (index === 0) leadingBreak = true;
      if (index === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = SPACE_OR_BREAK.includes(ch);
    followedByWhitespace = index + 2 >= chars.length || SPACE_OR_BREAK.includes(chars[index + 2]!);
  }
  let blockPlain = !(leadingSpace || leadingBreak || trailingSpace || trailingBreak);
  let singleQuoted = true;
  if (breakSpace) blockPlain = singleQuoted = false;
  if (spaceBreak || special) blockPlain = singleQuoted = false;
  if (lineBreaks || blockIndicators) blockPlain = false;
  return { empty: false, multiline: lineBreaks, blockPlain, singleQuoted };
}

/** Where a scalar is written: the column it starts at, its indent for continuation lines, whether it is a key. */
export interface ScalarPlace {
  column: number;
  indent: number;
  simpleKey: boolean;
}

/** PyYAML's emitter state while one scalar is written (`column`, `whitespace`, `indention`) and its output. */
class Writer {
  out = '';
  whitespace = true;
  indention = false;
  constructor(public column: number, readonly indent: number) {}
  write(data: string): void {
    this.out += data;
    this.column += [...data].length;
  }
  lineBreak(data = '\n'): void {
    this.whitespace = true;
    this.indention = true;
    this.column = 0;
    this.out += data;
  }
  writeIndent(): void {
    if (!this.indention || this.column > this.indent || (this.column === this.indent && !this.whitespace)) this.lineBreak();
    if (this.column < this.indent) {
      this.whitespace = true;
      this.out += ' '.repeat(this.indent - this.column);
      this.column = this.indent;
    }
  }
}

const BEST_WIDTH = 80;

function writePlain(w: Writer, text: string[], split: boolean): void {
  w.whitespace = false;
  w.indention = false;
  let spaces = false;
  let breaks = false;
  let start = 0;
  for (let end = 0; end <= text.length; end++) {
    const ch = end < text.length ? text[end] : undefined;
    if (spaces) {
      if (ch !== ' ') {
        if (start + 1 === end && w.column > BEST_WIDTH && split) {
          w.writeIndent();
          w.whitespace = false;
          w.indention = false;
        } else w.write(text.slice(start, end).join(''));
        start = end;
      }
    } else if (breaks) {
      if (ch === undefined || !BREAKS.includes(ch)) {
        if (text[start] === '\n') w.lineBreak();
        for (const br of text.slice(start, end)) w.lineBreak(br);
        w.writeIndent();
        w.whitespace = false;
        w.indention = false;
        start = end;
      }
    } else if (ch === undefined || ` ${BREAKS}`.includes(ch)) {
      w.write(text.slice(start, end).join(''));
      start = end;
    }
    if (ch !== undefined) {
      spaces = ch === ' ';
      breaks = BREAKS.includes(ch);
    }
  }
}

function writeSingleQuoted(w: Writer, text: string[], split: boolean): void {
  w.write("'");
  w.whitespace = false;
  w.indention = false;
  let spaces = false;
  let breaks = false;
  let start = 0;
  for (let end = 0; end <= text.length; end++) {
    const ch = end < text.length ? text[end] : undefined;
    if (spaces) {
      if (ch === undefined || ch !== ' ') {
        if (start + 1 === end && w.column > BEST_WIDTH && split && start !== 0 && end !== text.length) w.writeIndent();
        else w.write(text.slice(start, end).join(''));
        start = end;
      }
    } else if (breaks) {
      if (ch === undefined || !BREAKS.includes(ch)) {
        if (text[start] === '\n') w.lineBreak();
        for (const br of text.slice(start, end)) w.lineBreak(br);
        w.writeIndent();
        start = end;
      }
    } else if (ch === undefined || ` ${BREAKS}`.includes(ch) || ch === "'") {
      if (start < end) {
        w.write(text.slice(start, end).join(''));
        start = end;
      }
    }
    if (ch === "'") {
      w.write("''");
      start = end + 1;
    }
    if (ch !== undefined) {
      spaces = ch === ' ';
      breaks = BREAKS.includes(ch);
    }
  }
  w.write("'");
}

const ESCAPES: Record<string, string> = {
  '\0': '0', '\x07': 'a', '\x08': 'b', '\t': 't', '\n': 'n', '\x0b': 'v', '\x0c': 'f', '\r': 'r', '\x1b': 'e',
  '"': '"', '\\': '\\', '\x85': 'N', '\xa0': '_', '\u2028': 'L', '\u2029': 'P',
};

function escapeOf(ch: string): string {
  if (Object.hasOwn(ESCAPES, ch)) return `\\${ESCAPES[ch]}`;
  const code = ch.codePointAt(0)!;
  const hex = code.toString(16).toUpperCase();
  return code <= 0xff ? `\\x${hex.padStart(2, '0')}` : code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`;
}

function writeDoubleQuoted(w: Writer, text: string[], split: boolean): void {
  w.write('"');
  w.whitespace = false;
  w.indention = false;
  let start = 0;
  for (let end = 0; end <= text.length; end++) {
    const ch = end < text.length ? text[end] : undefined;
    const code = ch?.codePointAt(0) ?? 0;
    if (ch === undefined || '"\\\x85\u2028\u2029\ufeff'.includes(ch) || !(code >= 0x20 && code <= 0x7e)) {
      if (start < end) {
        w.write(text.slice(start, end).join(''));
        start = end;
      }
      if (ch !== undefined) {
        w.write(escapeOf(ch));
        start = end + 1;
      }
    }
    if (end > 0 && end < text.length - 1 && (ch === ' ' || start >= end) && w.column + (end - start) > BEST_WIDTH && split) {
      w.write(`${text.slice(start, end).join('')}\\`);
      if (start < end) start = end;
      w.writeIndent();
      w.whitespace = false;
      w.indention = false;
      if (text[start] === ' ') w.write('\\');
    }
  }
  w.write('"');
}

/**
 * PyYAML's text for the string `value` at `place`: plain when it may be (and reads back as a string), else
 * single-quoted, else double-quoted; `style: '"'` forces double quotes (AgentDojo's environment dump). The text
 * starts at `place.column`, the separating space already written.
 */
export function pyYamlScalar(value: string, place: ScalarPlace, style?: '"'): string {
  const key = `${style ?? ''}${place.simpleKey ? 'k' : ''}${place.column},${place.indent},${value}`;
  let text = written.get(key);
  if (text === undefined) {
    if (written.size >= MAX_WRITTEN) written.clear();
    written.set(key, (text = writeScalar(value, place, style)));
  }
  return text;
}

// A replay writes the same strings at the same places over and over (every unit's world holds the suite's mail,
// files and events; the tools list them again for each unit): writing them code point by code point was a fifth
// of a travel and workspace replay's CPU. Bounded: a full cache starts again empty.
const MAX_WRITTEN = 50_000;
const written = new Map<string, string>();

function writeScalar(value: string, place: ScalarPlace, style?: '"'): string {
  const chars = [...value];
  const analysis = analyze(chars);
  const writer = new Writer(place.column, place.indent);
  const split = !place.simpleKey;
  if (style === '"') writeDoubleQuoted(writer, chars, split);
  else if (!(place.simpleKey && (analysis.empty || analysis.multiline)) && analysis.blockPlain && resolvesAsString(value)) writePlain(writer, chars, split);
  else if (analysis.singleQuoted && !(place.simpleKey && analysis.multiline)) writeSingleQuoted(writer, chars, split);
  else writeDoubleQuoted(writer, chars, split);
  return writer.out;
}
