/**
 * The verdict in words, said the same way by the CLI, the console's run page, the Markdown and JUnit reports
 * and the HTML report: which gate decided the status and why, and the trials as τ-bench's tables give them.
 */
import type { RunRecord } from './runs.ts';
import type { TrialsSummary } from './verdict.ts';
import { describeLoosenings, type PolicyLoosening } from './policy-strength.ts';

const fixed = (value: number | null) => (value === null ? '—' : value.toFixed(2));

/** `decided by must_pass: 1 task failed: task refund state_match LOGIC.STATE_MISMATCH`; empty for older records. */
export function verdictLine(compliance: RunRecord['compliance']): string {
  const decided = compliance?.decided_by;
  return decided ? `decided by ${decided.gate}: ${decided.reason}` : '';
}

/** `k = 3 · pass@3 1.00 · pass^1 0.78 · pass^2 0.56 · pass^3 0.33`. */
export function trialsLine(trials: TrialsSummary | undefined | null): string {
  if (!trials) return '';
  const hats = (trials.pass_hat ?? []).map((value, index) => `pass^${index + 1} ${fixed(value)}`);
  if (!hats.length) hats.push(`pass^${trials.k} ${fixed(trials.pass_hat_k)}`);
  return [`k = ${trials.k}`, `pass@${trials.k} ${fixed(trials.pass_at_k)}`, ...hats].join(' · ');
}

/**
 * The policy in one line: `fail on high+ · must pass: declared · min pass rate 1 · pass at 0.8`, ending with
 * `· RELAXED below the defaults: must_pass [] (at least ["declared"])` when it gates less than the defaults, so
 * that no report shows a relaxed `pass` as if it were an ordinary one.
 */
export function policyLine(compliance: RunRecord['compliance']): string {
  const policy = compliance?.policy;
  if (!policy) return '';
  const severity = policy.fail_on_severity === 'none' ? 'no severity gate' : `fail on ${policy.fail_on_severity}${policy.fail_on_severity === 'critical' ? '' : '+'}`;
  const relaxed = (compliance as { policy_relaxed?: PolicyLoosening[] }).policy_relaxed;
  return `${severity} · must pass: ${policy.must_pass.length ? policy.must_pass.join(', ') : 'none'} · min pass rate ${policy.min_pass_rate} · pass at ${policy.pass_threshold}${relaxed?.length ? ` · RELAXED below the defaults: ${describeLoosenings(relaxed)}` : ''}`;
}

/** Where in the run a failure was seen, beyond its task: ` (trial 2, turn 1, variant typo)`; empty when nowhere more. */
export function failureWhere(failure: { trial?: number; turn?: number; variant?: string }): string {
  const parts = [
    ...(failure.trial !== undefined ? [`trial ${failure.trial + 1}`] : []),
    ...(failure.turn !== undefined ? [`turn ${failure.turn}`] : []),
    ...(failure.variant ? [`variant ${failure.variant}`] : []),
  ];
  return parts.length ? ` (${parts.join(', ')})` : '';
}
