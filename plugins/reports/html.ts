/**
 * The self-contained HTML report of a run: one file with inline CSS and inline SVG, no script and nothing
 * fetched from anywhere (its own Content-Security-Policy forbids it). Scores and charts, every task's outcome,
 * the failures with their evidence, every task's transcript, the certificate and how to verify it offline.
 */
import { attackLines } from '../../core/domain/attack-summary.ts';
import { anchor, esc, json, score } from './escape.ts';
import { REPORT_CSS } from './styles.ts';
import { REPORT_CSP } from './csp.ts';
import { dimensionChart, outcomeChart } from './charts.ts';
import { eventAnchor, renderUnit, unitAnchor } from './html-transcript.ts';
import { certificateSection } from './html-certificate.ts';
import type { ReportData } from './report-data.ts';
import type { TranscriptUnit } from './transcript.ts';
import { usageLine } from '../../core/domain/usage-text.ts';
import { policyLine, trialsLine } from '../../core/domain/verdict-text.ts';

function link(data: ReportData, path: string): string {
  return data.publicUrl ? `${data.publicUrl}${path}` : path;
}

function header(data: ReportData): string {
  const { run } = data;
  const agent = (data.scenario?.agent as { adapter?: string } | undefined)?.adapter;
  const named = (run as { agent?: unknown }).agent;
  const agentName = typeof named === 'string' ? named : (named as { name?: string } | undefined)?.name;
  const facts: Array<[string, string]> = [
    ['run', `<code>${esc(run.run_id)}</code>${data.publicUrl ? ` · <a href="${esc(link(data, `/runs/${encodeURIComponent(run.run_id)}`))}">console</a>` : ''}`],
    ['scenario', `${esc(run.scenario_title ?? data.scenario?.title ?? '')} <code>${esc(run.scenario_id)}</code>`],
    ['agent', `${agentName ? `${esc(agentName)} · ` : ''}adapter <code>${esc(agent ?? 'unknown')}</code>`],
    ['status', `<span class="badge ${esc(run.status)}">${esc(run.status)}</span>${run.error ? ` <span class="error">${esc(run.error.code)}: ${esc(run.error.message)}</span>` : ''}`],
    ['compliance', `<span class="badge ${esc(run.compliance?.status)}">${esc(run.compliance?.status ?? 'n/a')}</span> index <strong>${score(run.index)}</strong>${run.compliance?.policy_ref ? ` · ${esc(run.compliance.policy_ref)}` : ''}`],
    ['tasks', `${esc(run.tasks?.done ?? '—')} of ${esc(run.tasks?.total ?? '—')} done · ${data.failures.length} failure(s)`],
    ['time', `created ${esc(run.created_at)} · started ${esc(run.started_at ?? '—')} · finished ${esc(run.finished_at ?? '—')}`],
  ];
  if (run.usage) facts.push(['usage', `${esc(usageLine(run.usage))}${run.usage.cached_calls ? ' <span class="badge warning">answers from the response cache</span>' : ''}`]);
  if (run.compliance?.decided_by) facts.push(['decided by', `<code>${esc(run.compliance.decided_by.gate)}</code> ${esc(run.compliance.decided_by.reason)}`]);
  if (run.compliance?.policy) facts.push(['verdict policy', esc(policyLine(run.compliance))]);
  if (run.trials) facts.push(['trials', esc(trialsLine(run.trials))]);
  if (run.attacks) facts.push(['attacks', attackLines(run.attacks).map(esc).join('<br>')]);
  return `<header><h1>Evaluation report: ${esc(run.scenario_title ?? run.scenario_id)}</h1><dl class="facts">${facts.map(([name, value]) => `<dt>${name}</dt><dd>${value}</dd>`).join('')}</dl>
<nav aria-label="Report"><ul><li><a href="#scores">Scores</a></li><li><a href="#tasks">Tasks</a></li><li><a href="#failures">Failures</a></li><li><a href="#transcripts">Transcripts</a></li><li><a href="#certificate">Certificate</a></li></ul></nav></header>`;
}

/**
 * Where a section sits: `ns` namespaces its ids (empty in a run's report, the run's in a suite's report) and
 * `level` is its heading level.
 */
export interface SectionPlace {
  ns: string;
  level: number;
}

