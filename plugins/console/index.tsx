/**
 * The integrated console (service-spec.md: "A visual integrated console exists"): server-rendered with
 * hono's JSX, a little client script, no external assets, so it runs on every runtime the API runs on.
 * Page shells are public and hold no data; fragments need the same credentials and permissions as the API
 * routes they read.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AppContext, RouteDefinition } from '../../core/routes.ts';
import { CONSOLE_SCRIPT } from './client.ts';
import { FAVICON_SVG } from './favicon.ts';

/** The pages and fragments, imported on the first console request: a start that serves only the API never loads them. */
type Views = typeof import('./views.tsx');
let views: Promise<Views> | undefined;
function loadViews(): Promise<Views> {
  views ??= import('./views.tsx').catch((error: unknown) => {
    // Not cached: the next request tries again; this one fails as any handler's error does (a logged 500).
    views = undefined;
    throw error;
  });
  return views;
}

type FragmentName = Exclude<keyof Views, 'PAGES'>;

/** A fragment's handler, from the views once loaded. */
const fragmentOf = (name: FragmentName): RouteDefinition['handler'] => async (c) => (await loadViews())[name](c);

const HTML = { 200: { description: 'HTML', contentType: 'text/html' } };

/**
 * Pages run only our own script and talk only to this service: a fragment that ever carried markup from data
 * could not run it. Inline styles stay allowed (the stylesheet is inline; no data reaches a style).
 */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const FAVICON_HEADERS = {
  'content-type': 'image/svg+xml',
  'cache-control': 'public, max-age=86400',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-content-type-options': 'nosniff',
};

type Parameters = NonNullable<RouteDefinition['parameters']>;

/** Query parameters of the console's pages and fragments, as the OpenAPI document lists them. */
function queries(descriptions: Record<string, string>): Parameters {
  return Object.entries(descriptions).map(([name, description]) => ({ name, in: 'query' as const, schema: { type: 'string' }, description }));
}

const RUN_FILTERS = queries({ status: 'only runs with this status', scenario_id: 'only runs of this scenario', agent: 'only runs of this agent (its registry name or spec key)' });
const COMPARED = queries({
  base: 'a run id, `latest` or `baseline` (as `GET /api/v1/compare`)',
  head: 'the run compared with the base',
  max_regression: 'the largest drop of the index or a dimension that is not a regression (0 to 1; default 0)',
});

function page(path: string, summary: string, name: keyof Views['PAGES'], parameters?: Parameters): RouteDefinition {
  return {
    method: 'GET', path, permission: null, summary, tags: ['console'], rateClass: 'public', responses: HTML, parameters,
    handler: async (c: AppContext) => c.html(`<!doctype html>${String((await loadViews()).PAGES[name](c))}`, 200, PAGE_HEADERS),
  };
}

function fragment(method: 'GET' | 'POST', path: string, permission: string, summary: string, name: FragmentName, options: { body?: RouteDefinition['body']; parameters?: Parameters } = {}): RouteDefinition {
  return { method, path, permission, summary, tags: ['console'], responses: HTML, ...options, handler: fragmentOf(name) };
}

function registerConsole(host: PluginHost) {
  const routes: RouteDefinition[] = [
    page('/', 'Console: runs', 'runs', RUN_FILTERS),
    page('/sign-in', 'Console: sign in', 'signIn', queries({ next: 'the same-origin path to open once signed in' })),
    page('/runs/:run_id', 'Console: run detail', 'run'),
    page('/compare', 'Console: compare two runs', 'compare', COMPARED),
    page('/catalog', 'Console: catalog', 'catalog', queries({ q: 'words to search for' })),
    page('/spec-to-eval', 'Console: spec to eval', 'specToEval'),
    page('/mutate', 'Console: mutate', 'mutate'),
    page('/health', 'Console: health', 'health'),
    {
      method: 'GET', path: '/console/app.js', permission: null, summary: 'Console client script', tags: ['console'], rateClass: 'public',
      responses: { 200: { description: 'JavaScript', contentType: 'text/javascript' } },
      handler: (c) => c.body(CONSOLE_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300' }),
    },
    {
      // Browsers ask for /favicon.ico on their own; without it every console page logged a 404.
      method: 'GET', path: '/favicon.ico', permission: null, summary: 'Console icon (SVG)', tags: ['console'], rateClass: 'public',
      responses: { 200: { description: 'SVG image', contentType: 'image/svg+xml' } },
      handler: (c) => c.body(FAVICON_SVG, 200, FAVICON_HEADERS),
    },
    fragment('GET', '/console/fragments/runs', 'runs:read', 'Console fragment: runs list', 'runsFragment', { parameters: [...RUN_FILTERS, ...queries({ cursor: 'the page after this cursor (`next_cursor` of the runs list)' })] }),
    fragment('GET', '/console/fragments/agent-filter', 'runs:read', 'Console fragment: the runs list\'s agent filter', 'agentFilterFragment', { parameters: queries({ agent: 'the agent selected' }) }),
    fragment('GET', '/console/fragments/runs/:run_id', 'runs:read', 'Console fragment: run detail', 'runDetailFragment'),
    fragment('GET', '/console/fragments/runs/:run_id/transcript', 'runs:read', 'Console fragment: a run\'s transcript, task by task', 'transcriptFragment', { parameters: queries({ offset: 'the first task shown (a page holds 25)' }) }),
    fragment('GET', '/console/fragments/compare', 'runs:read', 'Console fragment: two runs compared', 'compareFragment', { parameters: COMPARED }),
    fragment('GET', '/console/fragments/catalog', 'scenarios:read', 'Console fragment: catalog search', 'catalogFragment', {
      parameters: queries({ q: 'words to search for', industry: 'a facet value', use_case: 'a facet value', tag: 'a facet value', dimension: 'a facet value', offset: 'the first result shown (a page holds 20)' }),
    }),
    fragment('GET', '/console/fragments/health', 'doctor:read', 'Console fragment: health', 'healthFragment'),
    fragment('GET', '/console/fragments/mutate', 'scenarios:mutate', 'Console fragment: mutate form', 'mutateFormFragment'),
    fragment('POST', '/console/fragments/mutate', 'scenarios:mutate', 'Console fragment: mutation diff', 'mutateResultFragment', {
      body: {
        type: 'object', required: ['scenario_id', 'type'], additionalProperties: false,
        properties: { scenario_id: { type: 'string', maxLength: 200 }, type: { type: 'string', maxLength: 100 }, seed: { type: 'integer', minimum: 0 } },
      },
    }),
    fragment('POST', '/console/fragments/spec-to-eval', 'specs:convert', 'Console fragment: spec-to-eval result', 'specToEvalFragment', {
      body: { type: 'object', required: ['markdown'], additionalProperties: false, properties: { markdown: { type: 'string', minLength: 1 } } },
    }),
  ];
  for (const route of routes) host.routes.register(route, 'console');
}

export default {
  name: 'console',
  // It renders the evaluation, catalog and verification API.
  dependencies: ['evaluation', 'catalog', 'certification'],
  setup: registerConsole,
} satisfies Plugin;
