/** `aeh spec-to-eval <prd.md>`: converts a PRD into scenario stubs, or lists its pitfalls (exit 1). */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient } from '../client.ts';

/** Runs `aeh spec-to-eval`; returns the exit code (0 stubs, 1 pitfalls, 3 error). */
export async function specToEvalCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { url: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean', default: false }, persist: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) {
    line(io.stderr, 'usage: aeh spec-to-eval <prd.md> [--persist] [--json] [--url URL]');
    return EXIT.error;
  }
  const markdown = readFileSync(resolve(io.cwd, positionals[0]), 'utf8');
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  try {
    const response = await client.request('POST', '/api/v1/spec-to-eval', { markdown, ...(values.persist ? { persist: true } : {}) });
    if (response.status === 422) {
      if (values.json) line(io.stdout, JSON.stringify(response.body, null, 2));
      else printProblem(io, 'spec-to-eval', response);
      return EXIT.fail;
    }
    if (response.status !== 200) {
      printProblem(io, 'spec-to-eval', response);
      return EXIT.error;
    }
    if (values.json) line(io.stdout, JSON.stringify(response.body, null, 2));
    else {
      for (const warning of response.body.warnings ?? []) line(io.stderr, `warning: ${typeof warning === 'string' ? warning : `${warning.line ? `line ${warning.line}: ` : ''}${warning.message}`}`);
      line(io.stdout, JSON.stringify(response.body.scenarios, null, 2));
    }
    return EXIT.pass;
  } finally {
    await client.close();
  }
}
