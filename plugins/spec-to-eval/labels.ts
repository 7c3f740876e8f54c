/**
 * Bold labels (`**Industry:** Retail`): the PRD's metadata (service-spec.md "Markdown requirements for
 * spec-to-eval", rule 4), topology lines and task fields are all lines of a paragraph that start with a
 * `strong` node. Read from the mdast tree, one source line at a time, so each label knows its line number.
 *
 * Accepted spellings: `**Label:** value`, `**Label**: value`, `**Label: value**`, `__Label:__ value` and, after
 * the bold, `-`/`–`/`—` as a separator; a bold word with no separator is reported as such.
 */
import type { Paragraph, PhrasingContent, RootContent, Nodes } from 'mdast';
import { lineOf, textOf } from './parse.ts';
import type { FindingLog } from './pitfalls.ts';
import { PITFALL, WARNING } from './pitfalls.ts';

/** One line of a paragraph: its inline nodes and its source line. */
export interface InlineLine {
  nodes: PhrasingContent[];
  line: number;
}

/** A line that starts with a bold label. */
export interface LabelLine {
  /** The label as written, without the colon (`Use Case`). */
  name: string;
  /** The label normalised for lookup (`use case`). */
  key: string;
  /** The text after the label, trimmed. */
  value: string;
  /** Inline nodes of the value (inline code marks literal values such as canaries). */
  valueNodes: PhrasingContent[];
  /** False when nothing separates the label from its value (`**Industry** Retail`). */
  separated: boolean;
  line: number;
  /** True for a metadata label written without bold (`Industry: Retail`): read, with a warning. */
  plain?: boolean;
}

/** A paragraph line, with its label when it starts with one. */
export interface ParagraphLine extends InlineLine {
  text: string;
  label?: LabelLine;
}

/** Splits a paragraph into source lines (soft line endings inside text, hard breaks). */
export function splitInlineLines(paragraph: Paragraph): InlineLine[] {
  const lines: InlineLine[] = [{ nodes: [], line: lineOf(paragraph) }];
  for (const node of paragraph.children) {
    if (node.type === 'break') {
      lines.push({ nodes: [], line: node.position?.end.line ?? lines[lines.length - 1].line + 1 });
      continue;
    }
    if (node.type !== 'text' || !node.value.includes('\n')) {
      const current = lines[lines.length - 1];
      if (current.nodes.length === 0) current.line = lineOf(node);
      current.nodes.push(node);
      continue;
    }
    const parts = node.value.split('\n');
    const startLine = lineOf(node);
    parts.forEach((part, index) => {
      if (index > 0) lines.push({ nodes: [], line: startLine + index });
      if (part.length > 0) lines[lines.length - 1].nodes.push({ type: 'text', value: part });
    });
  }
  return lines.filter((line) => line.nodes.length > 0);
}

/** Normalises a label name for lookup: lower case, single spaces, no trailing colon. */
export function labelKey(name: string): string {
  return name.toLowerCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').replace(/(?<![\s:])[\s:]+$/, '').trim();
}

const SEPARATOR = /^\s*(?::|[-–—](?=\s))\s*/;

/** Reads the label at the start of a line, if the line starts with bold text. */
export function readLabel(line: InlineLine): LabelLine | undefined {
  const nodes = line.nodes.filter((node, index) => !(index === 0 && node.type === 'text' && node.value.trim() === ''));
  const [first, ...rest] = nodes;
  if (!first || first.type !== 'strong') return undefined;
  const bold = textOf(first).trim();
  let name = bold;
  let separated = true;
  let valueNodes = rest;
  let lead = '';
  if (bold.endsWith(':')) {
    name = bold.slice(0, -1).trim();
  } else if (rest[0]?.type === 'text' && SEPARATOR.test(rest[0].value)) {
    valueNodes = [{ type: 'text', value: rest[0].value.replace(SEPARATOR, '') }, ...rest.slice(1)];
  } else if (bold.includes(':')) {
    name = bold.slice(0, bold.indexOf(':')).trim();
    lead = bold.slice(bold.indexOf(':') + 1).trim();
  } else {
    separated = false;
  }
  if (!name) return undefined;
  const value = `${lead}${lead && valueNodes.length ? ' ' : ''}${valueNodes.map((node) => textOf(node)).join('')}`.trim();
  return { name, key: labelKey(name), value, valueNodes, separated, line: line.line };
}

/** A paragraph's lines, each with its label when it has one. */
export function paragraphLines(paragraph: Paragraph): ParagraphLine[] {
  return splitInlineLines(paragraph).map((line) => ({
    ...line,
    text: line.nodes.map((node) => textOf(node)).join('').trim(),
    label: readLabel(line),
  }));
}

