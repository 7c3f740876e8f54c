/**
 * What makes a PRD expensive to parse, measured in one linear pass over the raw text (no Markdown parsing, no
 * regex): the largest table (columns × rows), the deepest nesting of lists and quotes, the densest block of
 * emphasis and link delimiters, and the length. A conversion that runs past its budget answers 422
 * `spec_too_complex` with these, so the author knows what to split.
 */

/** The structures of a document that drive the Markdown parser's cost, each with the line it starts on. */
export interface SpecComplexity {
  lines: number;
  bytes: number;
  /** The table-like run of lines (each holding a `|`) with the most cells. */
  largestTable?: { line: number; columns: number; rows: number };
  /** The deepest list or quote nesting: indentation (2 spaces or a tab a level) plus `>` markers. */
  deepestNesting?: { line: number; depth: number };
  /** The block (run of non-blank lines) with the most `*` `_` `[` `]` characters. */
  densestBlock?: { line: number; delimiters: number };
}

/** Measures a document; linear in its length. */
export function measureComplexity(markdown: string): SpecComplexity {
  const complexity: SpecComplexity = { lines: 0, bytes: new TextEncoder().encode(markdown).byteLength };
  let line = 0;
  let table: { line: number; columns: number; rows: number } | undefined;
  let block: { line: number; delimiters: number } | undefined;
  const closeTable = () => {
    if (table && table.rows > 1 && (!complexity.largestTable || table.columns * table.rows > complexity.largestTable.columns * complexity.largestTable.rows)) complexity.largestTable = table;
    table = undefined;
  };
  const closeBlock = () => {
    if (block && block.delimiters > 0 && (!complexity.densestBlock || block.delimiters > complexity.densestBlock.delimiters)) complexity.densestBlock = block;
    block = undefined;
  };
  let start = 0;
  while (start <= markdown.length) {
    let end = start;
    while (end < markdown.length && markdown.charCodeAt(end) !== 10 && markdown.charCodeAt(end) !== 13) end++;
    line++;
    let pipes = 0;
    let delimiters = 0;
    let blank = true;
    let depth = 0;
    let indent = 0;
    let leading = true;
    let first = 0;
    let last = 0;
    for (let index = start; index < end; index++) {
      const char = markdown.charCodeAt(index);
      if (leading) {
        // Indentation counts before the first `>` only: `> > x` is two quotes, not two quotes and an indent.
        if (char === 62) depth++;
        else if (char === 32) indent += depth === 0 ? 1 : 0;
        else if (char === 9) indent += depth === 0 ? 2 : 0;
        else leading = false;
      }
      if (char !== 32 && char !== 9) {
        if (blank) first = char;
        blank = false;
        last = char;
      }
      if (char === 124) pipes++;
      else if (char === 42 || char === 95 || char === 91 || char === 93) delimiters++;
    }
    depth += Math.floor(indent / 2);
    if (depth > 0 && (!complexity.deepestNesting || depth > complexity.deepestNesting.depth)) complexity.deepestNesting = { line, depth };
    if (blank) {
      closeTable();
      closeBlock();
    } else {
      block ??= { line, delimiters: 0 };
      block.delimiters += delimiters;
      if (pipes > 0) {
        table ??= { line, columns: 0, rows: 0 };
        table.rows++;
        // `| a | b |` has two cells: the outer pipes are optional in GFM and open or close no cell.
        table.columns = Math.max(table.columns, pipes + 1 - (first === 124 ? 1 : 0) - (last === 124 && pipes > 1 ? 1 : 0));
      } else closeTable();
    }
    if (end >= markdown.length) break;
    start = end + (markdown.charCodeAt(end) === 13 && markdown.charCodeAt(end + 1) === 10 ? 2 : 1);
  }
  closeTable();
  closeBlock();
  complexity.lines = line;
  return complexity;
}

/** The measures as a sentence for a problem's detail: the largest structures first. */
export function describeComplexity(complexity: SpecComplexity): string {
  const parts: string[] = [];
  const { largestTable: table, deepestNesting: nesting, densestBlock: dense } = complexity;
  if (table) parts.push(`a table at line ${table.line} of about ${table.columns} columns × ${table.rows} rows (${(table.columns * table.rows).toLocaleString('en-US')} cells)`);
  if (nesting && nesting.depth >= 4) parts.push(`nesting ${nesting.depth} levels deep at line ${nesting.line}`);
  if (dense && dense.delimiters >= 200) parts.push(`a block at line ${dense.line} with ${dense.delimiters.toLocaleString('en-US')} emphasis or link characters`);
  parts.push(`${complexity.lines.toLocaleString('en-US')} lines, ${complexity.bytes.toLocaleString('en-US')} bytes`);
  return parts.join('; ');
}
