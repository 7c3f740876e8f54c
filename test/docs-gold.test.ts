/**
 * The gold-world docs run as written (issue 32 item 1): each scenario of docs/evaluation.md's "Gold: the whole
 * world" marked `<!-- verdict: <status> -->` is submitted through the API and gets that verdict (the failure
 * shown after the first is the one it gets); docs/shims.md's "incidental state" column says what each bundled
 * shim declares (`Shim.incidental`).
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { testApp } from './helpers.ts';
import { evaluate } from './evaluation-fixtures.ts';

const docs = join(import.meta.dirname, '..', 'docs');

/** The json blocks of a section of a Markdown file, each with the `verdict` its marker comment states. */
function sectionBlocks(file: string, heading: string): Array<{ json: any; verdict?: string }> {
  const tree = fromMarkdown(readFileSync(join(docs, file), 'utf8'));
  const start = tree.children.findIndex((node) => node.type === 'heading' && node.children.map((child: any) => child.value ?? '').join('') === heading);
  expect(start, `${file} has a "${heading}" section`).toBeGreaterThan(-1);
  const blocks: Array<{ json: any; verdict?: string }> = [];
  for (let index = start + 1; index < tree.children.length; index++) {
    const node = tree.children[index];
    if (node.type === 'heading') break;
    if (node.type !== 'code' || node.lang !== 'json') continue;
    const before = tree.children[index - 1];
    blocks.push({ json: JSON.parse(node.value), verdict: before?.type === 'html' ? /<!--\s*verdict:\s*(\w+)\s*-->/.exec(before.value)?.[1] : undefined });
  }
  return blocks;
}

describe('docs: gold means the whole world', () => {
  it('gives each example of docs/evaluation.md the verdict it states', async () => {
    const blocks = sectionBlocks('evaluation.md', 'Gold: the whole world');
    const examples = blocks.filter((block) => block.verdict);
    expect(examples.map((example) => example.verdict)).toEqual(['fail', 'pass', 'pass']);
    const t = await testApp();
    for (const example of examples) {
      const { run } = await evaluate(t, { scenario: example.json });
      expect(run.compliance.status, example.json.id).toBe(example.verdict);
      if (example.verdict === 'fail') {
        const shown = blocks[blocks.indexOf(example) + 1].json;
        const failure = run.failures.find((entry: any) => entry.metric === shown.metric);
        expect(failure).toMatchObject({ code: shown.code, severity: shown.severity });
        expect(failure.message.startsWith(shown.message.slice(0, shown.message.indexOf('{…}')))).toBe(true);
      }
    }
  });

  it('lists in docs/shims.md the incidental state each bundled shim declares', async () => {
    const t = await testApp();
    const text = readFileSync(join(docs, 'shims.md'), 'utf8');
    const rows = new Map([...text.matchAll(/^\| `([a-z_]+)` \| .* \| ([^|]*) \|$/gm)].map((match) => [match[1], match[2].trim()]));
    for (const shim of (await t.app.ready).shims.list()) {
      const row = rows.get(shim.name);
      expect(row, `docs/shims.md has a row for ${shim.name}`).toBeDefined();
      const documented = [...row!.matchAll(/`(\/[^`]*)`/g)].map((match) => match[1]).filter((pointer) => !pointer.startsWith(`/${shim.name}/`));
      expect(documented, `the incidental state of ${shim.name}`).toEqual(shim.incidental ?? []);
      if (!shim.incidental?.length) expect(row).toMatch(/^none/);
    }
  });
});
