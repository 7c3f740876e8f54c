/** Output helpers shared by the commands: streams, `--json`, problems, exit codes. */

/**
 * Exit codes of `aeh evaluate` (and the others where they apply). `regression`: the run regressed beyond
 * `--max-regression` against its `--baseline` (`aeh evaluate`, `aeh compare`).
 */
export const EXIT = { pass: 0, fail: 1, warning: 2, error: 3, regression: 4 } as const;

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** Writes one line to a stream. */
export function line(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

/** Prints a problem+json answer (or any failed response) as one readable line on stderr. */
export function printProblem(io: Io, what: string, response: { status: number; body: any; text: string }): void {
  const body = response.body && typeof response.body === 'object' ? response.body : {};
  const detail = body.detail ?? response.text.slice(0, 300);
  line(io.stderr, `${what} failed: ${response.status} ${body.code ?? ''} ${detail}`.replace(/\s+/g, ' ').trim());
  for (const error of body.errors ?? []) line(io.stderr, `  ${error.path}: ${error.message}`);
  if (typeof body.hint === 'string') line(io.stderr, `  hint: ${body.hint}`);
  for (const pitfall of body.pitfalls ?? []) line(io.stderr, `  line ${pitfall.line}: ${pitfall.code}: ${pitfall.message}`);
}
