/** `aeh mutate <path|scenario-id> --type typo[,synonym]`: prints the mutated scenario and the changed inputs. */
import { parseArgs } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient } from '../client.ts';
import { parseBoundedJson } from '../../core/guards/json.ts';

/** Runs `aeh mutate`; returns the exit code (0, or 3 on a refused mutation or usage error). */
export async function mutateCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { url: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean', default: false }, type: { type: 'string' }, seed: { type: 'string', default: '1' }, count: { type: 'string', default: '1' } },
  });
  if (positionals.length !== 1 || !values.type) {
    line(io.stderr, 'usage: aeh mutate <path|scenario-id> --type TYPE[,TYPE…] [--seed N] [--count N] [--json] [--url URL]');
    return EXIT.error;
  }
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  try {
    const path = resolve(io.cwd, positionals[0]);
    let scenario: unknown;
    if (existsSync(path)) scenario = parseBoundedJson(readFileSync(path, 'utf8'));
    else {
      const found = await client.request('GET', `/api/scenarios/${encodeURIComponent(positionals[0])}`);
      if (found.status !== 200) {
        printProblem(io, 'scenario lookup', found);
        return EXIT.error;
      }
      scenario = found.body.scenario ?? found.body;
    }
    const types = values.type.split(',').map((type) => type.trim()).filter(Boolean);
    const response = await client.request('POST', '/api/v1/mutate', { type: types.length === 1 ? types[0] : types, raw_json: scenario, seed: Number(values.seed), count: Number(values.count) });
    if (response.status !== 200) {
      printProblem(io, 'mutate', response);
      return EXIT.error;
    }
    if (values.json) line(io.stdout, JSON.stringify(response.body, null, 2));
    else {
      const variants = response.body.variants ?? [{ scenario: response.body.scenario, changes: response.body.changes }];
      for (const variant of variants) for (const change of variant.changes ?? []) line(io.stderr, `${change.task_id}: ${JSON.stringify(change.before)} → ${JSON.stringify(change.after)}`);
      line(io.stdout, JSON.stringify(variants.length === 1 ? variants[0].scenario : variants.map((variant: { scenario: unknown }) => variant.scenario), null, 2));
    }
    return EXIT.pass;
  } finally {
    await client.close();
  }
}
