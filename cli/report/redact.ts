/**
 * Reports leave the service: JUnit lands in CI dashboards, Markdown in pull requests and step summaries. Every
 * text a report repeats from the run (failure messages and evidence, the run's error) passes the service's own
 * redaction (plugins/metrics/redactor.ts) against the scenario's canaries, so a report never repeats a secret,
 * even one from a server that did not redact it.
 */
import type { RunFailure } from '../../core/domain/runs.ts';
import { redactText, redactValue } from '../../plugins/metrics/redactor.ts';
import type { ReportInput } from './model.ts';

/** The report with every message, evidence, error and compliance reason redacted. */
export function redactedReport(input: ReportInput): ReportInput {
  const scope = { scenario: input.scenario };
  const failure = (entry: RunFailure): RunFailure => ({
    ...entry,
    message: redactText(String(entry.message ?? ''), scope),
    ...(entry.evidence !== undefined ? { evidence: redactValue(entry.evidence, scope) } : {}),
  });
  const { run } = input;
  return {
    ...input,
    run: {
      ...run, failures: run.failures.map(failure),
      ...(run.error ? { error: { ...run.error, message: redactText(String(run.error.message ?? ''), scope) } } : {}),
      ...(run.compliance ? { compliance: {
        ...run.compliance,
        ...(run.compliance.reason ? { reason: redactText(String(run.compliance.reason), scope) } : {}),
        ...(run.compliance.decided_by ? { decided_by: { ...run.compliance.decided_by, reason: redactText(String(run.compliance.decided_by.reason), scope) } } : {}),
      } } : {}),
    },
    results: input.results.map((result) => ({ ...result, failures: result.failures.map(failure) })),
  };
}
