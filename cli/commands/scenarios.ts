/** `aeh scenarios [query]`: faceted catalog search. */
import { parseArgs } from 'node:util';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient } from '../client.ts';

/** Runs `aeh scenarios`; returns the exit code (0, or 3 when the search is refused). */
export async function scenariosCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean', default: false },
      industry: { type: 'string' }, 'use-case': { type: 'string' }, tag: { type: 'string' }, dimension: { type: 'string' },
      limit: { type: 'string', default: '20' }, offset: { type: 'string', default: '0' },
    },
  });
  const params = new URLSearchParams();
  if (positionals.length) params.set('q', positionals.join(' '));
  for (const [option, name] of [['industry', 'industry'], ['use-case', 'use_case'], ['tag', 'tag'], ['dimension', 'dimension'], ['limit', 'limit'], ['offset', 'offset']] as const) {
    const value = values[option];
    if (value) params.set(name, value);
  }
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  try {
    const response = await client.request('GET', `/api/scenarios?${params}`);
    if (response.status !== 200) {
      printProblem(io, 'scenarios', response);
      return EXIT.error;
    }
    if (values.json) line(io.stdout, JSON.stringify(response.body, null, 2));
    else {
      for (const item of response.body.items) line(io.stdout, `${item.id}\t${item.industry}\t${item.title}`);
      line(io.stderr, `${response.body.items.length} of ${response.body.total}`);
    }
    return EXIT.pass;
  } finally {
    await client.close();
  }
}
