/**
 * How the text of a task in a spec is read into its fields (tasks.ts builds the tasks): labelled lines
 * (`**Expected Outcome:**`, `**Tools:**`, `**Criteria:**`, `**Agent:**`, `- **Description**: …`), the block
 * content around them, and trailing `(Expect: …)` suffixes.
 */
import type { Nodes, Paragraph, PhrasingContent, RootContent } from 'mdast';
import { textOf } from './parse.ts';
import { paragraphLines, type LabelLine } from './labels.ts';
import type { ExpectedSource } from './metrics-choice.ts';

export type FieldKind = 'input' | 'expected' | 'tools' | 'criteria' | 'agent';

/** The label keys (labelKey form) that name each task field. */
export const FIELD_KEYS: Record<FieldKind, string[]> = {
  input: ['description', 'input', 'prompt', 'user input', 'user prompt', 'user message', 'query', 'request', 'message', 'scenario'],
  expected: ['expected outcome', 'expected', 'expect', 'expected result', 'expected results', 'expected behaviour', 'expected behavior', 'expected output', 'expected response', 'expected answer', 'acceptance criteria', 'outcome'],
  tools: ['tools', 'tool', 'allowed tools', 'available tools'],
  criteria: ['criteria', 'metrics', 'metric', 'evaluation criteria', 'scoring'],
  agent: ['agent', 'assigned agent', 'performed by', 'handled by'],
};

const FIELD_BY_KEY = new Map<string, FieldKind>(
  (Object.entries(FIELD_KEYS) as Array<[FieldKind, string[]]>).flatMap(([kind, keys]) => keys.map((key) => [key, kind] as [string, FieldKind])),
);

/** The task field a label names, if it names one. */
export function fieldOf(key: string): FieldKind | undefined {
  return FIELD_BY_KEY.get(key);
}

/** A task's fields as read so far; `body` is its prose that no label claimed. */
export interface Fields {
  inputs: string[];
  body: string[];
  expected?: ExpectedSource;
  tools?: string[];
  criteria?: { value: string; line: number };
  agent?: string;
  literals: string[];
}

export const emptyFields = (): Fields => ({ inputs: [], body: [], literals: [] });

/** Collects the inline-code values of `nodes`, at any depth (the task's literals). */
export function inlineCodeValues(nodes: PhrasingContent[] | Nodes[], into: string[]): void {
  for (const node of nodes) {
    if (node.type === 'inlineCode') into.push(node.value.trim());
    else if ('children' in node) inlineCodeValues(node.children as Nodes[], into);
  }
}

function splitList(value: string): string[] {
  return value.split(/[,;]/).map((item) => item.trim().replace(/^`|`$/g, '').trim()).filter((item) => item.length > 0 && item.length <= 200);
}

/** Applies one labelled line to the field it names. */
export function applyField(fields: Fields, kind: FieldKind, label: LabelLine): void {
  switch (kind) {
    case 'input':
      if (label.value) fields.inputs.push(label.value);
      inlineCodeValues(label.valueNodes, fields.literals);
      break;
    case 'expected': {
      if (fields.expected || !label.value) break;
      const meaningful = label.valueNodes.filter((node) => !(node.type === 'text' && node.value.trim() === ''));
      fields.expected = { text: label.value, literal: meaningful.length === 1 && meaningful[0].type === 'inlineCode', line: label.line };
      break;
    }
    case 'tools':
      fields.tools = [...new Set([...(fields.tools ?? []), ...splitList(label.value)])];
      break;
    case 'criteria':
      fields.criteria = fields.criteria ? { value: `${fields.criteria.value}, ${label.value}`, line: fields.criteria.line } : { value: label.value, line: label.line };
      break;
    case 'agent':
      if (label.value) fields.agent ??= label.value.slice(0, 200);
      break;
  }
}

/** Reads a paragraph into task fields; lines after an input or expectation label continue it. */
export function absorbParagraph(paragraph: Paragraph, fields: Fields, bulletPrefix: string): void {
  let open: 'input' | 'expected' | undefined;
  paragraphLines(paragraph).forEach((line, index) => {
    const kind = line.label ? fieldOf(line.label.key) : undefined;
    if (line.label && kind) {
      applyField(fields, kind, line.label);
      open = kind === 'input' || kind === 'expected' ? kind : undefined;
      return;
    }
    if (open === 'input' && fields.inputs.length) fields.inputs[fields.inputs.length - 1] += `\n${line.text}`;
    else if (open === 'expected' && fields.expected) fields.expected = { ...fields.expected, text: `${fields.expected.text} ${line.text}`, literal: false };
    else fields.body.push(`${index === 0 ? bulletPrefix : ''}${line.text}`);
    inlineCodeValues(line.nodes, fields.literals);
  });
}

/** Reads block content (paragraphs, lists, code, quotes, tables, deeper headings) into task fields. */
export function absorbBlocks(nodes: Array<RootContent | Nodes>, fields: Fields, bulletPrefix = ''): void {
  for (const node of nodes) {
    switch (node.type) {
      case 'paragraph':
        absorbParagraph(node, fields, bulletPrefix);
        break;
      case 'list':
        for (const item of node.children) absorbBlocks(item.children, fields, node.ordered ? '1. ' : '- ');
        break;
      case 'blockquote':
        absorbBlocks(node.children, fields, '> ');
        break;
      case 'code':
        fields.body.push(node.value);
        break;
      case 'heading':
      case 'table':
        fields.body.push(textOf(node).trim());
        inlineCodeValues([node], fields.literals);
        break;
      default:
        break;
    }
  }
}

const EXPECT_LEAD = /^\s*expect(?:ed|s)?\s*:/i;

/**
 * Splits a trailing `(Expect: …)` off a line of text; the value may hold one level of parentheses. A scan
 * back from the end, not a regex: the pattern it replaces was tried from every `(` and was quadratic on a
 * line of many `(expect: …)` (issue 13).
 */
export function splitExpectSuffix(text: string): { text: string; expected?: string } {
  let end = text.trimEnd();
  if (end.endsWith('.')) end = end.slice(0, -1).trimEnd();
  if (!end.endsWith(')')) return { text };
  let depth = 0;
  let open = -1;
  for (let index = end.length - 2; index >= 0 && open < 0; index--) {
    const char = end[index];
    if (char === ')') {
      if (depth === 1) return { text };
      depth = 1;
    } else if (char === '(') {
      if (depth === 1) depth = 0;
      else open = index;
    }
  }
  if (open < 0 || depth !== 0) return { text };
  const inner = end.slice(open + 1, -1);
  const lead = EXPECT_LEAD.exec(inner);
  if (!lead || lead[0].length === inner.length) return { text };
  return { text: text.slice(0, open).trim(), expected: inner.slice(lead[0].length).trim() };
}
