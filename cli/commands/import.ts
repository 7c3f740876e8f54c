/**
 * `aeh import <data.csv|data.jsonl> [-o scenario.json]`: turns a dataset into a validated scenario through
 * `POST /api/v1/datasets/import`; problems are listed by row (exit 1), warnings go to stderr. `--json` prints
 * the API's answer (`{scenario, rows, warnings}`, or the problem document of a refused dataset) on stdout.
 */
import { parseArgs } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient } from '../client.ts';
import { IMPORT_USAGE } from '../usage.ts';

/** Runs `aeh import`; returns the exit code (0 imported, 1 the dataset has problems, 3 error). */
export async function importCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' }, format: { type: 'string' }, id: { type: 'string' }, title: { type: 'string' },
      industry: { type: 'string' }, 'use-case': { type: 'string' }, agent: { type: 'string' }, url: { type: 'string' }, key: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) {
    line(io.stderr, `usage: ${IMPORT_USAGE}`);
    return EXIT.error;
  }
  const path = resolve(io.cwd, positionals[0]!);
  const format = values.format ?? (['.jsonl', '.ndjson'].includes(extname(path).toLowerCase()) ? 'jsonl' : 'csv');
  if (format !== 'csv' && format !== 'jsonl') {
    line(io.stderr, 'aeh import: --format must be csv or jsonl');
    return EXIT.error;
  }
  const agent = values.agent ? JSON.parse(values.agent.startsWith('@') ? readFileSync(resolve(io.cwd, values.agent.slice(1)), 'utf8') : values.agent) : undefined;
  const scenario = Object.fromEntries(Object.entries({ id: values.id, title: values.title, industry: values.industry, use_case: values['use-case'], agent }).filter(([, value]) => value !== undefined));
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  try {
    const response = await client.request('POST', '/api/v1/datasets/import', { format, data: readFileSync(path, 'utf8'), scenario });
    const refusedRows = response.status === 400 && response.body?.code === 'validation_failed';
    if (response.status !== 200) {
      if (values.json && refusedRows) line(io.stdout, JSON.stringify(response.body, null, 2));
      else printProblem(io, 'import', response);
      return refusedRows ? EXIT.fail : EXIT.error;
    }
    for (const warning of response.body.warnings ?? []) line(io.stderr, `warning: ${warning.path}: ${warning.message}`);
    const text = `${JSON.stringify(response.body.scenario, null, 2)}\n`;
    if (values.output) {
      writeFileSync(resolve(io.cwd, values.output), text);
      line(io.stderr, `wrote ${values.output}: scenario ${response.body.scenario.id} with ${response.body.rows} task(s)`);
    }
    if (values.json) line(io.stdout, JSON.stringify(response.body, null, 2));
    else if (!values.output) io.stdout.write(text);
    return EXIT.pass;
  } finally {
    await client.close();
  }
}
