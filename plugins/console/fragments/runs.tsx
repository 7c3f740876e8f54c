/**
 * Runs list fragment: one page of runs, newest first, filtered by status, scenario and agent; each run shows one
 * badge (its verdict once finished, its state while not) and the agent it evaluated.
 */
import type { AppContext } from '../../../core/routes.ts';
import { AgentLabel, Verdict } from '../layout.tsx';
import { callApi, query } from '../api.ts';

interface RunSummary {
  run_id: string;
  scenario_id: string;
  scenario_title?: string;
  status: string;
  index: number | null;
  compliance: { status: string; reason?: string } | null;
  agent?: { name?: string; adapter: string; config_hash: string };
  created_at: string;
  finished_at: string | null;
}

/** `GET /console/fragments/runs`: a page of `GET /api/v1/runs` with the same filters and cursor. */
export async function runsFragment(c: AppContext) {
  const status = c.req.query('status') || undefined;
  const scenario = c.req.query('scenario_id') || undefined;
  const agent = c.req.query('agent') || undefined;
  const cursor = c.req.query('cursor') || undefined;
  const { status: code, body } = await callApi<{ items: RunSummary[]; next_cursor: string | null; detail?: string }>(c, `/api/v1/runs${query({ limit: 25, status, scenario_id: scenario, agent, cursor })}`);
  if (code !== 200) return c.html(<p role="alert">Could not list runs: {body.detail ?? code}</p>);
  return c.html(
    <div>
      {body.items.length === 0 ? (
        status || scenario || agent || cursor
          ? <p class="notice">No runs match these filters{cursor ? ' on this page' : ''}.{body.next_cursor ? ' Older runs may.' : ''}</p>
          : <p class="notice">No runs yet. Launch one from the <a href="/catalog">catalog</a>.</p>
      ) : (
        <div class="table-wrap"><table>
          <caption class="muted" style="text-align:left">Newest first{status ? `, status ${status}` : ''}{scenario ? `, scenario ${scenario}` : ''}{agent ? `, agent ${agent}` : ''}</caption>
          <thead><tr><th scope="col">Run</th><th scope="col">Verdict</th><th scope="col">Agent</th><th scope="col">Scenario</th><th scope="col">Index</th><th scope="col">Created</th></tr></thead>
          <tbody>
            {body.items.map((run) => (
              <tr>
                <td><a href={`/runs/${encodeURIComponent(run.run_id)}`}><code>{run.run_id}</code></a></td>
                <td><Verdict status={run.status} compliance={run.compliance} /></td>
                <td><AgentLabel agent={run.agent} /></td>
                <td>{run.scenario_title ?? run.scenario_id}<br /><code class="muted">{run.scenario_id}</code></td>
                <td>{run.index === null || run.index === undefined ? '—' : run.index.toFixed(2)}</td>
                <td><time datetime={run.created_at}>{run.created_at.replace('T', ' ').slice(0, 19)}</time></td>
              </tr>
            ))}
          </tbody>
        </table></div>
      )}
      {body.next_cursor && <p><a href={`/${query({ status, scenario_id: scenario, agent, cursor: body.next_cursor })}`}>Older runs →</a></p>}
    </div>,
  );
}
