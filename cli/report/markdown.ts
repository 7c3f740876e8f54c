/** A Markdown summary of a run for pull-request comments. */
import { attackLines } from '../../core/domain/attack-summary.ts';
import type { ReportInput } from './model.ts';
import { failureWhere, policyLine, trialsLine } from '../../core/domain/verdict-text.ts';
import { redactedReport } from './redact.ts';
import { usageLine } from '../../core/domain/usage-text.ts';

const ICON: Record<string, string> = { pass: '✅', warning: '⚠️', fail: '❌', error: '💥' };

function cell(text: unknown): string {
  return String(text ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** What the CLI gate decided beyond the run's own status: its exit code (io.ts `EXIT`). */
export interface MarkdownGate {
  exit: number;
}

const GATE_WORDS: Record<number, string> = { 1: 'failed', 2: 'stopped on the warning', 3: 'errored', 4: 'failed: the run regressed against its baseline' };

/**
 * Renders a run as a Markdown summary (GitHub-flavoured tables), every message redacted (redact.ts). With the
 * gate's exit code, the heading never shows ✅ for a run the gate failed.
 */
export function toMarkdown(report: ReportInput, gate?: MarkdownGate): string {
  const { run, scenarioTitle, results, links } = redactedReport(report);
  const status = run.compliance?.status ?? 'error';
  const gated = gate !== undefined && gate.exit !== 0;
  const icon = gated ? (status === 'pass' || status === 'warning' ? '❌' : ICON[status] ?? '❌') : ICON[status] ?? '';
  const lines = [
    `### ${icon} ${cell(scenarioTitle)}: **${status}** (index ${run.index === null ? '—' : run.index.toFixed(2)})${gated ? ` · gate ${GATE_WORDS[gate.exit] ?? 'failed'} (exit ${gate.exit})` : ''}`,
    '',
    `Run ${links?.console ? `[\`${run.run_id}\`](${links.console})` : `\`${run.run_id}\``} · ${results.length} checks · ${run.failures.length} failures · [certificate](${links?.certificate ?? run.certificate_url}) · [verify](${links?.verify ?? run.verify_url})${links?.report ? ` · [report](${links.report})` : ''}`,
    '',
  ];
  if (run.dimensions) {
    const measured = Object.entries(run.dimensions);
    lines.push(`| ${measured.map(([name]) => name).join(' | ')} |`, `|${measured.map(() => '---').join('|')}|`, `| ${measured.map(([, value]) => (value === null ? '—' : value.toFixed(2))).join(' | ')} |`, '');
  }
  if (run.compliance?.decided_by && !run.error) lines.push(`Decided by **${cell(run.compliance.decided_by.gate)}**: ${cell(run.compliance.decided_by.reason)}`, '');
  if (run.compliance?.policy) lines.push(`Policy: ${cell(policyLine(run.compliance))}`, '');
  if (run.trials) lines.push(`Trials: ${cell(trialsLine(run.trials))}`, '');
  if (run.attacks) {
    const [pooled, ...each] = attackLines(run.attacks);
    lines.push(`Attacks: ${cell(pooled!)}`, '', ...each.map((text) => `- ${cell(text)}`), ...(each.length ? [''] : []));
  }
  if (run.error?.code === 'nothing_measured' || run.error?.code === 'unmeasured_check') lines.push(`> No verdict: ${cell(run.compliance?.reason ?? run.error.message)}`, '');
  else if (run.error) lines.push(`> The run could not complete: \`${cell(run.error.code)}\` ${cell(run.error.message)}`, '');
  if (run.agent) lines.push(`Agent: ${run.agent.name ? `**${cell(run.agent.name)}**` : cell(run.agent.adapter)} · configuration \`${cell(run.agent.config_hash.slice(0, 16))}\``, '');
  if (run.usage) lines.push(`Usage: ${cell(usageLine(run.usage))}${run.usage.cached_calls ? ' · **answers from the response cache**' : ''}`, '');
  if (run.failures.length) {
    lines.push('| task | metric | code | severity | message |', '|---|---|---|---|---|');
    for (const failure of run.failures) lines.push(`| ${cell(failure.task_id)}${cell(failureWhere(failure))} | ${cell(failure.metric)} | \`${cell(failure.code)}\` | ${cell(failure.severity)} | ${cell(failure.message)} |`);
  }
  return `${lines.join('\n')}\n`;
}
