/** Run detail fragment: chart, failures by taxonomy code, the explain chain, the certificate and its live verify badge. */
import { attackLines } from '../../../core/domain/attack-summary.ts';
import type { AppContext } from '../../../core/routes.ts';
import { AgentLabel, Badge, Verdict } from '../layout.tsx';
import { usageLine } from '../../../core/domain/usage-text.ts';
import { failureWhere, policyLine, trialsLine } from '../../../core/domain/verdict-text.ts';
import type { RunRecord } from '../../../core/domain/runs.ts';
import { DimensionChart } from '../chart.tsx';
import { callApi } from '../api.ts';
import { visible } from '../visible.ts';

interface Failure { code: string; metric: string; task_id: string; severity: string; message: string; event_index: number | null; variant?: string; trial?: number; turn?: number }

function groupByCode(failures: Failure[]): Map<string, Failure[]> {
  const byCode = new Map<string, Failure[]>();
  for (const failure of failures) byCode.set(failure.code, [...(byCode.get(failure.code) ?? []), failure]);
  return byCode;
}

/** Which gate decided the verdict and why, the policy applied, and the trials (pass^1…pass^k). */
function VerdictFacts({ run }: { run: { compliance?: RunRecord['compliance']; trials?: RunRecord['trials']; attacks?: RunRecord['attacks'] } }) {
  const decided = run.compliance?.decided_by;
  return (
    <div>
      {decided && (
        <p data-verdict>
          Decided by <code>{decided.gate}</code>: {decided.reason}
          {run.compliance?.policy && <span class="muted"> · policy: {policyLine(run.compliance)}</span>}
        </p>
      )}
      {run.trials && <p data-trials>Trials: {trialsLine(run.trials)}</p>}
      {run.attacks && (
        <div data-attacks>
          <p>Attacks: {attackLines(run.attacks)[0]}</p>
          <ul>{attackLines(run.attacks).slice(1).map((line) => <li>{line}</li>)}</ul>
        </div>
      )}
    </div>
  );
}

export async function runDetailFragment(c: AppContext) {
  const runId = c.req.param('run_id') ?? '';
  const id = encodeURIComponent(runId);
  const run = await callApi(c, `/api/v1/runs/${id}`);
  if (run.status !== 200) return c.html(<p role="alert">{run.status === 404 ? `No run ${runId}.` : `Could not load the run: ${run.body.detail ?? run.status}`}</p>);
  const [explain, certificate] = await Promise.all([callApi(c, `/api/v1/explain/${id}`), callApi(c, `/v1/certificates/${id}`)]);
  const failures: Failure[] = run.body.failures ?? [];
  const byCode = groupByCode(failures);
  const chain: Array<{ event_index: number; agent?: string; type: string; summary: string; reason: string }> = explain.status === 200 ? explain.body.causal_chain ?? [] : [];
  return c.html(
    <div>
      <p>
        {/* One badge: the verdict once the run is finished, its state while it is not (never "succeeded" beside "fail"). */}
        {run.body.status === 'queued' || run.body.status === 'running' ? 'Status' : 'Verdict'} <Verdict status={run.body.status} compliance={run.body.compliance} /> · index{' '}
        <strong>{run.body.index === null ? '—' : Number(run.body.index).toFixed(2)}</strong> · scenario <code>{run.body.scenario_id}</code>
        {run.body.agent && <span> · agent <AgentLabel agent={run.body.agent} /></span>}
        {run.body.error && <span role="alert"> · error {run.body.error.code}: {run.body.error.message}</span>}
      </p>
      <VerdictFacts run={run.body} />
      {run.body.usage && (
        <p data-usage>
          Usage: {usageLine(run.body.usage)}
          {run.body.usage.cached_calls > 0 && <span> · <Badge value="cached" /> {run.body.usage.cached_calls} answer{run.body.usage.cached_calls === 1 ? '' : 's'} from the response cache</span>}
        </p>
      )}
      <p>
        <a href={`/api/v1/runs/${id}/report`} data-download={`/api/v1/runs/${id}/report`} data-filename={`report-${runId}.html`}>Download the HTML report</a> ·{' '}
        <a href={`/compare?base=latest&head=${id}`}>Compare with the previous run of this scenario and agent</a>
      </p>
      <div class="grid">
        <section class="panel" aria-labelledby="dimensions-heading">
          <h2 id="dimensions-heading">Dimensions</h2>
          <DimensionChart dimensions={run.body.dimensions} index={run.body.index} />
        </section>
        <section class="panel" aria-labelledby="certificate-heading">
          <h2 id="certificate-heading">Certificate</h2>
          {certificate.status === 200 ? (
            <div>
              <p><span class="badge" data-verify={runId} aria-live="polite">verifying…</span></p>
              <dl>
                <dt>vc_version</dt><dd>{certificate.body.vc_version}</dd>
                <dt>trace_hash ({certificate.body.hash_algorithm})</dt><dd><code>{certificate.body.trace_hash}</code></dd>
                <dt>provenance</dt><dd>{(certificate.body.provenance_chain ?? []).map((entry: { role: string; identity: string }) => `${entry.role} (${entry.identity})`).join(' → ')}</dd>
              </dl>
              <p>
                <a href={`/v1/certificates/${id}`} download={`certificate-${runId}.json`}>Download certificate</a> ·{' '}
                <a href={`/api/v1/runs/${id}/trace`} data-download={`/api/v1/runs/${id}/trace`} data-filename={`${runId}.jsonl`}>Download trace</a>
              </p>
            </div>
          ) : (
            <p class="muted">No certificate yet{run.body.status === 'queued' || run.body.status === 'running' ? ': the run is not finished.' : '.'}</p>
          )}
        </section>
      </div>
      <section aria-labelledby="failures-heading">
        <h2 id="failures-heading">Failures ({failures.length})</h2>
        {failures.length === 0 ? <p>No failures.</p> : [...byCode.entries()].map(([code, group]) => (
          <details open>
            <summary><code>{code}</code> — {group.length} failure{group.length === 1 ? '' : 's'}</summary>
            <div class="table-wrap"><table>
              <thead><tr><th scope="col">Task</th><th scope="col">Metric</th><th scope="col">Severity</th><th scope="col">Message</th><th scope="col">Event</th></tr></thead>
              <tbody>{group.map((failure) => <tr><td>{failure.task_id}{failureWhere(failure)}</td><td>{failure.metric}</td><td>{failure.severity}</td><td>{visible(failure.message)}</td><td>{failure.event_index ?? '—'}</td></tr>)}</tbody>
            </table></div>
          </details>
        ))}
      </section>
      <section aria-labelledby="explain-heading">
        <h2 id="explain-heading">Explain</h2>
        {explain.status !== 200 || !explain.body.primary_trigger ? <p>No failure to explain.</p> : (
          <div>
            <p>Primary trigger: <code>{explain.body.primary_trigger.code}</code> in task <strong>{explain.body.primary_trigger.task_id}</strong> — {visible(explain.body.primary_trigger.message)}</p>
            <ol>{chain.map((link) => <li><code>#{link.event_index}</code> {visible(link.summary)} <span class="muted">— {link.reason}</span></li>)}</ol>
            <h3>Recommendations</h3>
            <ul>{(explain.body.recommendations ?? []).map((r: { code: string; action: string }) => <li><code>{r.code}</code>: {r.action}</li>)}</ul>
          </div>
        )}
      </section>
    </div>,
  );
}
