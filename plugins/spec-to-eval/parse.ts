/**
 * Parsing a PRD: Markdown (CommonMark + GFM lists, task lists and tables) into an mdast tree with
 * mdast-util-from-markdown; nothing in spec-to-eval reads Markdown structure any other way.
 *
 * Front matter (`---` YAML or `+++` TOML at the very top) is not Markdown: its lines are blanked before the
 * parse, keeping their line endings, so every node's `position.start.line` still points at the source line.
 * CRLF and CR line endings count as one line each (micromark's rule), and a leading BOM is ignored.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfm } from 'micromark-extension-gfm';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import type { Nodes, Root } from 'mdast';
import { parseInPieces } from './chunked-parse.ts';

/** A parsed PRD. */
export interface ParsedSpec {
  tree: Root;
  /** Top-level scalar `key: value` pairs of the front matter, keys lower-cased (`industry`, `use_case`...). */
  frontMatter: Record<string, string>;
  /** Number of source lines the front matter occupies (0 without front matter). */
  frontMatterLines: number;
}

interface SourceLine {
  text: string;
  /** The line ending that followed it (`\n`, `\r\n`, `\r` or `` at the end). */
  ending: string;
}

/** Splits text into lines with their endings, without interpreting anything else. */
function splitLines(text: string, maxLines: number): SourceLine[] {
  const lines: SourceLine[] = [];
  let start = 0;
  for (let index = 0; index < text.length && lines.length < maxLines; index++) {
    const char = text.charCodeAt(index);
    if (char !== 10 && char !== 13) continue;
    const ending = char === 13 && text.charCodeAt(index + 1) === 10 ? '\r\n' : text[index];
    lines.push({ text: text.slice(start, index), ending });
    index += ending.length - 1;
    start = index + 1;
  }
  if (lines.length < maxLines && start <= text.length) lines.push({ text: text.slice(start), ending: '' });
  return lines;
}

const FRONT_MATTER_FENCES: Record<string, { close: string[]; separator: string }> = {
  '---': { close: ['---', '...'], separator: ':' },
  '+++': { close: ['+++'], separator: '=' },
};

/** Front matter may be long, but it is a header: past this many lines an unclosed fence is just Markdown. */
const MAX_FRONT_MATTER_LINES = 1000;

function unquote(value: string): string {
  const trimmed = value.trim();
  const first = trimmed[0];
  if (trimmed.length >= 2 && (first === '"' || first === "'") && trimmed.endsWith(first)) return trimmed.slice(1, -1).trim();
  return trimmed;
}

function readFrontMatter(lines: SourceLine[], separator: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const { text } of lines) {
    // Only top-level scalars: nested YAML is indented, comments start with #.
    if (text.length === 0 || text[0] === ' ' || text[0] === '\t' || text[0] === '#') continue;
    const at = text.indexOf(separator);
    if (at <= 0) continue;
    const key = text.slice(0, at).trim().toLowerCase().replaceAll(' ', '_').replaceAll('-', '_');
    const value = unquote(text.slice(at + 1));
    if (key && value && !(key in values)) values[key] = value;
  }
  return values;
}

/** Blanks a leading front matter block (keeping line endings) and reads its scalar fields. */
export function stripFrontMatter(source: string): { markdown: string; frontMatter: Record<string, string>; frontMatterLines: number } {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const head = splitLines(text, MAX_FRONT_MATTER_LINES + 2);
  const fence = FRONT_MATTER_FENCES[head[0]?.text.trimEnd() ?? ''];
  if (!fence || head.length < 2) return { markdown: text, frontMatter: {}, frontMatterLines: 0 };
  const closeIndex = head.findIndex((line, index) => index > 0 && fence.close.includes(line.text.trimEnd()));
  if (closeIndex < 0) return { markdown: text, frontMatter: {}, frontMatterLines: 0 };
  const block = head.slice(0, closeIndex + 1);
  const consumed = block.reduce((sum, line) => sum + line.text.length + line.ending.length, 0);
  return {
    markdown: block.map((line) => line.ending).join('') + text.slice(consumed),
    frontMatter: readFrontMatter(block.slice(1, -1), fence.separator),
    frontMatterLines: block.length,
  };
}

/**
 * Most emphasis and link delimiters (`*`, `_`, `[`, `]`) one block may hold. micromark resolves delimiters
 * in time quadratic in their number within a paragraph or table (60 KB of `a* ` takes ~30 s), so a block
 * past this is refused before parsing rather than left to hold the event loop.
 */
export const MAX_DELIMITERS_PER_BLOCK = 2000;

/**
 * A resource guard, not a Markdown reader: counts delimiter characters per run of non-blank lines (a
 * paragraph or table can never span a blank line) and returns the first line of each run over the limit.
 */
export function overlongDelimiterRuns(markdown: string, limit = MAX_DELIMITERS_PER_BLOCK): number[] {
  const offending: number[] = [];
  let line = 1;
  let blockStart = 1;
  let count = 0;
  let blank = true;
  for (let index = 0; index <= markdown.length; index++) {
    const char = index < markdown.length ? markdown.charCodeAt(index) : 10;
    if (char === 10 || char === 13) {
      if (char === 13 && markdown.charCodeAt(index + 1) === 10) index++;
      if (blank) {
        if (count > limit) offending.push(blockStart);
        count = 0;
        blockStart = line + 1;
      }
      line++;
      blank = true;
      continue;
    }
    if (char !== 32 && char !== 9) blank = false;
    if (char === 42 || char === 95 || char === 91 || char === 93) count++;
  }
  if (count > limit) offending.push(blockStart);
  return offending;
}

/** Parses a PRD into mdast (GFM enabled); line numbers in the tree are source line numbers. */
export function parseSpec(source: string): ParsedSpec {
  const { markdown, frontMatter, frontMatterLines } = stripFrontMatter(source);
  const tree = parseInPieces(markdown, parseMarkdownOnly);
  return { tree, frontMatter, frontMatterLines };
}

/** The bare parse, without front matter handling: the baseline the benchmark compares against. */
export function parseMarkdownOnly(markdown: string): Root {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

/** The 1-based source line a node starts on (1 when the node carries no position). */
export function lineOf(node: { position?: { start: { line: number } } } | undefined): number {
  return node?.position?.start.line ?? 1;
}

/**
 * The plain text of a node, as a reader sees it: code keeps its content, images their alt text, line breaks
 * become newlines, blocks are separated by blank lines.
 */
export function textOf(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
    case 'code':
      return node.value;
    case 'html':
      return '';
    case 'break':
      return '\n';
    case 'image':
    case 'imageReference':
      return node.alt ?? '';
    case 'thematicBreak':
    case 'definition':
    case 'footnoteDefinition':
    case 'footnoteReference':
      return '';
    default: {
      if (!('children' in node)) return '';
      const children = node.children as Nodes[];
      const block = node.type === 'root' || node.type === 'list' || node.type === 'listItem' || node.type === 'blockquote' || node.type === 'table';
      const separator = node.type === 'tableRow' ? ' | ' : block ? (node.type === 'table' ? '\n' : '\n\n') : '';
      return children.map(textOf).join(separator);
    }
  }
}
