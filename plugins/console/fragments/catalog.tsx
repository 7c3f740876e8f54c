/** Catalog fragment: faceted search with counts, and a launch button per scenario that follows its progress. */
import type { AppContext } from '../../../core/routes.ts';
import { callApi, query } from '../api.ts';
import { AgentPicker, registeredAgents } from './agents.tsx';

const FACETS = ['industry', 'use_case', 'tag', 'dimension'] as const;

interface Entry { id: string; title: string; industry: string; use_case: string; tags: string[]; dimensions: string[]; task_count: number; format: string }

export async function catalogFragment(c: AppContext) {
  const filters = Object.fromEntries(['q', ...FACETS, 'offset'].map((name) => [name, c.req.query(name) || undefined]));
  const [{ status, body }, agents] = await Promise.all([
    callApi<{ total: number; items: Entry[]; facets: Record<string, Record<string, number>>; detail?: string }>(c, `/api/scenarios${query({ ...filters, limit: 20 })}`),
    registeredAgents(c),
  ]);
  if (status !== 200) return c.html(<p role="alert">Could not search the catalog: {body.detail ?? status}</p>);
  const offset = Number(filters.offset ?? 0);
  return c.html(
    <div>
      <div class="facets" aria-label="Facets">
        {FACETS.map((facet) => (
          <section>
            <h2>{facet.replace('_', ' ')}</h2>
            <ul>
              {Object.entries(body.facets?.[facet] ?? {}).sort((a, b) => b[1] - a[1]).slice(0, 30).map(([value, count]) => (
                <li><a href={`/catalog${query({ ...filters, offset: undefined, [facet]: value })}`} aria-current={filters[facet] === value ? 'true' : undefined}>{value}</a> <span class="muted">({count})</span></li>
              ))}
            </ul>
          </section>
        ))}
      </div>
      <p aria-live="polite">{body.total} scenario{body.total === 1 ? '' : 's'} found.</p>
      <AgentPicker agents={agents} />
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Scenario</th><th scope="col">Industry / use case</th><th scope="col">Dimensions</th><th scope="col">Tasks</th><th scope="col">Evaluate</th></tr></thead>
        <tbody>
          {body.items.map((entry) => (
            <tr>
              <td><strong>{entry.title}</strong><br /><code class="muted">{entry.id}</code>{entry.format !== 'native' && <span class="muted"> ({entry.format})</span>}</td>
              <td>{entry.industry}<br /><span class="muted">{entry.use_case}</span></td>
              <td>{entry.dimensions.join(', ')}</td>
              <td>{entry.task_count}</td>
              <td>
                <button type="button" data-launch={entry.id} aria-controls={`launch-${entry.id}`}>Launch<span class="visually-hidden"> {entry.title}</span></button>
                <div id={`launch-${entry.id}`} aria-live="polite"></div>
              </td>
            </tr>
          ))}
        </tbody>
      </table></div>
      <p>
        {offset > 0 && <a href={`/catalog${query({ ...filters, offset: Math.max(0, offset - 20) })}`}>← Previous</a>}{' '}
        {offset + 20 < body.total && <a href={`/catalog${query({ ...filters, offset: offset + 20 })}`}>Next →</a>}
      </p>
    </div>,
  );
}
