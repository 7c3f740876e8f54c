/** τ-bench's `calculate`, as Python evaluates and prints it, and the rounding its money sums use. */
import { describe, expect, it } from 'vitest';
import { calculate, pyFloatString, roundMoney } from './calculate.ts';

describe('calculate (Python arithmetic, Python float printing)', () => {
  it.each([
    ['2 + 2', '4.0'], ['10 / 4', '2.5'], ['7 // 2', '3.0'], ['-7 // 2', '-4.0'], ['2 ** -1', '0.5'], ['-2 ** 2', '-4.0'], ['2 ** 3 ** 2', '512.0'],
    ['(1.005 + 0) * 1', '1.0'], ['0.125', '0.12'], ['0.375', '0.38'], ['2.675', '2.67'], ['1.', '1.0'], ['.5 + .25', '0.75'], ['00', '0.0'],
    ['1e3'.replace('e', '*10**'), '1000.0'], ['10 ** 16', '1e+16'], ['10 ** 15 + 0.5', '1000000000000000.5'], ['1 / 100000', '0.0'],
  ])('%s = %s', (expression, expected) => {
    expect(calculate(expression)).toEqual({ result: expected });
  });

  it.each([
    ['1 / 0', 'division by zero'], ['1 // 0', 'integer division or modulo by zero'], ['0 ** -1', '0.0 cannot be raised to a negative power'],
    ['012', 'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)'], ['(1 + 2', "'(' was never closed (<string>, line 1)"],
    ['1 +', 'invalid syntax (<string>, line 1)'], ['1 2', 'invalid syntax (<string>, line 1)'],
    [' ', 'invalid syntax (<string>, line 0)'], ['(1))', "unmatched ')' (<string>, line 1)"], ['(1 + (2)', "'(' was never closed (<string>, line 1)"],
    ['()', "float() argument must be a string or a real number, not 'tuple'"], ['10 ** 400', 'int too large to convert to float'],
    ['1e3', 'Invalid characters in expression'], ['abs(-1)', 'Invalid characters in expression'], ['(-8) ** 0.5', "float() argument must be a string or a real number, not 'complex'"],
  ])('%s is refused: %s', (expression, error) => {
    expect(calculate(expression)).toEqual({ error });
  });

  it('prints floats as Python does', () => {
    expect([0.1, 100, 1e-5, 0.0001, 1.5e16, 1e22, -0, 123.456].map(pyFloatString)).toEqual(['0.1', '100.0', '1e-05', '0.0001', '1.5e+16', '1e+22', '-0.0', '123.456']);
  });

  it('rounds to cents the exact binary value, exact halves to even (Python round(x, 2))', () => {
    expect([115.39999999999999, 0.125, 0.375, -0.125, 2.675, 1.005, 130.50000000000003].map(roundMoney)).toEqual([115.4, 0.12, 0.38, -0.12, 2.67, 1, 130.5]);
  });
});
