/**
 * docs/evaluation.md's adapter table against the adapters' own option schemas (issue 26 item 8): every option a
 * bundled adapter accepts is in its row, the row names no option the adapter refuses, and the defaults the
 * docs state are the code's.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testApp } from './helpers.ts';
import type { AgentAdapter } from '../core/agent-adapter.ts';

const DOC = readFileSync(join(import.meta.dirname, '..', 'docs', 'evaluation.md'), 'utf8');

/** The adapter table's rows: adapter name -> the option names its options cell lists. */
function documentedOptions(): Map<string, string[]> {
  const section = DOC.slice(DOC.indexOf('## Agent adapters'), DOC.indexOf('\n## ', DOC.indexOf('## Agent adapters') + 1));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const row = /^\| `([a-z0-9_-]+)` \| (.*?) \| /.exec(line);
    if (!row) continue;
    // The top-level names of the options cell: `name`, `name?`, `name: …` (not the names inside a shape).
    const cell = row[2]!;
    rows.set(row[1]!, [...cell.matchAll(/(?:^|, )`([a-z_]+)\??(?::[^`]*)?`/g)].map((match) => match[1]!));
  }
  return rows;
}

let adapters: AgentAdapter[];
beforeAll(async () => {
  const t = await testApp();
  adapters = (await t.app.ready).agents.list();
});

describe('docs/evaluation.md: the adapter table', () => {
  it('has a row for every bundled adapter that takes options, listing exactly its options', () => {
    const rows = documentedOptions();
    const withOptions = adapters.filter((adapter) => Object.keys((adapter.options as { properties?: object } | undefined)?.properties ?? {}).length > 0);
    expect(withOptions.map((adapter) => adapter.name).sort()).toEqual(expect.arrayContaining(['http', 'openai', 'replay', 'scripted']));
    for (const adapter of withOptions) {
      const options = Object.keys((adapter.options as { properties: object }).properties).sort();
      expect(rows.get(adapter.name)?.slice().sort(), `docs/evaluation.md, the row of ${adapter.name}`).toEqual(options);
    }
  });

  it('states the defaults of max_tool_rounds the adapters apply', () => {
    const rows = DOC.split('\n').filter((line) => line.startsWith('| `http` |') || line.startsWith('| `openai` |'));
    expect(rows.find((line) => line.startsWith('| `http` |'))).toContain('`max_tool_rounds?` (8)');
    expect(rows.find((line) => line.startsWith('| `openai` |'))).toContain('`max_tool_rounds?` (4; 8 with world shims)');
    const shims = readFileSync(join(import.meta.dirname, '..', 'docs', 'shims.md'), 'utf8');
    for (const match of shims.matchAll(/`max_tool_rounds` \(default (\d+)\)/g)) expect(match[1]).toBe('8');
  });
});
