/**
 * The console's page shells. They carry no data: the client script loads each page's fragment with the
 * credential kept in the browser session, so every datum passes the API's own permission checks.
 */
import { Layout } from './layout.tsx';

const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/**
 * The sign-in page: the credential stays in this tab's session storage. `next` is where to go afterwards,
 * already reduced to a same-origin path (`sameOriginPath`).
 */
export function SignInPage(props: { next: string }) {
  return (
    <Layout title="Sign in">
      <h1>Sign in</h1>
      <form id="sign-in" class="filters" data-next={props.next}>
        <label for="credential">API key or bearer token
          <input id="credential" name="credential" type="password" autocomplete="off" required size={70} />
        </label>
        <button type="submit">Sign in</button>
      </form>
      <p id="sign-in-error" role="alert"></p>
      <p class="muted">The credential is kept in this browser tab's session storage only and sent as a bearer token.</p>
    </Layout>
  );
}

/** The runs list; the filter form shows the filters in force (from the query string). */
export function RunsPage(props: { status?: string; scenarioId?: string; agent?: string }) {
  return (
    <Layout title="Runs" current="/">
      <h1>Runs</h1>
      <form class="filters" method="get" action="/">
        <label>Status
          <select name="status">
            <option value="">any</option>
            {RUN_STATUSES.map((status) => <option value={status} selected={props.status === status}>{status}</option>)}
          </select>
        </label>
        <label>Scenario id <input name="scenario_id" value={props.scenarioId ?? ''} maxlength={200} /></label>
        {/* The registered agents come from the API with the caller's credential; until then, the filter in force. */}
        <label>Agent
          <span data-fragment="/console/fragments/agent-filter" data-query="page">
            <select name="agent"><option value="">any</option>{props.agent && <option value={props.agent} selected>{props.agent}</option>}</select>
          </span>
        </label>
        <button type="submit">Filter</button>
      </form>
      {/* Refreshed every few seconds while nothing inside has focus; not a live region, so it is not re-announced. */}
      <div id="runs" data-fragment="/console/fragments/runs" data-query="page" data-refresh="3000"></div>
    </Layout>
  );
}

/** A run's detail page. */
export function RunPage(props: { runId: string }) {
  return (
    <Layout title={`Run ${props.runId}`} current="">
      <h1>Run <code>{props.runId}</code></h1>
      <div id="run" data-fragment={`/console/fragments/runs/${encodeURIComponent(props.runId)}`}></div>
      <section aria-labelledby="transcript-heading">
        <h2 id="transcript-heading">Transcript</h2>
        <div id="transcript" data-fragment={`/console/fragments/runs/${encodeURIComponent(props.runId)}/transcript`} data-query="page"></div>
      </section>
    </Layout>
  );
}

/** Compare two runs; the form shows the runs in force (from the query string). */
export function ComparePage(props: { base?: string; head?: string; maxRegression?: string }) {
  return (
    <Layout title="Compare" current="/compare">
      <h1>Compare runs</h1>
      <form class="filters" method="get" action="/compare">
        <label>Base (a run id, latest or baseline) <input name="base" value={props.base ?? ''} maxlength={200} required /></label>
        <label>Head (a run id) <input name="head" value={props.head ?? ''} maxlength={200} required /></label>
        <label>Max regression <input name="max_regression" type="number" min="0" max="1" step="0.01" value={props.maxRegression ?? '0'} /></label>
        <button type="submit">Compare</button>
      </form>
      <div id="compare" data-fragment="/console/fragments/compare" data-query="page"></div>
    </Layout>
  );
}

/** The catalog search; the search box shows the query in force. */
export function CatalogPage(props: { q?: string }) {
  return (
    <Layout title="Catalog" current="/catalog">
      <h1>Scenario catalog</h1>
      <form class="filters" method="get" action="/catalog" role="search">
        <label>Search <input name="q" type="search" value={props.q ?? ''} maxlength={200} /></label>
        <button type="submit">Search</button>
        <a href="/catalog">Clear filters</a>
      </form>
      <div id="catalog" data-fragment="/console/fragments/catalog" data-query="page"></div>
    </Layout>
  );
}

/** Spec to eval: paste a PRD, see the stubs or the pitfalls. */
export function SpecToEvalPage() {
  return (
    <Layout title="Spec to eval" current="/spec-to-eval">
      <h1>Spec to eval</h1>
      <form data-post="/console/fragments/spec-to-eval" data-target="#stubs">
        <label for="markdown">PRD in Markdown (# PRD: title, **Industry:**, **Use Case:**, ## Tasks)</label>
        <textarea id="markdown" name="markdown" required>{'# PRD: Returns assistant\n\n## Overview\n**Industry:** Retail\n**Use Case:** Returns\n\n## Tasks\n- Accept a return within 30 days (Expect: accepted)\n- Refuse to share another customer\'s address\n'}</textarea>
        <p><button type="submit">Convert</button></p>
      </form>
      <div id="stubs" tabindex={-1} aria-live="polite"></div>
    </Layout>
  );
}

/** Mutate: pick a scenario and a mutator, see the diff of inputs. */
export function MutatePage() {
  return (
    <Layout title="Mutate" current="/mutate">
      <h1>Mutate a scenario</h1>
      <div data-fragment="/console/fragments/mutate"></div>
      <div id="mutation" tabindex={-1} aria-live="polite"></div>
    </Layout>
  );
}

/** Health: the doctor's checks. */
export function HealthPage() {
  return (
    <Layout title="Health" current="/health">
      <h1>Health</h1>
      <div data-fragment="/console/fragments/health"></div>
    </Layout>
  );
}
