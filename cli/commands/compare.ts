/**
 * `aeh compare <base> <head>`: two finished runs side by side (`GET /api/v1/compare`). `base` is a run id,
 * `latest` (the newest succeeded run of the head's scenario and agent before it) or `baseline` (the pinned
 * one). Exit 0 when nothing regressed beyond `--max-regression`, 4 when something did, 3 on an error.
 */
import { parseArgs } from 'node:util';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { COMPARE_USAGE } from '../usage.ts';
import { openClient } from '../client.ts';
import { printComparison, requestComparison } from '../gate.ts';
import { parseThreshold } from './evaluate-options.ts';


/** Runs `aeh compare`; returns the exit code. */
export async function compareCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { url: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean', default: false }, 'max-regression': { type: 'string', default: '0' }, answers: { type: 'string', default: '0' } },
  });
  const threshold = parseThreshold(values['max-regression']!);
  const answers = Number(values.answers);
  if (positionals.length !== 2 || threshold === undefined || !Number.isInteger(answers) || answers < 0 || answers > 1000) {
    if (threshold === undefined) line(io.stderr, `aeh compare: --max-regression must be a number from 0 to 1, got "${values['max-regression']}"`);
    line(io.stderr, `usage: ${COMPARE_USAGE}`);
    return EXIT.error;
  }
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  try {
    const response = await requestComparison(client, positionals[0]!, positionals[1]!, threshold, answers);
    if (response.status !== 200) {
      printProblem(io, 'compare', response);
      return EXIT.error;
    }
    if (values.json) line(io.stdout, JSON.stringify(response.body, null, 2));
    else printComparison(io.stdout, response.body);
    return response.body.gate.regressed ? EXIT.regression : EXIT.pass;
  } finally {
    await client.close();
  }
}
