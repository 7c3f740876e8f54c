/**
 * `aeh report <run_id|suite_id> [-o report.html]`: the self-contained HTML report of a run
 * (`GET /api/v1/runs/:id/report`) or of a suite (`GET /api/v1/suites/:id/report`), written to a file or to
 * stdout. `--json` prints `{id, path, bytes}` on stdout after writing the file, or `{id, bytes, html}` without
 * `-o`. Exit 0, or 3 when the run or suite is unknown or the report cannot be written.
 */
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EXIT, line, printProblem, type Io } from '../io.ts';
import { REPORT_USAGE } from '../usage.ts';
import { openClient, type ApiClient } from '../client.ts';

/** The report's bytes; undefined, after printing the problem, when the service refuses. */
async function fetchReport(client: ApiClient, runId: string, io: Io): Promise<Uint8Array | undefined> {
  const kind = runId.startsWith('suite_') ? 'suites' : 'runs';
  const response = await client.download(`/api/v1/${kind}/${encodeURIComponent(runId)}/report`);
  if (response.status === 200) return response.bytes;
  const text = new TextDecoder().decode(response.bytes);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  printProblem(io, 'report', { status: response.status, body, text });
  return undefined;
}

/**
 * Downloads a run's HTML report to `file` (its folder is created); undefined, after saying why, when it cannot.
 * Returns where it was written and its size.
 */
export async function saveReport(client: ApiClient, runId: string, file: string, io: Io): Promise<{ path: string; bytes: number } | undefined> {
  const bytes = await fetchReport(client, runId, io);
  if (!bytes) return undefined;
  const path = resolve(io.cwd, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
  line(io.stderr, `wrote ${file} (${bytes.length} bytes: the HTML report of ${runId})`);
  return { path, bytes: bytes.length };
}

/** Runs `aeh report`; returns the exit code. */
export async function reportCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { url: { type: 'string' }, key: { type: 'string' }, output: { type: 'string', short: 'o' }, json: { type: 'boolean', default: false } } });
  if (positionals.length !== 1) {
    line(io.stderr, `usage: ${REPORT_USAGE}`);
    return EXIT.error;
  }
  const id = positionals[0]!;
  const client = await openClient({ url: values.url, key: values.key, env: io.env, cwd: io.cwd });
  try {
    if (values.output) {
      const saved = await saveReport(client, id, values.output, io);
      if (saved && values.json) line(io.stdout, JSON.stringify({ id, ...saved }, null, 2));
      return saved ? EXIT.pass : EXIT.error;
    }
    const bytes = await fetchReport(client, id, io);
    if (!bytes) return EXIT.error;
    const html = new TextDecoder().decode(bytes);
    if (values.json) line(io.stdout, JSON.stringify({ id, bytes: bytes.length, html }));
    else io.stdout.write(html);
    return EXIT.pass;
  } finally {
    await client.close();
  }
}
