/** `aeh doctor`: the same checks as `GET /api/v1/doctor`; exit 1 when any check fails. */
import { parseArgs } from 'node:util';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient } from '../client.ts';

const MARK: Record<string, string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' };

/** Runs `aeh doctor`; returns the exit code (0 ok or warn, 1 a check failed or the service cannot start, 3 error). */
export async function doctorCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { url: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean', default: false } } });
  let client;
  try {
    client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  } catch (error) {
    // The service could not even start (a broken plugin, bad configuration): that is the doctor's finding.
    const report = { status: 'fail', checks: [{ id: 'startup', status: 'fail', message: (error as Error).message, hint: 'fix the configuration or the plugin named above, then run aeh doctor again' }] };
    if (values.json) line(io.stdout, JSON.stringify(report, null, 2));
    else line(io.stdout, `FAIL startup: ${(error as Error).message}`);
    return EXIT.fail;
  }
  try {
    const response = await client.request('GET', '/api/v1/doctor');
    if (response.status !== 200) {
      printProblem(io, 'doctor', response);
      return EXIT.error;
    }
    if (values.json) line(io.stdout, JSON.stringify(response.body, null, 2));
    else {
      for (const check of response.body.checks) {
        line(io.stdout, `${MARK[check.status] ?? check.status} ${check.id}: ${check.message}`);
        if (check.hint && check.status !== 'ok') line(io.stdout, `     fix: ${check.hint}`);
      }
      line(io.stdout, `overall: ${response.body.status}`);
    }
    return response.body.status === 'fail' ? EXIT.fail : EXIT.pass;
  } finally {
    await client.close();
  }
}
