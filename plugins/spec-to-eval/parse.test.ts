import { describe, it, expect } from 'vitest';
import { parseSpec, stripFrontMatter, overlongDelimiterRuns } from './parse.ts';
import { buildSections, findTasksSections, isTasksTitle } from './sections.ts';
import { collectLabelLines, readPrdLabels } from './labels.ts';
import { createFindingLog } from './pitfalls.ts';

describe('spec-to-eval: parse', () => {
  it('blanks YAML and TOML front matter but keeps line numbers', () => {
    const yaml = stripFrontMatter('---\nindustry: Retail\nuse_case: "Returns"\nnested:\n  key: v\n---\n# PRD: X\n');
    expect(yaml.frontMatter).toEqual({ industry: 'Retail', use_case: 'Returns' });
    expect(yaml.frontMatterLines).toBe(6);
    expect(parseSpec('---\na: b\n---\n# PRD: X\n').tree.children[0].position?.start.line).toBe(4);
    expect(stripFrontMatter('+++\nindustry = "Energy"\n+++\n# T').frontMatter).toEqual({ industry: 'Energy' });
    expect(stripFrontMatter('---\nnot closed\n# T').frontMatterLines).toBe(0);
  });

  it('finds blocks with too many delimiters, per run of non-blank lines', () => {
    expect(overlongDelimiterRuns('a\n\n**x**\r\n[y]\n\n***', 5)).toEqual([3]);
    expect(overlongDelimiterRuns('**\n\n**\n\n**', 3)).toEqual([]);
    expect(overlongDelimiterRuns('x\n  \n______', 5)).toEqual([3]);
  });

  it('ignores a BOM and counts CRLF and CR as one line each', () => {
    const { tree } = parseSpec('\ufeff# PRD: A\r\n\r\n## Tasks\r- one\n');
    expect(tree.children.map((node) => node.position?.start.line)).toEqual([1, 3, 4]);
  });

  it('finds Tasks and Test Cases sections under forgiving names, shallowest first', () => {
    for (const title of ['Tasks', 'Test Cases', '3. Tasks', 'Test cases:', 'Evaluation Tasks', 'Tasks & Test Cases', 'Test-Cases']) expect(isTasksTitle(title), title).toBe(true);
    for (const title of ['Task force', 'Non-tasks', 'Overview']) expect(isTasksTitle(title), title).toBe(false);
    const root = buildSections(parseSpec('# PRD: A\n## Requirements\n### Test Cases\n- a\n## Tasks\n- b\n### Test Cases\n- c\n').tree);
    expect(findTasksSections(root).map((section) => [section.title, section.line])).toEqual([['Tasks', 5]]);
  });

  it('reads labels in paragraphs and bullets, in every accepted spelling, with their lines', () => {
    const { tree } = parseSpec('**Industry:** Retail\n**Use Case**: Returns\n\n- **Policy: P-1**\n\n__Owner__ — Jane\n');
    const lines = collectLabelLines(tree.children);
    expect(lines.map((l) => [l.key, l.value, l.line, l.separated])).toEqual([
      ['industry', 'Retail', 1, true],
      ['use case', 'Returns', 2, true],
      ['policy', 'P-1', 4, true],
      ['owner', 'Jane', 6, true],
    ]);
    const log = createFindingLog();
    expect(readPrdLabels(lines, log)).toEqual({ industry: 'Retail', useCase: 'Returns', policyRef: 'P-1' });
  });

  it('flags malformed labels and warns on duplicates', () => {
    const { tree } = parseSpec(`**Industry:** Retail\n**Industry:** Banking\n**Use Case:** ${'x'.repeat(201)}\n`);
    const log = createFindingLog();
    readPrdLabels(collectLabelLines(tree.children), log);
    expect(log.warnings.map((w) => [w.code, w.line])).toEqual([['duplicate_label', 2]]);
    expect(log.pitfalls.map((p) => [p.code, p.line])).toEqual([['malformed_use_case', 3]]);
  });
});
