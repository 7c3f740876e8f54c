import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInPieces } from './chunked-parse.ts';
import { parseMarkdownOnly } from './parse.ts';

const fixtures = join(import.meta.dirname, 'fixtures');

/** A document long enough to be cut, with the constructs a cut must respect. */
function long(): string {
  let text = '# PRD: Pieces\n\n**Industry:** Retail\n\n## Tasks\n';
  for (let index = 1; index <= 400; index++) {
    text += `### Case ${index}\n- **Description**: item ${index}\n- **Expected Outcome**: "ok ${index}"\n\n`;
    if (index % 50 === 0) text += '```md\n# not a heading, inside a fence\n## nor this\n```\n\n';
    if (index % 70 === 0) text += '> quoted\n# heading after a quote\n\n';
  }
  return text;
}

const strip = (tree: unknown) => JSON.parse(JSON.stringify(tree, (key, value) => (key === 'position' ? { s: [value.start.line, value.start.offset], e: [value.end.line, value.end.offset] } : value)));

describe('spec-to-eval: parsing in pieces', () => {
  it('gives the tree the whole parse gives, positions included, for documents cut into pieces', () => {
    const documents = [long(), ...readdirSync(fixtures).map((name) => readFileSync(join(fixtures, name), 'utf8').repeat(20))];
    for (const markdown of documents) {
      const whole = parseMarkdownOnly(markdown);
      const pieces = parseInPieces(markdown, parseMarkdownOnly, 2048);
      expect(strip(pieces.children)).toEqual(strip(whole.children));
    }
  });

  it('never cuts inside a fence, and parses short documents whole', () => {
    const markdown = `# PRD: x\n\n\`\`\`\n${'# inside\n'.repeat(2000)}\`\`\`\n\n# after\n`;
    const tree = parseInPieces(markdown, parseMarkdownOnly, 1024);
    expect(tree.children.map((node) => node.type)).toEqual(['heading', 'code', 'heading']);
    let calls = 0;
    parseInPieces('# short\n', (text) => (calls++, parseMarkdownOnly(text)), 1024);
    expect(calls).toBe(1);
  });
});
