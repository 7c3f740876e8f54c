/**
 * Tasks from a `## Tasks` / `## Test Cases` section (service-spec.md "Markdown requirements for
 * spec-to-eval", rule 3): one task per bullet, per H3 sub-header (its body is the input) or per table row.
 *
 * Conventions of real PRDs honoured inside a task: `**Expected Outcome:**` lines and `(Expect: …)` suffixes
 * (the expectation), `**Tools:**` (the task's tools), `**Criteria:** metric_id (weight)` (its metrics),
 * `**Agent:**` (the topology agent), `- **Description**: …` bullets (the input). Labels in the section's own
 * prose (before the first task) are defaults for every task of the section.
 */
import type { List, ListItem, Paragraph, PhrasingContent, Table } from 'mdast';
import { lineOf, textOf } from './parse.ts';
import { labelKey, paragraphLines, type LabelLine } from './labels.ts';
import type { ExpectedSource } from './metrics-choice.ts';
import type { Section } from './sections.ts';
import { sectionNodes } from './sections.ts';
import { absorbBlocks, absorbParagraph, applyField, emptyFields, FIELD_KEYS, fieldOf, inlineCodeValues, splitExpectSuffix, type FieldKind, type Fields } from './task-fields.ts';

/** A task as read from the document, before metrics are chosen. */
export interface DraftTask {
  title: string;
  input: string;
  /** Prose of the task that is not its input (when a Description/Input label gives the input). */
  notes?: string;
  expected?: ExpectedSource;
  tools?: string[];
  criteria?: { value: string; line: number };
  agent?: string;
  /** Inline-code values of the task (canaries for `secret_leak`). */
  literals: string[];
  line: number;
  /** Fields the language model proposed because the document gave none (llm-enrich.ts). */
  llmFields?: Array<'expected' | 'metrics'>;
}

function shortTitle(text: string): string {
  const firstLine = text.split('\n').find((line) => line.trim()) ?? '';
  const clean = firstLine.replace(/^[-*>\d.\s]+/, '').trim();
  return clean.length > 80 ? `${clean.slice(0, 77).trimEnd()}…` : clean;
}

function finish(title: string, fields: Fields, line: number, defaults: Fields): DraftTask | undefined {
  let expected = fields.expected;
  const lines = fields.body.filter((text) => text.trim().length > 0).map((text) => {
    if (expected) return text;
    const split = splitExpectSuffix(text);
    if (split.expected) expected = { text: split.expected, line };
    return split.text;
  });
  const body = lines.join('\n');
  const input = (fields.inputs.length ? fields.inputs.join('\n\n') : body).trim() || title.trim();
  if (!input) return undefined;
  return {
    title: title.trim() || shortTitle(input),
    input,
    ...(fields.inputs.length && body ? { notes: body } : {}),
    expected: expected ?? defaults.expected,
    tools: fields.tools ?? defaults.tools,
    criteria: fields.criteria ?? defaults.criteria,
    agent: fields.agent ?? defaults.agent,
    literals: [...new Set(fields.literals.filter(Boolean))],
    line,
  };
}

/** A task from an H3 (or deeper) sub-section: the heading is the title, the body the input. */
function taskFromSection(section: Section, defaults: Fields): DraftTask | undefined {
  const fields = emptyFields();
  absorbBlocks(sectionNodes(section), fields);
  return finish(section.title, fields, section.line, defaults);
}

/** A task from a bullet: its text is the input; a leading bold phrase that is not a field is its title. */
function taskFromListItem(item: ListItem, defaults: Fields): DraftTask | undefined {
  const fields = emptyFields();
  let title = '';
  const [first, ...rest] = item.children;
  if (first?.type === 'paragraph') {
    const lines = paragraphLines(first);
    const lead = lines[0]?.label;
    if (lead && !fieldOf(lead.key) && lead.separated && lead.value) {
      title = lead.name;
      const remainder: Paragraph = { type: 'paragraph', children: [...lead.valueNodes, ...lines.slice(1).flatMap((line) => [{ type: 'text', value: '\n' } as PhrasingContent, ...line.nodes])] };
      absorbParagraph(remainder, fields, '');
    } else {
      absorbParagraph(first, fields, '');
    }
    absorbBlocks(rest, fields);
  } else {
    absorbBlocks(item.children, fields);
  }
  return finish(title, fields, lineOf(item), defaults);
}

