/**
 * Pitfalls and warnings of spec-to-eval (service-spec.md "Markdown requirements for spec-to-eval"): a pitfall
 * is a deviation the converter cannot recover from (422 `spec_parse_failed` listing them all); a warning is a
 * softer deviation it worked around (returned with the 200). Both point at a line of the source document.
 */
import { Problem } from '../../core/problems.ts';

/** One problem found in a PRD, with the 1-based line of the source it points at. */
export interface Finding {
  code: string;
  line: number;
  message: string;
}

/** Codes of the problems that make the conversion fail (422). */
export const PITFALL = {
  missingH1: 'missing_h1',
  emptyTitle: 'empty_title',
  noTasksSection: 'no_tasks_section',
  noStructuredTasks: 'no_structured_tasks',
  malformedIndustry: 'malformed_industry',
  malformedUseCase: 'malformed_use_case',
  malformedTopology: 'malformed_topology',
  topologyTooLarge: 'topology_too_large',
  invalidEncoding: 'invalid_encoding',
  tooComplex: 'too_complex',
  llmInvalidOutput: 'llm_invalid_output',
} as const;

/** Codes of the problems the converter works around (200 with `warnings`). */
export const WARNING = {
  missingIndustry: 'missing_industry',
  missingUseCase: 'missing_use_case',
  h1WithoutPrd: 'h1_without_prd_prefix',
  contentBeforeH1: 'content_before_h1',
  extraH1: 'extra_h1',
  duplicateLabel: 'duplicate_label',
  topologyPartial: 'topology_partial',
  duplicateAgent: 'duplicate_topology_agent',
  titleTruncated: 'title_truncated',
  criteriaMalformed: 'criteria_malformed',
  unknownMetric: 'unknown_metric',
  latencyBudgetDefault: 'latency_budget_default',
  invalidRegex: 'invalid_expected_regex',
  emptyTasksSection: 'empty_tasks_section',
  llmInputTruncated: 'llm_input_truncated',
  scenarioSplit: 'scenario_split',
  inputTruncated: 'input_truncated',
  warningsTruncated: 'warnings_truncated',
  unboldedLabel: 'unbolded_label',
  llmEnrichFailed: 'llm_enrich_failed',
  llmEnriched: 'llm_enriched',
} as const;

/** Collects findings while a document is walked; the converter decides at the end whether to fail. */
export interface FindingLog {
  pitfalls: Finding[];
  warnings: Finding[];
  pitfall(code: string, line: number, message: string): void;
  warn(code: string, line: number, message: string): void;
}

/** A fresh, empty log. */
export function createFindingLog(): FindingLog {
  const pitfalls: Finding[] = [];
  const warnings: Finding[] = [];
  return {
    pitfalls,
    warnings,
    pitfall: (code, line, message) => void pitfalls.push({ code, line, message }),
    warn: (code, line, message) => void warnings.push({ code, line, message }),
  };
}

/** Findings in source order (stable for equal lines). */
export function byLine(findings: Finding[]): Finding[] {
  return findings.map((finding, index) => ({ finding, index }))
    .sort((a, b) => a.finding.line - b.finding.line || a.index - b.index)
    .map(({ finding }) => finding);
}

/** The most findings one answer lists; the rest are counted, so a hostile document cannot inflate it. */
export const MAX_FINDINGS = 500;

/** Findings in line order, at most `MAX_FINDINGS`, the last one saying how many were left out. */
export function capFindings(findings: Finding[], code: string = WARNING.warningsTruncated): Finding[] {
  const sorted = byLine(findings);
  if (sorted.length <= MAX_FINDINGS) return sorted;
  const kept = sorted.slice(0, MAX_FINDINGS - 1);
  return [...kept, { code, line: sorted[MAX_FINDINGS - 1].line, message: `${sorted.length - kept.length} more findings are not listed` }];
}

/** The 422 `spec_parse_failed` problem (api-contract.md "Errors") carrying every pitfall (at most `MAX_FINDINGS`). */
export function specParseFailed(pitfalls: Finding[]): Problem {
  const sorted = capFindings(pitfalls, 'pitfalls_truncated');
  const first = sorted[0];
  const more = sorted.length > 1 ? ` (and ${sorted.length - 1} more)` : '';
  return new Problem('spec_parse_failed', {
    detail: first ? `line ${first.line}: ${first.message}${more}` : 'the specification could not be parsed',
    extra: { pitfalls: sorted },
  });
}
