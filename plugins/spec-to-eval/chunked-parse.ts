/**
 * A long PRD parsed in pieces. mdast-util-from-markdown's time grows faster than the document on long runs of
 * test cases (1 MiB of H3 cases: 14 s, against 0.2 s for 64 KiB), so a document over `CHUNK_CHARS` is cut at
 * headings that start a line with no indentation, outside fenced code, into pieces of about that size; each
 * piece is parsed alone and its nodes' positions are shifted back to the source's lines and offsets. A heading
 * at column 1 always ends the block before it (a list, a quote, a paragraph), so the pieces are what the whole
 * parse would make of them — except that a link reference definition applies only within its piece.
 */
import type { Nodes, Root } from 'mdast';

/** Documents up to this size are parsed whole; longer ones in pieces of about this size. */
export const CHUNK_CHARS = 32 * 1024;

const HEADING = /^#{1,6}(?:[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Offsets (and 0-based line numbers) where pieces start: line-start headings outside fences, every CHUNK_CHARS or so. */
function pieceStarts(markdown: string, chunkChars: number): Array<{ offset: number; line: number }> {
  const starts = [{ offset: 0, line: 0 }];
  let fence: string | undefined;
  let offset = 0;
  let line = 0;
  while (offset < markdown.length) {
    let end = markdown.indexOf('\n', offset);
    if (end < 0) end = markdown.length;
    const text = markdown.slice(offset, Math.min(end, offset + 64));
    const marker = FENCE.exec(text)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker) {
      fence = marker;
    } else if (HEADING.test(text) && offset - starts[starts.length - 1].offset >= chunkChars) {
      starts.push({ offset, line });
    }
    offset = end + 1;
    line++;
  }
  return starts;
}

/** Shifts a node's and its descendants' positions by a piece's place in the source. */
function shift(node: Nodes, lines: number, offset: number): void {
  const position = node.position;
  if (position) {
    position.start = { ...position.start, line: position.start.line + lines, offset: (position.start.offset ?? 0) + offset };
    position.end = { ...position.end, line: position.end.line + lines, offset: (position.end.offset ?? 0) + offset };
  }
  if ('children' in node) for (const child of node.children as Nodes[]) shift(child, lines, offset);
}

/**
 * Parses `markdown` with `parse`, whole when short, else piece by piece as above. Lines are counted on `\n`:
 * the front matter step before this keeps CR endings out of the line arithmetic that matters (a CR-only file
 * is parsed whole).
 */
export function parseInPieces(markdown: string, parse: (text: string) => Root, chunkChars = CHUNK_CHARS): Root {
  if (markdown.length <= chunkChars || (markdown.includes('\r') && !markdown.includes('\n'))) return parse(markdown);
  const starts = pieceStarts(markdown, chunkChars);
  if (starts.length === 1) return parse(markdown);
  const root: Root = { type: 'root', children: [] };
  starts.forEach((start, index) => {
    const end = index + 1 < starts.length ? starts[index + 1].offset : markdown.length;
    const piece = parse(markdown.slice(start.offset, end));
    for (const child of piece.children) {
      shift(child, start.line, start.offset);
      root.children.push(child);
    }
  });
  const last = root.children[root.children.length - 1];
  root.position = { start: { line: 1, column: 1, offset: 0 }, end: last?.position?.end ?? { line: 1, column: 1, offset: 0 } };
  return root;
}