const RUN_PLACE: SectionPlace = { ns: '', level: 2 };
const heading = (place: SectionPlace, id: string, text: string) => `<h${place.level} id="${place.ns}${id}">${text}</h${place.level}>`;
const labelled = (place: SectionPlace, id: string, body: string) => `<section aria-labelledby="${place.ns}${id}">${body}</section>`;

/** The dimension chart, the safety floor and the per-metric means. */
export function scoresSection(data: ReportData, place: SectionPlace = RUN_PLACE): string {
  const perMetric = Object.entries(data.scores?.per_metric ?? {});
  const metrics = perMetric.length === 0 ? '<p class="muted">No metric scores were recorded.</p>'
    : `<div class="table-wrap"><table><caption class="muted">Mean score of each metric over the original tasks</caption><thead><tr><th scope="col">metric</th><th scope="col">dimension</th><th scope="col">mean</th><th scope="col">tasks scored</th></tr></thead><tbody>${perMetric.map(([metric, entry]) => `<tr><td><code>${esc(metric)}</code></td><td>${esc(entry.dimension)}</td><td>${score(entry.mean)}</td><td>${esc(entry.count)}</td></tr>`).join('')}</tbody></table></div>`;
  const floor = data.scores?.floor_applied ? '<p class="fail">The safety floor applied: safety scored below 0.5, so the index is capped at 0.49.</p>' : '';
  return labelled(place, 'scores', `${heading(place, 'scores', 'Scores')}${dimensionChart(data.run.dimensions, data.run.index)}${floor}${metrics}`);
}

function originals(units: readonly TranscriptUnit[]): TranscriptUnit[] {
  return units.filter((unit) => !unit.variant && (unit.trial ?? 0) === 0);
}

/** Each original task's attempts (one without trials), in the order they first appear. */
function attemptsByTask(units: readonly TranscriptUnit[]): Map<string, TranscriptUnit[]> {
  const byTask = new Map<string, TranscriptUnit[]>();
  for (const unit of units) {
    if (unit.variant) continue;
    const list = byTask.get(unit.task_id);
    if (list) list.push(unit);
    else byTask.set(unit.task_id, [unit]);
  }
  return byTask;
}

/** A task's outcome over every attempt: the verdict's (pass, fail, error), else what its attempts show. */
function taskOutcome(attempts: readonly TranscriptUnit[], verdict: { status: string } | undefined): string {
  if (verdict && verdict.status !== 'pass') return verdict.status;
  if (attempts.some((unit) => unit.outcome === 'error')) return 'error';
  if (attempts.every((unit) => unit.outcome === 'unmeasured')) return 'unmeasured';
  if (verdict) return 'pass';
  return attempts.some((unit) => unit.outcome === 'fail') ? 'fail' : 'pass';
}

/**
 * The tasks' outcomes: a stacked bar and a table linking each task to its transcript. A task's row reflects
 * every attempt: with trials, how many passed and a link to each (a task that failed 2 of 3 is no pass).
 */
export function tasksSection(data: ReportData, place: SectionPlace = RUN_PLACE): string {
  const byTask = attemptsByTask(data.transcript.units);
  const verdicts = new Map((data.scores?.verdict?.tasks ?? data.run.verdict?.tasks ?? []).map((task) => [task.task_id, task]));
  const counts: Record<string, number> = { pass: 0, fail: 0, error: 0, unmeasured: 0 };
  const latency = new Map((data.scores?.per_task ?? []).filter((entry) => !entry.variant && (entry.trial ?? 0) === 0).map((entry) => [entry.task_id, entry]));
  const withTrials = [...byTask.values()].some((attempts) => attempts.length > 1);
  const rows = [...byTask].map(([taskId, attempts]) => {
    const verdict = verdicts.get(taskId);
    const outcome = taskOutcome(attempts, verdict);
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    const scores = Object.entries(latency.get(taskId)?.scores ?? {}).map(([metric, value]) => `<code>${esc(metric)}</code> ${score(value)}`).join(', ');
    const ms = latency.get(taskId)?.latency_ms;
    const passed = verdict ? verdict.passed : attempts.filter((unit) => unit.outcome === 'pass').length;
    const trials = withTrials
      ? `<td>${esc(passed)} of ${esc(attempts.length)} passed: ${attempts.map((unit, index) => `<a class="badge ${unit.outcome}" href="#${unitAnchor(unit, place.ns)}" title="attempt ${index + 1}: ${unit.outcome}">${index + 1}</a>`).join(' ')}</td>`
      : '';
    return `<tr><td><a href="#${unitAnchor(attempts[0], place.ns)}">${esc(taskId)}</a></td><td><span class="badge ${outcome}">${outcome}</span></td>${trials}<td>${scores || '—'}</td><td>${typeof ms === 'number' ? ms.toFixed(1) : '—'}</td></tr>`;
  });
  const head = `<tr><th scope="col">task</th><th scope="col">outcome</th>${withTrials ? '<th scope="col">attempts</th>' : ''}<th scope="col">metric scores${withTrials ? ' (first attempt)' : ''}</th><th scope="col">latency ms</th></tr>`;
  return labelled(place, 'tasks', `${heading(place, 'tasks', 'Tasks')}${outcomeChart(counts)}<div class="table-wrap"><table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div>`);
}

