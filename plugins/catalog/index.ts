/**
 * The catalog routes (api-contract.md, "Endpoints"): `GET /api/scenarios` (faceted search: `q`, `industry`,
 * `use_case`, `tag`, `dimension`, `limit` ≤ 200, `offset`) and `GET /api/scenarios/:id` (the normalised
 * scenario), both `scenarios:read`. Publishes the `Scenario` schema in the OpenAPI document and starts
 * indexing at start-up without holding the server back.
 */
import type { Plugin } from '../../core/plugin.ts';
import type { PluginHost } from '../../core/plugin-host.ts';
import type { AppContext } from '../../core/routes.ts';
import type { CatalogQuery } from '../../core/domain/catalog.ts';
import { catalogDirs } from './catalog-dirs.ts';
import { createCatalog } from './catalog.ts';
import { catalogCheck } from './doctor-check.ts';
import { refreshRoute } from './refresh-route.ts';
import { Problem } from '../../core/problems.ts';
import { assertValid } from '../../core/validate.ts';
import { scenarioSchema, dimensionEnum } from '../../core/domain/schemas/scenario.ts';
import { DIMENSIONS } from '../../core/domain/scenario.ts';

const MAX_LIMIT = 200;
const DEFAULT_LIMIT = 20;
const FILTER = { type: 'string', minLength: 1, maxLength: 200 } as const;

/** The query string as validated: numbers are parsed first, so `limit=abc` fails `type` with its path. */
// Exported so the build precompiles it (scripts/precompile-validators.mjs finds exported schemas).
export const querySchema = {
  $id: 'https://aeh.dev/schemas/scenario-query.json',
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 500 },
    industry: { type: 'array', items: FILTER, maxItems: 50 },
    use_case: { type: 'array', items: FILTER, maxItems: 50 },
    tag: { type: 'array', items: FILTER, maxItems: 50 },
    dimension: { type: 'array', items: { type: 'string', pattern: `^(${DIMENSIONS.join('|')})(,(${DIMENSIONS.join('|')}))*$` }, maxItems: 7 },
    limit: { type: 'integer', minimum: 0, maximum: MAX_LIMIT },
    offset: { type: 'integer', minimum: 0, maximum: 1_000_000_000 },
  },
} as const;

const entrySchema = {
  type: 'object',
  required: ['id', 'title', 'industry', 'use_case', 'tags', 'dimensions', 'source', 'format', 'task_count'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    industry: { type: 'string' },
    use_case: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    dimensions: { type: 'array', items: dimensionEnum },
    source: { type: 'string', description: '`bundled` or the AEH_CATALOG_DIRS folder it came from' },
    format: { type: 'string', enum: ['native', 'aes-1.4'] },
    task_count: { type: 'integer' },
  },
} as const;

const counts = { type: 'object', additionalProperties: { type: 'integer' } } as const;
const searchResultSchema = {
  type: 'object',
  required: ['total', 'items', 'facets'],
  properties: {
    total: { type: 'integer' },
    items: { type: 'array', items: { $ref: '#/components/schemas/CatalogEntry' } },
    facets: { type: 'object', properties: { industry: counts, use_case: counts, tag: counts, dimension: counts } },
  },
} as const;

/** Integers stay strings when they are not plain decimal integers, so the schema reports them. */
function asInteger(raw: string | undefined): number | string | undefined {
  if (raw === undefined) return undefined;
  return /^-?\d{1,12}$/.test(raw.trim()) ? Number(raw.trim()) : raw;
}

/** Reads and validates the search query; repeated filters and comma lists both mean "any of". */
export function parseCatalogQuery(c: AppContext): CatalogQuery {
  const url = new URL(c.req.url);
  const all = (name: string) => {
    const values = url.searchParams.getAll(name);
    return values.length ? values : undefined;
  };
  const raw = {
    q: url.searchParams.get('q') ?? undefined,
    industry: all('industry'),
    use_case: all('use_case'),
    tag: all('tag'),
    dimension: all('dimension')?.map((value) => value.toLowerCase().replace(/\s+/g, '')),
    limit: asInteger(url.searchParams.get('limit') ?? undefined),
    offset: asInteger(url.searchParams.get('offset') ?? undefined),
  };
  const query = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  assertValid(querySchema, query, 'query', '/query');
  return { limit: DEFAULT_LIMIT, ...(query as CatalogQuery) };
}

function registerRoutes(host: PluginHost): void {
  host.schemas.register({ name: 'Scenario', schema: scenarioSchema }, 'catalog');
  host.schemas.register({ name: 'CatalogEntry', schema: entrySchema }, 'catalog');

  host.routes.register({
    method: 'GET',
    path: '/api/scenarios',
    aliases: ['/api/v1/scenarios'],
    permission: 'scenarios:read',
    summary: 'Faceted search across the scenario catalog (bundled and AEH_CATALOG_DIRS, native and AES v1.4)',
    tags: ['catalog'],
    parameters: [
      { name: 'q', in: 'query', schema: querySchema.properties.q, description: 'Words that must each start a word of the title, description or task text' },
      { name: 'industry', in: 'query', schema: FILTER, description: 'Case-insensitive; repeat or comma-separate for any of several' },
      { name: 'use_case', in: 'query', schema: FILTER, description: 'Case-insensitive; repeat or comma-separate for any of several' },
      { name: 'tag', in: 'query', schema: FILTER, description: 'Case-insensitive; repeat or comma-separate for any of several' },
      { name: 'dimension', in: 'query', schema: dimensionEnum, description: 'A scoring dimension the scenario measures' },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    responses: { 200: { description: 'Matching scenarios with facet counts', schema: searchResultSchema } },
    async handler(c) {
      const query = parseCatalogQuery(c);
      return c.json(await c.var.services.use('catalog').search(query));
    },
  }, 'catalog');

  host.routes.register({
    method: 'GET',
    path: '/api/scenarios/:id',
    aliases: ['/api/v1/scenarios/:id'],
    permission: 'scenarios:read',
    summary: 'One catalog scenario, normalised (AES v1.4 documents are returned as scenarios)',
    tags: ['catalog'],
    responses: { 200: { description: 'The scenario', schema: { $ref: '#/components/schemas/Scenario' } } },
    async handler(c) {
      const id = c.req.param('id') ?? '';
      const scenario = await c.var.services.use('catalog').get(id);
      if (!scenario) throw new Problem('not_found', { detail: `no catalog scenario has the id "${id.slice(0, 128)}"` });
      return c.json(scenario);
    },
  }, 'catalog');

  host.provide('catalog', (services) => {
    const { config, capabilities } = services;
    return createCatalog({
      files: capabilities.files,
      dirs: catalogDirs(config, capabilities.catalogDir),
      documents: capabilities.catalogDocuments,
      prefetched: capabilities.catalogPrefetch,
      formats: services.scenarioFormats.list(),
      logger: services.logger,
      metricDimension: (id) => services.metrics.get(id)?.dimension,
      now: services.now,
    });
  });
  host.doctorChecks.register(catalogCheck, 'catalog');
  host.routes.register(refreshRoute());
  // Index in the background: the server answers at once, and the first search waits only for what is left.
  // Begun once every plugin has started, not from this plugin's start hook: the indexer works in slices of the
  // event loop, and each await in a later plugin's start hook would wait out a slice (with 5,000 files mounted,
  // a tenth of the start's CPU before the first answer).
  host.onReady((services) => {
    void services.use('catalog').ready();
  });
}

export default {
  name: 'catalog',
  setup: registerRoutes,
} satisfies Plugin;
