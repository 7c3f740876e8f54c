/**
 * τ-bench's `calculate` tool: an arithmetic expression of digits, `+ - * / ( ) .` and spaces, evaluated as
 * Python would (`**` power, `//` floor division, unary signs), rounded to two decimals and printed as Python
 * prints a float (`4.0`, `8276.23`). A small recursive-descent parser over a length-capped string, no `eval`.
 * Numbers are doubles: integers past 2^53 lose the exactness Python's would keep.
 */
const ALLOWED = /^[0-9+\-*/(). ]*$/;

class ExpressionError extends Error {}

/** A syntax error, worded as Python's `str(SyntaxError)` of an `eval` is (with where it was). */
class PythonSyntaxError extends ExpressionError {
  constructor(message: string) {
    super(`${message} (<string>, line 1)`);
  }
}

function parse(text: string): number {
  if (text.trim() === '') throw new ExpressionError('invalid syntax (<string>, line 0)');
  let at = 0;
  let depth = 0;
  // Python's tokenizer reports brackets before grammar: an unclosed '(' at the end, a stray ')' anywhere.
  const syntax = () => {
    skip();
    if (at >= text.length && depth > 0) return new PythonSyntaxError("'(' was never closed");
    if (text[at] === ')' && depth === 0) return new PythonSyntaxError("unmatched ')'");
    return new PythonSyntaxError('invalid syntax');
  };
  const skip = () => { while (text[at] === ' ') at++; };
  const peek = (token: string) => { skip(); return text.startsWith(token, at); };
  const take = (token: string) => { if (!peek(token)) return false; at += token.length; return true; };

  function number(): number {
    skip();
    const match = /^(\d*\.\d*|\d+)/.exec(text.slice(at));
    if (!match || match[0] === '.') throw syntax();
    // Python refuses integer literals with leading zeros (`012`); `0.12` and `00` are fine.
    if (!match[0].includes('.') && /^0+[1-9]/.test(match[0])) throw new PythonSyntaxError('leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers');
    at += match[0].length;
    return Number(match[0].endsWith('.') ? match[0].slice(0, -1) : match[0]);
  }
  function atom(): number {
    if (take('(')) {
      if (take(')')) throw new ExpressionError("float() argument must be a string or a real number, not 'tuple'");
      depth++;
      const value = sum();
      if (!take(')')) throw syntax();
      depth--;
      return value;
    }
    return number();
  }
  function power(): number {
    const base = atom();
    if (!take('**')) return base;
    const exponent = unary();
    if (base === 0 && exponent < 0) throw new ExpressionError('0.0 cannot be raised to a negative power');
    const value = base ** exponent;
    if (Number.isNaN(value)) throw new ExpressionError("float() argument must be a string or a real number, not 'complex'");
    return value;
  }
  function unary(): number {
    if (take('-')) return -unary();
    if (take('+')) return unary();
    return power();
  }
  function product(): number {
    let value = unary();
    for (;;) {
      if (peek('**')) throw syntax();
      if (take('//')) {
        const right = unary();
        if (right === 0) throw new ExpressionError('integer division or modulo by zero');
        value = Math.floor(value / right);
      } else if (take('*')) value *= unary();
      else if (take('/')) {
        const right = unary();
        if (right === 0) throw new ExpressionError('division by zero');
        value /= right;
      } else return value;
    }
  }
  function sum(): number {
    let value = product();
    for (;;) {
      if (take('+')) value += product();
      else if (take('-')) value -= product();
      else return value;
    }
  }
  const value = sum();
  skip();
  if (at !== text.length) throw syntax();
  if (!Number.isFinite(value)) throw new ExpressionError('int too large to convert to float');
  return value;
}

/** Python's `repr(float)`: the shortest round-trip digits, fixed between 1e-4 and 1e16, else `1.5e+16`. */
export function pyFloatString(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  const point = exponent + 1;
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${head}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** The result τ-bench's `calculate` returns, or the message of the error it raises. */
export function calculate(expression: string): { result: string } | { error: string } {
  if (!ALLOWED.test(expression)) return { error: 'Invalid characters in expression' };
  try {
    return { result: pyFloatString(roundMoney(parse(expression))) };
  } catch (error) {
    if (error instanceof ExpressionError) return { error: error.message };
    throw error;
  }
}

/** Python's `round(x, 2)` of a float: the exact binary value rounded to cents, exact ties to even. */
export function roundMoney(value: number): number {
  // Python rounds the exact binary value half to even; toFixed rounds the exact value too, ties away from zero.
  const fixed = Number(value.toFixed(2));
  const scaled = value * 1000;
  const tie = Number.isInteger(value * 8) && Math.abs(scaled % 10) === 5;
  if (!tie) return fixed;
  const down = Math.trunc(value * 100) / 100;
  const up = down + Math.sign(value) / 100;
  return Math.round(Math.abs(down) * 100) % 2 === 0 ? down : Number(up.toFixed(2));
}