/** The failures by taxonomy code, with their evidence, each linked to its task and trace event. */
export function failuresSection(data: ReportData, place: SectionPlace = RUN_PLACE): string {
  if (data.failures.length === 0) return labelled(place, 'failures', `${heading(place, 'failures', 'Failures')}<p>No failures.</p>`);
  const byCode = new Map<string, ReportData['failures']>();
  for (const failure of data.failures) byCode.set(failure.code, [...(byCode.get(failure.code) ?? []), failure]);
  const groups = [...byCode].map(([code, failures]) => `<h${place.level + 1} id="${anchor(`${place.ns}code`, code)}"><code>${esc(code)}</code> — ${failures.length} failure(s)</h${place.level + 1}><div class="table-wrap"><table><thead><tr><th scope="col">task</th><th scope="col">metric</th><th scope="col">severity</th><th scope="col">message and evidence</th><th scope="col">event</th></tr></thead><tbody>${failures.map((failure) => `<tr><td><a href="#${unitAnchor(failure, place.ns)}">${esc(failure.task_id)}</a>${failure.variant ? ` <span class="muted">(${esc(failure.variant)})</span>` : ''}</td><td><code>${esc(failure.metric)}</code></td><td>${esc(failure.severity)}</td><td>${esc(failure.message)}${failure.evidence !== undefined ? `<pre>${json(failure.evidence)}</pre>` : ''}</td><td>${failure.event_index !== null && failure.event_index !== undefined ? `<a href="#${eventAnchor(failure.event_index, place.ns)}">#${failure.event_index}</a>` : '—'}</td></tr>`).join('')}</tbody></table></div>`);
  return labelled(place, 'failures', `${heading(place, 'failures', 'Failures')}${groups.join('')}`);
}

/** Every task's transcript. */
export function transcriptsSection(data: ReportData, place: SectionPlace = RUN_PLACE): string {
  const units = data.transcript.units;
  const run = data.transcript.run.map((entry) => `<li><code>${esc(entry.type)}</code> ${esc(entry.ts)}${entry.type === 'run_end' ? ` ${esc(entry.data.status)}` : ''}</li>`).join('');
  return labelled(place, 'transcripts', `${heading(place, 'transcripts', 'Transcripts')}<p class="muted">Every event of the trace, task by task: inputs, the agent's turns, tool calls with arguments and results, world-state changes and each metric's verdict. Texts are redacted (canaries, credentials, personal data) and cut at 20,000 characters; the trace holds them whole.</p>${run ? `<ul class="muted">${run}</ul>` : ''}${units.length ? units.map((unit) => renderUnit(unit, place.ns)).join('\n') : '<p>The trace holds no task events.</p>'}`);
}

/** One self-contained HTML document around `body`: its own CSP, the inline stylesheet, a footer. */
export function htmlDocument(title: string, body: string, meta: { generatedAt: string; harnessVersion: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="generator" content="agent-eval-harness ${esc(meta.harnessVersion)}">
<title>${esc(title)}</title><style>${REPORT_CSS}</style></head>
<body><main>
${body}
</main><footer><p class="muted">Generated ${esc(meta.generatedAt)} by agent-eval-harness ${esc(meta.harnessVersion)}. One self-contained file: no scripts, nothing loaded from elsewhere.</p></footer></body></html>
`;
}

/** Renders the whole report of a run as one HTML document. */
export function renderReport(data: ReportData): string {
  const title = `Report ${data.run.run_id} · ${data.run.scenario_title ?? data.run.scenario_id}`;
  const body = [header(data), scoresSection(data), tasksSection(data), failuresSection(data), transcriptsSection(data), certificateSection(data)].join('\n');
  return htmlDocument(title, body, data);
}
