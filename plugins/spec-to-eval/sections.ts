/**
 * Hierarchical sections of a PRD (service-spec.md "Markdown requirements for spec-to-eval", rules 1–3): every
 * top-level heading opens a section that runs to the next heading of the same or a shallower depth, so an H2
 * holds its H3s, which hold their H4s. The H1 is the document's title; `## Tasks` / `## Test Cases` hold the
 * tasks.
 */
import type { Heading, Root, RootContent } from 'mdast';
import { lineOf, textOf } from './parse.ts';

/** One section: its heading, the nodes before its first sub-heading, and its sub-sections. */
export interface Section {
  /** Absent for the document root (the nodes before the first heading). */
  heading?: Heading;
  /** Heading depth, 0 for the root. */
  depth: number;
  title: string;
  line: number;
  content: RootContent[];
  children: Section[];
}

/** Builds the section tree of a document. */
export function buildSections(tree: Root): Section {
  const root: Section = { depth: 0, title: '', line: 1, content: [], children: [] };
  const stack: Section[] = [root];
  for (const node of tree.children) {
    if (node.type !== 'heading') {
      stack[stack.length - 1].content.push(node);
      continue;
    }
    while (stack.length > 1 && stack[stack.length - 1].depth >= node.depth) stack.pop();
    const section: Section = { heading: node, depth: node.depth, title: textOf(node).trim(), line: lineOf(node), content: [], children: [] };
    stack[stack.length - 1].children.push(section);
    stack.push(section);
  }
  return root;
}

/** Every section below `root`, in document order. */
export function allSections(root: Section): Section[] {
  const found: Section[] = [];
  const visit = (section: Section) => {
    for (const child of section.children) {
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
}

/** All nodes of a section in document order: its content, then each sub-section's heading and nodes. */
export function sectionNodes(section: Section): RootContent[] {
  const nodes: RootContent[] = [...section.content];
  for (const child of section.children) {
    if (child.heading) nodes.push(child.heading);
    nodes.push(...sectionNodes(child));
  }
  return nodes;
}

/**
 * A heading's title reduced for comparison: lower case, without leading numbering (`3.`, `2.1`, `A)`,
 * `IV.`), a trailing colon or surrounding punctuation.
 */
export function normalizeTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/^\s*(?:\d+(?:\.\d+)*|[a-z]|[ivxlc]+)[.)]\s+/, '')
    .replace(/^\s*\d+(?:\.\d+)*\s+/, '')
    // The lookbehind tries the trailing run once, from its start, not from each of its characters.
    .replace(/(?<![\s:.–—-])[\s:.–—-]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** True for the section names that hold tasks: `Tasks`, `Test Cases` and forgiving variants of them. */
export function isTasksTitle(title: string): boolean {
  const name = normalizeTitle(title);
  return /^(?:(?:evaluation|eval|acceptance|user|agent|example|sample|key)\s+)?(?:tasks?|test[\s-]?cases?)(?:\s+(?:and|&|\/)\s+(?:tasks?|test[\s-]?cases?))?(?:\s*\(.*\))?$/.test(name);
}

/** True for sections dedicated to the agent topology (`## Topology`, `## Agent Topology`). */
export function isTopologyTitle(title: string): boolean {
  return /\btopology\b/.test(normalizeTitle(title));
}

/** The sections holding tasks: the shallowest depth that has any (H2 first, then H3...). */
export function findTasksSections(root: Section): Section[] {
  const candidates = allSections(root).filter((section) => section.depth >= 2 && isTasksTitle(section.title));
  if (candidates.length === 0) return [];
  const depth = Math.min(...candidates.map((section) => section.depth));
  // A tasks section nested in another one (### Test Cases under ## Tasks) is part of its parent.
  return candidates.filter((section) => section.depth === depth);
}
