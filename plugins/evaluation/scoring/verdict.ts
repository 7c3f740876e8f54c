/**
 * The verdict of a finished run: what the run state established, judged by core/domain/verdict.ts under the
 * plan's policy. Also says why a run has no verdict (issue 18 item 6): a run that could not complete, or one
 * that measured nothing, ends with compliance `error`, and the record, summary and certificate say why in words.
 */
import type { RunFailure } from '../../../core/domain/runs.ts';
import type { ScoreSummary } from '../../../core/domain/scoring.ts';
import { clipReason, decideVerdict, trialsSummary, type TrialsSummary, type Verdict } from '../../../core/domain/verdict.ts';
import { resolvePolicy, type VerdictPolicy } from '../../../core/domain/verdict-policy.ts';
import { policyLoosenings, type PolicyLoosening } from '../../../core/domain/policy-strength.ts';
import type { RunPlan } from '../submission/plan.ts';
import { trialsOf } from '../submission/plan.ts';
import type { RunError, RunState, UnmeasuredNote } from '../running/run-state.ts';

/** How many distinct metric notes a reason names. */
const MAX_NOTES = 4;

/** "nothing was measured: task_success on 3 results: a rubric needs …; refusal on 1 result: …". */
export function nothingMeasuredReason(notes: UnmeasuredNote[], failures: readonly RunFailure[]): string {
  const sorted = [...notes].sort((a, b) => b.count - a.count || a.metric.localeCompare(b.metric));
  const parts = sorted.slice(0, MAX_NOTES).map((entry) => `${entry.metric} on ${entry.count} result${entry.count === 1 ? '' : 's'}: ${entry.note}`);
  if (sorted.length > MAX_NOTES) parts.push(`${sorted.length - MAX_NOTES} more`);
  if (parts.length === 0 && failures.length > 0) {
    const codes = [...new Set(failures.map((failure) => failure.code))].slice(0, MAX_NOTES);
    parts.push(`no metric produced a score (${codes.join(', ')})`);
  }
  if (parts.length === 0) parts.push('no metric produced a result');
  return clipReason(`nothing was measured: ${parts.join('; ')}`);
}

/** The `reason` of a compliance `error`, from the error that caused it. */
export function complianceReason(error: RunError): string {
  return error.code === 'nothing_measured' || error.code === 'unmeasured_check' ? error.message : clipReason(`the run could not complete: ${error.message}`);
}

/** The compliance block of a run record and certificate: status, index, the policy applied and the deciding gate. */
export interface Compliance {
  status: Verdict['status'];
  score: number;
  policy_ref: string;
  /** With status `error`: why there is no verdict. */
  reason?: string;
  /** The verdict policy applied (signed with the certificate). */
  policy: VerdictPolicy;
  /** Present when the policy gates less than the defaults: the loosened fields (signed). */
  policy_relaxed?: PolicyLoosening[];
  /** The gate that decided the status, and why in words. */
  decided_by: { gate: Verdict['gate']; reason: string };
}

/** What finishing a run records of its verdict. */
export interface RunVerdict {
  compliance: Compliance;
  verdict: Verdict;
  trials: TrialsSummary | null;
  /** The record's `error`: the run's own, or `nothing_measured`; absent for a run with a verdict. */
  error?: RunError;
}

/** Judges a finished run: its attempts under the plan's policy, its index, and why it has no verdict if so. */
export function judgeRun(plan: RunPlan, state: RunState, scored: ScoreSummary): RunVerdict {
  const runError = state.error();
  const policy = plan.verdict ?? resolvePolicy(plan.scenario.verdict);
  const failures = state.failures();
  const nothing = scored.measured.length === 0 ? nothingMeasuredReason(state.unmeasured(), failures) : undefined;
  const verdict = decideVerdict({
    policy, tasks: plan.scenario.tasks, attempts: state.perTask().map((outcome) => ({ task_id: outcome.task_id, ...(outcome.trial !== undefined ? { trial: outcome.trial } : {}), ...(outcome.variant ? { variant: outcome.variant } : {}), metrics: outcome.results })),
    index: scored.index, measured: scored.measured.length, ...(runError ? { runError: runError.message } : {}), ...(nothing ? { nothingMeasuredReason: nothing } : {}),
  });
  // A completed run without a verdict says why in its record, not only in its trace.
  const error = runError ?? (verdict.gate === 'nothing_measured' || verdict.gate === 'unmeasured_check' ? { code: verdict.gate, message: verdict.reason } : undefined);
  const relaxed = policyLoosenings(policy);
  const compliance: Compliance = {
    status: verdict.status, score: scored.index, policy_ref: plan.scenario.policy_ref,
    ...(verdict.status === 'error' ? { reason: verdict.gate === 'run_error' && runError ? complianceReason(runError) : verdict.reason } : {}),
    policy, ...(relaxed.length ? { policy_relaxed: relaxed } : {}), decided_by: { gate: verdict.gate, reason: verdict.reason },
  };
  return { compliance, verdict, trials: trialsSummary(verdict.tasks, trialsOf(plan)), ...(error ? { error } : {}) };
}
