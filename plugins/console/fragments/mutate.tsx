/** Mutate fragments: the picker (scenarios and mutators) and the diff of inputs a mutation produces. */
import type { AppContext } from '../../../core/routes.ts';
import { callApi } from '../api.ts';
import { diffWords } from '../diff.ts';

/** `GET /console/fragments/mutate`: the scenario and mutator pickers. */
export async function mutateFormFragment(c: AppContext) {
  const [scenarios, mutators] = await Promise.all([callApi(c, '/api/scenarios?limit=200'), callApi(c, '/api/v1/mutators')]);
  if (scenarios.status !== 200 || mutators.status !== 200) return c.html(<p role="alert">Could not load scenarios or mutators.</p>);
  return c.html(
    <form class="filters" data-post="/console/fragments/mutate" data-target="#mutation">
      <label>Scenario
        <select name="scenario_id" required>{scenarios.body.items.map((entry: { id: string; title: string }) => <option value={entry.id}>{entry.title}</option>)}</select>
      </label>
      <label>Mutator
        <select name="type" required>{mutators.body.items.map((mutator: { type: string; description: string }) => <option value={mutator.type} title={mutator.description}>{mutator.type}</option>)}</select>
      </label>
      <label>Seed <input name="seed" type="number" value="1" min="0" /></label>
      <button type="submit">Mutate</button>
    </form>,
  );
}

/** `POST /console/fragments/mutate`: the changed inputs, word by word. */
export async function mutateResultFragment(c: AppContext) {
  const { scenario_id: scenarioId, type, seed } = c.var.body as { scenario_id: string; type: string; seed?: number };
  const scenario = await callApi(c, `/api/scenarios/${encodeURIComponent(scenarioId)}`);
  if (scenario.status !== 200) return c.html(<p role="alert">No scenario {scenarioId}.</p>);
  const result = await callApi(c, '/api/v1/mutate', { method: 'POST', body: { type, raw_json: scenario.body.scenario ?? scenario.body, seed: seed ?? 1 } });
  if (result.status !== 200) return c.html(<p role="alert">Could not mutate: {result.body.detail ?? result.status}</p>);
  const changes: Array<{ task_id: string; before: string; after: string }> = result.body.changes ?? [];
  return c.html(
    <div>
      <p>{changes.length} input{changes.length === 1 ? '' : 's'} changed by <code>{type}</code> with seed {result.body.seed}.</p>
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
        <tbody>{changes.map((change) => {
          const parts = diffWords(change.before, change.after);
          return (
            <tr>
              <td>{change.task_id}</td>
              <td>{parts.filter((part) => part.kind !== 'added').map((part) => (part.kind === 'removed' ? <del>{part.text}</del> : part.text))}</td>
              <td>{parts.filter((part) => part.kind !== 'removed').map((part) => (part.kind === 'added' ? <ins>{part.text}</ins> : part.text))}</td>
            </tr>
          );
        })}</tbody>
      </table></div>
    </div>,
  );
}
