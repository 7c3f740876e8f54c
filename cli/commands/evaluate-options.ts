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

/** The verdict policy flags (`aeh evaluate`, `aeh suite`): each overrides that field of the scenario's policy. */
export const VERDICT_OPTIONS = {
  'fail-on-severity': { type: 'string' },
  'must-pass': { type: 'string' },
  'min-pass-rate': { type: 'string' },
  'pass-threshold': { type: 'string' },
} as const;

const SEVERITY_NAMES = ['low', 'medium', 'high', 'critical', 'none'];

/**
 * The request's `verdict` from the flags: `--fail-on-severity low|medium|high|critical|none`, `--must-pass
 * declared,refusal` (or `none`), `--min-pass-rate 0..1`, `--pass-threshold 0.5..1`; `problem` names a bad one.
 */
export function verdictOption(values: Partial<Record<keyof typeof VERDICT_OPTIONS, string | undefined>>): { policy?: Record<string, unknown>; problem?: string } {
  const policy: Record<string, unknown> = {};
  const severity = values['fail-on-severity'];
  if (severity !== undefined) {
    if (!SEVERITY_NAMES.includes(severity)) return { problem: `--fail-on-severity must be one of ${SEVERITY_NAMES.join(', ')}, got "${severity}"` };
    policy.fail_on_severity = severity;
  }
  const mustPass = values['must-pass'];
  if (mustPass !== undefined) {
    const ids = mustPass.trim() === 'none' ? [] : mustPass.split(',').map((id) => id.trim()).filter(Boolean);
    const bad = ids.find((id) => !/^[a-z][a-z0-9_]{1,63}$/.test(id));
    if (bad !== undefined) return { problem: `--must-pass takes metric ids separated by commas (or declared, or none), got "${bad}"` };
    policy.must_pass = [...new Set(ids)];
  }
  for (const [flag, field, min] of [['min-pass-rate', 'min_pass_rate', 0], ['pass-threshold', 'pass_threshold', 0.5]] as const) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > 1) return { problem: `--${flag} must be a number from ${min} to 1, got "${raw}"` };
    policy[field] = value;
  }
  return Object.keys(policy).length ? { policy } : {};
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
