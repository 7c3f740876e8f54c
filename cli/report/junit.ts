/**
 * JUnit XML for CI dashboards: one test suite per run, one test case per task and metric; failures carry
 * their taxonomy codes (and the trial and turn they were seen in), unmeasured metrics are skipped (never counted
 * as passed), the verdict is a case named `verdict` that fails with the deciding gate when the run does, and a
 * run without a verdict (it could not complete, or measured nothing) is an error case named `run` that says why.
 */
import type { ReportInput } from './model.ts';
import { failureWhere, policyLine, verdictLine } from '../../core/domain/verdict-text.ts';
import { redactedReport } from './redact.ts';

function xml(text: unknown): string {
  return String(text ?? '')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/**
 * Renders a run as JUnit XML (the de-facto schema CI dashboards read: testsuites/testsuite/testcase), every
 * message redacted (redact.ts).
 */
export function toJunit(report: ReportInput): string {
  const { run, scenarioTitle, results, links } = redactedReport(report);
  const failures = results.filter((result) => result.failures.length > 0).length;
  const skipped = results.filter((result) => result.score === null && result.failures.length === 0).length;
  // A failed run, and a run that measured nothing (succeeded, compliance error), are errors of the suite.
  const errored = run.status === 'failed' || run.error ? 1 : 0;
  const decided = run.compliance?.decided_by;
  const seconds = run.started_at && run.finished_at ? (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000 : 0;
  const cases = results.map((result) => {
    const name = `${result.task_id} · ${result.metric}`;
    const open = `    <testcase classname="${xml(run.scenario_id)}" name="${xml(name)}">`;
    if (result.failures.length) {
      const body = result.failures.map((failure) => `${failure.code} [${failure.severity}]${failureWhere(failure)} ${failure.message}${failure.event_index !== null ? ` (trace event ${failure.event_index})` : ''}`).join('\n');
      return `${open}\n      <failure type="${xml(result.failures[0].code)}" message="${xml(result.failures[0].message)}">${xml(body)}</failure>\n    </testcase>`;
    }
    if (result.score === null) return `${open}\n      <skipped message="not measured"/>\n    </testcase>`;
    return `${open}</testcase>`;
  });
  const properties = [
    ['run_id', run.run_id], ['compliance', run.compliance?.status], ['index', run.index], ['certificate_url', links?.certificate ?? run.certificate_url],
    ...(decided ? [['decided_by', decided.gate], ['decided_by_reason', decided.reason]] : []),
    ...(run.compliance?.policy ? [['verdict_policy', policyLine(run.compliance)]] : []),
    ...(run.trials ? [['trials', run.trials.k], ['pass_at_k', run.trials.pass_at_k], ['pass_hat_k', run.trials.pass_hat_k], ...(run.trials.pass_hat ?? []).map((value, index) => [`pass_hat_${index + 1}`, value ?? ''])] : []),
    ...(run.attacks ? [['utility', run.attacks.utility.rate ?? ''], ['utility_under_attack', run.attacks.utility_under_attack.rate ?? ''], ['targeted_asr', run.attacks.targeted_asr.rate ?? ''], ...run.attacks.by_attack.map((entry) => [`asr_${entry.attack}`, entry.asr.rate ?? ''])] : []),
    ...(links ? [['verify_url', links.verify], ...(links.report ? [['report_url', links.report]] : [])] : []),
    ...(run.compliance?.reason ? [['reason', run.compliance.reason]] : []),
    ...(run.agent ? [['agent', run.agent.name ?? run.agent.adapter], ['agent_config_hash', run.agent.config_hash]] : []),
    ...(run.usage ? [['agent_calls', run.usage.calls], ['cached_calls', run.usage.cached_calls], ['tokens_input', run.usage.tokens.input], ['tokens_output', run.usage.tokens.output], ['tokens_total', run.usage.tokens.total], ['latency_ms_sum', run.usage.latency_ms.sum]] : []),
    ...(run.usage?.cost ? [['cost', run.usage.cost.total], ['cost_currency', run.usage.cost.currency], ['unpriced_calls', run.usage.cost.unpriced_calls]] : []),
  ].map(([name, value]) => `      <property name="${xml(name)}" value="${xml(value)}"/>`).join('\n');
  const errorCase = errored ? `\n    <testcase classname="${xml(run.scenario_id)}" name="run"><error type="${xml(run.error?.code ?? 'error')}" message="${xml(run.error?.message ?? 'the run could not complete')}"/></testcase>` : '';
  // The verdict is a test of its own: a dashboard that counts failures agrees with the status the gate read.
  const verdictFailed = !errored && (run.compliance?.status === 'fail' || run.compliance?.status === 'warning');
  const verdictCase = decided && !errored
    ? `\n    <testcase classname="${xml(run.scenario_id)}" name="verdict">${verdictFailed ? `<failure type="${xml(decided.gate)}" message="${xml(`${run.compliance!.status}: ${decided.reason}`)}">${xml(verdictLine(run.compliance))}</failure>` : ''}</testcase>`
    : '';
  const total = results.length + errored + (verdictCase ? 1 : 0);
  const failed = failures + (verdictFailed && verdictCase ? 1 : 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="aeh" tests="${total}" failures="${failed}" errors="${errored}" skipped="${skipped}" time="${seconds}">`,
    `  <testsuite name="${xml(scenarioTitle)}" tests="${total}" failures="${failed}" errors="${errored}" skipped="${skipped}" time="${seconds}" timestamp="${xml(run.started_at ?? '')}">`,
    '    <properties>',
    properties,
    '    </properties>',
    ...cases,
  ].join('\n') + verdictCase + errorCase + '\n  </testsuite>\n</testsuites>\n';
}
