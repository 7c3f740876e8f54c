/** A metric's result as a run's trace keeps it (the unit records it; the run record and reports repeat it). */
import type { RedactionScope, Redactor } from '../../../core/redactor.ts';
import type { MetricResultData } from '../running/run-state.ts';

/**
 * A metric's result as the trace keeps it: its messages and evidence through the redactor, so no failure
 * repeats a canary, a credential or personal data into the run record, failures.json or the certificate's
 * evidence (the agent's own output events stay as they were: they are the evidence of the leak).
 */
export function redactedResult(data: MetricResultData, redactor: Redactor, scope: RedactionScope): MetricResultData {
  return {
    ...data,
    ...(data.note ? { note: redactor.text(data.note, scope) } : {}),
    failures: data.failures.map((failure) => ({
      ...failure,
      message: redactor.text(failure.message, scope),
      ...(failure.evidence !== undefined ? { evidence: redactor.value(failure.evidence, scope) } : {}),
    })),
  };
}
