/**
 * The console's pages and fragments: what its routes render, imported on the first console request (index.tsx)
 * rather than at start. They are ~20 modules and hono's JSX runtime that `/healthz` and the API never use (issue 26).
 */
import type { AppContext } from '../../core/routes.ts';
import { sameOriginPath } from './next.ts';
import { CatalogPage, ComparePage, HealthPage, MutatePage, RunPage, RunsPage, SignInPage, SpecToEvalPage } from './pages.tsx';

export { runsFragment } from './fragments/runs.tsx';
export { agentFilterFragment } from './fragments/agents.tsx';
export { runDetailFragment } from './fragments/run-detail.tsx';
export { transcriptFragment } from './fragments/transcript.tsx';
export { compareFragment } from './fragments/compare.tsx';
export { catalogFragment } from './fragments/catalog.tsx';
export { healthFragment } from './fragments/health.tsx';
export { specToEvalFragment } from './fragments/spec-to-eval.tsx';
export { mutateFormFragment, mutateResultFragment } from './fragments/mutate.tsx';

/** Each page's markup for a request, by the name index.tsx routes it under. */
export const PAGES = {
  runs: (c: AppContext) => <RunsPage status={c.req.query('status')} scenarioId={c.req.query('scenario_id')} agent={c.req.query('agent')} />,
  // `next` is checked here, server-side, and handed to the script in the page: it only ever follows a same-origin path.
  signIn: (c: AppContext) => <SignInPage next={sameOriginPath(c.req.query('next'))} />,
  run: (c: AppContext) => <RunPage runId={c.req.param('run_id') ?? ''} />,
  compare: (c: AppContext) => <ComparePage base={c.req.query('base')} head={c.req.query('head')} maxRegression={c.req.query('max_regression')} />,
  catalog: (c: AppContext) => <CatalogPage q={c.req.query('q')} />,
  specToEval: () => <SpecToEvalPage />,
  mutate: () => <MutatePage />,
  health: () => <HealthPage />,
};