/** The first line of a list item, if it is a field label (an `**Expected Outcome:**` bullet after a task). */
function leadingField(item: ListItem): FieldKind | undefined {
  const first = item.children[0];
  if (first?.type !== 'paragraph') return undefined;
  const label = paragraphLines(first)[0]?.label;
  return label ? fieldOf(label.key) : undefined;
}

function tasksFromList(list: List, defaults: Fields): DraftTask[] {
  const tasks: DraftTask[] = [];
  for (const item of list.children) {
    const field = leadingField(item);
    const previous = tasks[tasks.length - 1];
    // `- Accept a return` followed by `- **Expected Outcome:** …` is one task written flat.
    if (field && field !== 'input' && previous) {
      const fields = emptyFields();
      absorbBlocks(item.children, fields);
      if (field === 'expected' && fields.expected && !previous.expected) previous.expected = fields.expected;
      if (field === 'tools' && fields.tools) previous.tools = [...new Set([...(previous.tools ?? []), ...fields.tools])];
      if (field === 'criteria' && fields.criteria) previous.criteria = fields.criteria;
      if (field === 'agent' && fields.agent) previous.agent = fields.agent;
      continue;
    }
    const task = taskFromListItem(item, defaults);
    if (task) tasks.push(task);
  }
  return tasks;
}

const COLUMN_KEYS: Record<FieldKind | 'title', string[]> = {
  title: ['id', '#', 'name', 'title', 'case', 'case id', 'test', 'test id'],
  input: ['task', 'input', 'prompt', 'description', 'test case', 'scenario', 'user input', 'query', 'request', 'step', 'steps', 'user message'],
  expected: FIELD_KEYS.expected,
  tools: FIELD_KEYS.tools,
  criteria: FIELD_KEYS.criteria,
  agent: FIELD_KEYS.agent,
};

/** Tasks from a GFM table whose header names the columns (`| Task | Expected Outcome | Criteria |`). */
function tasksFromTable(table: Table, defaults: Fields): DraftTask[] {
  const [header, ...rows] = table.children;
  if (!header) return [];
  const roles = header.children.map((cell) => {
    const key = labelKey(textOf(cell));
    return (Object.keys(COLUMN_KEYS) as Array<keyof typeof COLUMN_KEYS>).find((role) => COLUMN_KEYS[role].includes(key));
  });
  if (!roles.includes('input')) {
    const free = roles.findIndex((role) => role === undefined);
    if (free < 0) return [];
    roles[free] = 'input';
  }
  const tasks: DraftTask[] = [];
  for (const row of rows) {
    const fields = emptyFields();
    let title = '';
    row.children.forEach((cell, index) => {
      const value = textOf(cell).trim();
      const role = roles[index];
      if (!value || !role) return;
      const label: LabelLine = { name: role, key: role, value, valueNodes: cell.children, separated: true, line: lineOf(row) };
      if (role === 'title') title = value;
      else if (role === 'input') {
        const split = splitExpectSuffix(value);
        fields.inputs.push(split.text);
        inlineCodeValues(cell.children, fields.literals);
        if (split.expected) fields.expected ??= { text: split.expected, line: lineOf(row) };
      } else applyField(fields, role, label);
    });
    const task = finish(title, fields, lineOf(row), defaults);
    if (task) tasks.push(task);
  }
  return tasks;
}

/** Field labels written in a tasks section's own prose: defaults for its tasks. */
function sectionDefaults(section: Section): Fields {
  const defaults = emptyFields();
  for (const node of section.content) {
    if (node.type !== 'paragraph') continue;
    for (const line of paragraphLines(node)) {
      const kind = line.label ? fieldOf(line.label.key) : undefined;
      if (line.label && kind && kind !== 'input') applyField(defaults, kind, line.label);
    }
  }
  return defaults;
}

/** Every task of a tasks section, in document order. */
export function extractTasks(section: Section): DraftTask[] {
  const defaults = sectionDefaults(section);
  const tasks: DraftTask[] = [];
  for (const node of section.content) {
    if (node.type === 'list') tasks.push(...tasksFromList(node, defaults));
    else if (node.type === 'table') tasks.push(...tasksFromTable(node, defaults));
  }
  for (const child of section.children) {
    const task = taskFromSection(child, defaults);
    if (task) tasks.push(task);
  }
  return tasks;
}
