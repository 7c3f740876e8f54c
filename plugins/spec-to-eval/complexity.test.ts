import { describe, expect, it } from 'vitest';
import { describeComplexity, measureComplexity } from './complexity.ts';

describe('spec-to-eval: complexity', () => {
  it('finds the largest table, with or without outer pipes', () => {
    const markdown = '# PRD\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nx\n\na | b | c\n--|--|--\n1 | 2 | 3\n4 | 5 | 6\n';
    expect(measureComplexity(markdown).largestTable).toEqual({ line: 9, columns: 3, rows: 4 });
    expect(measureComplexity('a | b\n').largestTable).toBeUndefined();
  });

  it('finds the deepest nesting and the densest block, and counts CRLF and CR as one line each', () => {
    const complexity = measureComplexity('- a\r\n  - b\r    - c\n      > > d\n\n**x** _y_ [z]\n');
    expect(complexity.deepestNesting).toEqual({ line: 4, depth: 5 });
    expect(complexity.densestBlock).toEqual({ line: 6, delimiters: 8 });
    expect(complexity.lines).toBe(7);
  });

  it('describes the structures that matter, largest first', () => {
    const table = Array.from({ length: 50 }, () => `|${' x |'.repeat(40)}`).join('\n');
    expect(describeComplexity(measureComplexity(`# PRD: T\n\n${table}\n`))).toBe('a table at line 3 of about 40 columns × 50 rows (2,000 cells); 53 lines, 8,110 bytes');
  });

  it('is linear: a megabyte of pipes or markers is one pass', () => {
    expect(measureComplexity('|'.repeat(1_000_000)).lines).toBe(1);
    expect(measureComplexity('> '.repeat(500_000)).deepestNesting?.depth).toBe(500_000);
  });
});
