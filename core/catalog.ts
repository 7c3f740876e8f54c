/**
 * The scenario catalog: the bundled `catalog/` folder plus `AEH_CATALOG_DIRS`, native and AES v1.4
 * documents alike, indexed at start for faceted search (`GET /api/scenarios`) and lookup by id.
 */
import type { Dimension, Scenario } from './scenario.ts';
import type { FileAccess, Logger } from './runtime.ts';

/** A catalog scenario as search results show it. */
export interface CatalogEntry {
  id: string;
  title: string;
  description?: string;
  industry: string;
  use_case: string;
  tags: string[];
  dimensions: Dimension[];
  /** `bundled` (catalog/) or the mounted folder it came from. */
  source: string;
  /** `native` or `aes-1.4`. */
  format: string;
  task_count: number;
}

export interface CatalogQuery {
  q?: string;
  industry?: string;
  use_case?: string;
  tag?: string;
  dimension?: string;
  limit?: number;
  offset?: number;
}

export interface CatalogSearchResult {
  total: number;
  items: CatalogEntry[];
  facets: { industry: Record<string, number>; use_case: Record<string, number>; tag: Record<string, number>; dimension: Record<string, number> };
}

/** A file the catalog could not load, for the doctor. */
export interface CatalogProblem {
  path: string;
  message: string;
}

export interface Catalog {
  /** Resolves when the index is built. */
  ready(): Promise<void>;
  search(query: CatalogQuery): Promise<CatalogSearchResult>;
  /** The full, normalised scenario, or `null`. */
  get(id: string): Promise<Scenario | null>;
  /** Counts per source and the files that failed to load or duplicated an id. */
  integrity(): Promise<{ total: number; bySource: Record<string, number>; problems: CatalogProblem[] }>;
}

export interface CatalogOptions {
  files?: FileAccess;
  /** Folders to index: the bundled catalog first, then mounted ones. */
  dirs: Array<{ path: string; source: string }>;
  logger: Logger;
}

/** Builds the catalog. (Foundation version: empty; the evaluation-engine work indexes the folders.) */
export function createCatalog(_options: CatalogOptions): Catalog {
  return {
    ready: async () => undefined,
    search: async () => ({ total: 0, items: [], facets: { industry: {}, use_case: {}, tag: {}, dimension: {} } }),
    get: async () => null,
    integrity: async () => ({ total: 0, bySource: {}, problems: [] }),
  };
}
