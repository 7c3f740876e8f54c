/**
 * `aeh gc [--max-age-days N] [--keep-runs N] [--dry-run] [--json]`: `POST /api/v1/gc` — deletes the evidence of
 * runs the retention rules select (the configured `AEH_RETENTION_*`, or these options) and the blobs no run
 * refers to; deleted runs keep their certificate and a tombstone. Exit 0 done, 3 error.
 */
import { parseArgs } from 'node:util';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { openClient } from '../client.ts';

/** An option as the API takes it: a whole number as a number, anything else as given (the API says what is wrong). */
const asNumber = (value: string | undefined) => (value === undefined ? undefined : /^\d{1,12}$/.test(value) ? Number(value) : value);

/** Runs `aeh gc`; returns the exit code. */
export async function gcCommand(argv: string[], io: Io): Promise<number> {
  // A usage error throws: `main` prints it with this command's usage (GC_USAGE).
  const { values } = parseArgs({ args: argv, options: { 'max-age-days': { type: 'string' }, 'keep-runs': { type: 'string' }, 'dry-run': { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, url: { type: 'string' }, key: { type: 'string' } } });
  const body = {
    ...(values['dry-run'] ? { dry_run: true } : {}),
    ...(values['max-age-days'] !== undefined ? { max_age_days: asNumber(values['max-age-days']) } : {}),
    ...(values['keep-runs'] !== undefined ? { keep_runs: asNumber(values['keep-runs']) } : {}),
  };
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  try {
    const response = await client.request('POST', '/api/v1/gc', body);
    if (response.status !== 200) {
      printProblem(io, 'gc', response);
      return EXIT.error;
    }
    const report = response.body;
    if (values.json) line(io.stdout, JSON.stringify(report, null, 2));
    else {
      const rules = Object.entries(report.rules).map(([name, value]) => `${name}=${value}`).join(', ') || 'none (blobs only)';
      const verb = report.dry_run ? 'would delete' : 'deleted';
      line(io.stdout, `rules: ${rules}`);
      line(io.stdout, `${verb} ${report.runs.deleted} of ${report.runs.examined} run(s) and ${report.blobs.deleted} of ${report.blobs.examined} blob(s): ${report.bytes_freed} bytes`);
      for (const runId of report.runs.deleted_ids) line(io.stdout, `  ${runId}`);
    }
    return EXIT.pass;
  } finally {
    await client.close();
  }
}
