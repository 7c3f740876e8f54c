/**
 * Why a run has no verdict (issue 18 item 6): a run that could not complete, or one that completed with nothing
 * measured (every metric of every original task unmeasured), ends with compliance `error`; the run record, the
 * summary and the certificate say why in words, instead of leaving it to be found in the trace.
 */
import type { RunFailure } from '../../core/domain/runs.ts';
import type { RunError, UnmeasuredNote } from './run-state.ts';

/** The longest reason a record keeps. */
const MAX_REASON = 600;
/** How many distinct metric notes a reason names. */
const MAX_NOTES = 4;

function clip(text: string): string {
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}

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
  return clip(`nothing was measured: ${parts.join('; ')}`);
}

/**
 * The error a finished run records: the run's own (it could not complete), or `nothing_measured` with the
 * reason when it completed and no dimension was measured; `undefined` for a run with a verdict.
 */
export function verdictError(runError: RunError | undefined, measured: number, notes: UnmeasuredNote[], failures: readonly RunFailure[]): RunError | undefined {
  if (runError) return runError;
  return measured === 0 ? { code: 'nothing_measured', message: nothingMeasuredReason(notes, failures) } : undefined;
}

/** The `reason` of a compliance `error`, from the error that caused it. */
export function complianceReason(error: RunError): string {
  return error.code === 'nothing_measured' ? error.message : clip(`the run could not complete: ${error.message}`);
}
