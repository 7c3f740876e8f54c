/**
 * `POST /api/v1/catalog/refresh` (`catalog:refresh`, OPERATOR): indexes the bundled and mounted catalog folders
 * again without a restart and answers what changed. The new index is swapped in when complete, so searches during
 * a refresh see the old one. Each instance keeps its own index: with several instances, refresh each one.
 */
import type { RouteDefinition } from '../../core/routes.ts';

/** Ids listed per kind of change at most; the counts are always whole. */
const MAX_LISTED = 1000;

const ID_LIST = { type: 'array', items: { type: 'string' }, maxItems: MAX_LISTED } as const;

const REFRESH_SCHEMA = {
  type: 'object',
  required: ['total', 'counts', 'added', 'changed', 'removed', 'refused'],
  properties: {
    total: { type: 'integer', description: 'Scenarios in the new index' },
    counts: { type: 'object', properties: { added: { type: 'integer' }, changed: { type: 'integer' }, removed: { type: 'integer' }, unchanged: { type: 'integer' }, refused: { type: 'integer' } } },
    added: ID_LIST,
    changed: ID_LIST,
    removed: ID_LIST,
    refused: { type: 'array', maxItems: MAX_LISTED, items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } }, description: 'Files that could not be used, with why' },
    truncated: { type: 'boolean', description: `true when a list was cut at ${MAX_LISTED} entries` },
  },
};

export function refreshRoute(): RouteDefinition {
  return {
    method: 'POST',
    path: '/api/v1/catalog/refresh',
    permission: 'catalog:refresh',
    summary: 'Re-index the bundled and mounted catalogs without a restart; answers what was added, changed, removed or refused',
    tags: ['catalog'],
    audit: 'catalog.refresh',
    responses: { 200: { description: 'What the refresh changed', schema: REFRESH_SCHEMA } },
    async handler(c) {
      const report = await c.var.services.use('catalog').refresh();
      const lists = { added: report.added, changed: report.changed, removed: report.removed, refused: report.refused };
      const truncated = Object.values(lists).some((list) => list.length > MAX_LISTED);
      return c.json({
        total: report.total,
        counts: { added: report.added.length, changed: report.changed.length, removed: report.removed.length, unchanged: report.unchanged, refused: report.refused.length },
        ...Object.fromEntries(Object.entries(lists).map(([name, list]) => [name, list.slice(0, MAX_LISTED)])),
        ...(truncated ? { truncated } : {}),
      });
    },
  };
}
