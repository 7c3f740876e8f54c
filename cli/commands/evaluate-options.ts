/**
 * What `aeh evaluate` does after the run beyond reporting it: the HTML report (`--report`) and the regression
 * gate (`--baseline latest|pinned|<run_id>` with `--max-regression`), and the threshold both gates parse.
 */
import { EXIT, line, printProblem, type Io } from '../io.ts';
import type { ApiClient } from '../client.ts';
import { printComparison, requestComparison } from '../gate.ts';

/** A `--max-regression` value: a number from 0 to 1, else undefined. */
export function parseThreshold(raw: string): number | undefined {
  const value = Number(raw);
  return raw.trim() !== '' && Number.isFinite(value) && value >= 0 && value <= 1 ? value : undefined;
}

/** What `--baseline` names, as the compare API's `base`: `pinned` is the pinned baseline. */
export function baseOf(baseline: string): string {
  return baseline === 'pinned' ? 'baseline' : baseline;
}

/**
 * Compares the finished run with its baseline and prints the comparison on stderr (stdout holds the report).
 * Returns EXIT.regression when something regressed beyond the threshold, EXIT.error when the comparison could
 * not be made, and undefined when the gate passes, including the first run of a scenario and agent with
 * `--baseline latest` (there is nothing earlier to regress from; that is said on stderr).
 */
export async function gateRun(client: ApiClient, runId: string, baseline: string, threshold: number, io: Io): Promise<number | undefined> {
  const base = baseOf(baseline);
  const response = await requestComparison(client, base, runId, threshold);
  if (response.status === 404 && (response.body as { baseline_missing?: boolean })?.baseline_missing && base === 'latest') {
    line(io.stderr, 'gate: no earlier succeeded run of this scenario and agent to compare with; nothing to gate yet');
    return undefined;
  }
  if (response.status !== 200) {
    printProblem(io, 'gate', response);
    return EXIT.error;
  }
  printComparison(io.stderr, response.body);
  return response.body.gate.regressed ? EXIT.regression : undefined;
}
