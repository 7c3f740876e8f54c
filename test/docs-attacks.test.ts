/**
 * docs/shims.md, "Attacks on your own world": its example runs as written and gives the numbers the marker
 * comment states.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { testApp } from './helpers.ts';
import { evaluate } from './evaluation-fixtures.ts';

describe('docs: attacks on your own world', () => {
  it('runs the example of docs/shims.md and gives the numbers it states', async () => {
    const tree = fromMarkdown(readFileSync(join(import.meta.dirname, '..', 'docs', 'shims.md'), 'utf8'));
    const start = tree.children.findIndex((node: any) => node.type === 'heading' && node.children.map((child: any) => child.value ?? '').join('') === 'Attacks on your own world');
    expect(start).toBeGreaterThan(-1);
    const index = tree.children.findIndex((node: any, position) => position > start && node.type === 'code' && node.lang === 'json');
    const marker = /<!--\s*attacks:\s*(\w+) utility_under_attack=(\d+)\/(\d+) targeted_asr=(\d+)\/(\d+)\s*-->/.exec((tree.children[index - 1] as any).value)!;
    const t = await testApp();
    const { run } = await evaluate(t, { scenario: JSON.parse((tree.children[index] as any).value) });
    expect(run.compliance.status).toBe(marker[1]);
    expect(run.attacks.utility_under_attack).toMatchObject({ count: Number(marker[2]), total: Number(marker[3]) });
    expect(run.attacks.targeted_asr).toMatchObject({ count: Number(marker[4]), total: Number(marker[5]) });
  });
});
