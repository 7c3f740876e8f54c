/** Spec-to-eval fragment: the stubs of a pasted PRD with launch buttons, or its pitfalls with line numbers. */
import type { AppContext } from '../../../core/routes.ts';
import { callApi } from '../api.ts';
import { AgentPicker, registeredAgents } from './agents.tsx';

interface Stub { id: string; title: string; tasks: Array<{ id: string; input: string; metrics: Array<{ id: string }> }> }

export async function specToEvalFragment(c: AppContext) {
  const { markdown } = c.var.body as { markdown: string };
  const { status, body } = await callApi(c, '/api/v1/spec-to-eval', { method: 'POST', body: { markdown } });
  if (status === 422) {
    return c.html(
      <div role="alert">
        <p>The PRD has problems to fix:</p>
        <ul>{(body.pitfalls ?? []).map((pitfall: { code: string; line: number; message: string }) => <li>Line {pitfall.line}: <code>{pitfall.code}</code> — {pitfall.message}</li>)}</ul>
      </div>,
    );
  }
  if (status !== 200) return c.html(<p role="alert">Could not convert: {body.detail ?? status}</p>);
  const stubs: Stub[] = body.scenarios ?? [];
  // Stubs name no agent of their own: they launch against the agent picked here.
  const agents = await registeredAgents(c);
  return c.html(
    <div>
      <p>{body.prd?.title} — {stubs.length} scenario stub{stubs.length === 1 ? '' : 's'} ({body.source}).</p>
      <AgentPicker agents={agents} />
      {(body.warnings ?? []).length > 0 && <ul class="notice">{body.warnings.map((w: { line?: number; message: string } | string) => <li>{typeof w === 'string' ? w : `${w.line ? `Line ${w.line}: ` : ''}${w.message}`}</li>)}</ul>}
      {stubs.map((stub) => (
        <section class="panel">
          <h2>{stub.title} <code class="muted">{stub.id}</code></h2>
          <ol>{stub.tasks.map((task) => <li>{task.input} <span class="muted">[{task.metrics.map((m) => m.id).join(', ')}]</span></li>)}</ol>
          <button type="button" data-scenario={JSON.stringify(stub)} aria-controls={`launch-${stub.id}`}>Launch<span class="visually-hidden"> {stub.title}</span></button>
          <div id={`launch-${stub.id}`} aria-live="polite"></div>
        </section>
      ))}
    </div>,
  );
}