/** Every label line in these nodes (paragraphs at any depth of lists and block quotes), in document order. */
export function collectLabelLines(nodes: RootContent[]): LabelLine[] {
  const found: LabelLine[] = [];
  const visit = (node: Nodes) => {
    if (node.type === 'paragraph') {
      for (const line of splitInlineLines(node)) {
        const label = readLabel(line);
        if (label) found.push(label);
      }
      return;
    }
    if (node.type === 'list' || node.type === 'listItem' || node.type === 'blockquote') {
      for (const child of node.children) visit(child);
    }
  };
  for (const node of nodes) visit(node);
  return found;
}

/** `Industry: Retail` without bold: only the PRD's metadata labels are read this way (linear, anchored). */
const PLAIN_METADATA = /^\s*(industry|sector|domain|use[ _-]?cases?|policy(?: ref(?:erence)?)?)\s*:\s*(.*)$/i;

/** The metadata label lines written without bold, in these nodes (paragraphs at the top of a section). */
export function collectPlainMetadataLines(nodes: RootContent[]): LabelLine[] {
  const found: LabelLine[] = [];
  for (const node of nodes) {
    if (node.type !== 'paragraph') continue;
    for (const line of splitInlineLines(node)) {
      const [first] = line.nodes;
      if (first?.type !== 'text') continue;
      const match = PLAIN_METADATA.exec(line.nodes.map((part) => textOf(part)).join(''));
      if (match) found.push({ name: match[1], key: labelKey(match[1]), value: match[2].trim(), valueNodes: [], separated: true, line: line.line, plain: true });
    }
  }
  return found;
}

/** The PRD's metadata labels. */
export interface PrdLabels {
  industry?: string;
  useCase?: string;
  policyRef?: string;
}

const LABEL_KEYS = {
  industry: ['industry', 'sector', 'domain'],
  useCase: ['use case', 'usecase', 'use cases'],
  policyRef: ['policy', 'policy ref', 'policy reference'],
} as const;

/** The longest value the scenario schema accepts for `industry` and `use_case`. */
export const MAX_NAME_LENGTH = 200;

/** Values that stand for "not filled in yet". */
const PLACEHOLDER = /^(?:tbd|tba|todo|tk|n\/?a|none|unknown|xxx+|\?+|-+|_+|<[^>]*>|\[[^\]]*\]|\{[^}]*\})$/i;

/**
 * Reads `**Industry:**`, `**Use Case:**` (and `**Policy:**`) from label lines that stand before the tasks.
 * A malformed Industry or Use Case label (no separator, empty, a placeholder, too long) is a pitfall; a
 * repeated label is a warning and the first one wins.
 */
export function readPrdLabels(lines: LabelLine[], log: FindingLog): PrdLabels {
  const labels: PrdLabels = {};
  const seen = new Map<keyof PrdLabels, LabelLine>();
  for (const line of lines) {
    const field = (Object.keys(LABEL_KEYS) as Array<keyof PrdLabels>).find((name) => (LABEL_KEYS[name] as readonly string[]).includes(line.key));
    if (!field) continue;
    if (field !== 'policyRef') {
      const problem = malformation(line);
      if (problem) {
        const code = field === 'industry' ? PITFALL.malformedIndustry : PITFALL.malformedUseCase;
        log.pitfall(code, line.line, `the **${line.name}:** label ${problem}; write it as **${field === 'industry' ? 'Industry' : 'Use Case'}:** <value>`);
        seen.set(field, line);
        continue;
      }
    }
    const previous = seen.get(field);
    if (line.plain && !previous) log.warn(WARNING.unboldedLabel, line.line, `"${line.name}:" is not bold; it was read as **${field === 'industry' ? 'Industry' : field === 'useCase' ? 'Use Case' : 'Policy'}:** ${line.value.slice(0, 80)} — write the label in bold`);
    if (previous) {
      if (previous.value !== line.value) log.warn(WARNING.duplicateLabel, line.line, `**${line.name}:** is given again ("${line.value.slice(0, 80)}"); the first one, on line ${previous.line}, is used`);
      continue;
    }
    seen.set(field, line);
    if (line.value) labels[field] = line.value;
  }
  return labels;
}

function malformation(line: LabelLine): string | undefined {
  if (!line.separated) return `has no colon between the label and its value ("${line.name} ${line.value.slice(0, 60)}")`;
  if (!line.value) return 'has no value';
  if (PLACEHOLDER.test(line.value)) return `holds a placeholder ("${line.value}") instead of a value`;
  if (line.value.length > MAX_NAME_LENGTH) return `is ${line.value.length} characters long; at most ${MAX_NAME_LENGTH} are allowed`;
  return undefined;
}
