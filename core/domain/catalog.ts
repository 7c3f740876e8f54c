/**
 * The scenario catalog as other plugins use it: the `catalog` service slot (`services.use('catalog')`). The
 * catalog plugin provides it (plugins/catalog); this file holds only its shape.
 */
import type { Dimension, Scenario } from './scenario.ts';

/** A catalog scenario as search results show it. */
export interface CatalogEntry extends Pick<Scenario, 'id' | 'title' | 'description' | 'industry' | 'use_case' | 'tags'> {
  dimensions: Dimension[];
  /** `bundled` (catalog/) or the mounted folder it came from. */
  source: string;
  /** `native` or `aes-1.4`. */
  format: string;
  task_count: number;
}

/** A search: `q` words, filters (case-insensitive; several values mean any of them), paging. */
export interface CatalogQuery {
  q?: string;
  industry?: string | string[];
  use_case?: string | string[];
  tag?: string | string[];
  dimension?: string | string[];
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

/** One catalog file as loaded: its scenario and format, or why it cannot be used. */
export interface CatalogFile {
  path: string;
  /** The folder's source name (`bundled`, or the mounted folder as configured). */
  source: string;
  scenario?: Scenario;
  format?: string;
  problem?: string;
}

/** Every file of a catalog's folders, in order, and the folders that could not be listed. */
export interface CatalogFiles {
  problems: CatalogProblem[];
  loaded: CatalogFile[];
}

/**
 * The catalog's files loaded ahead of the app, off its thread (`RuntimeCapabilities.catalogPrefetch`): used for
 * the first index when they were loaded from the same folders with the same scenario formats, ignored otherwise.
 */
export interface CatalogPrefetch {
  dirs: ReadonlyArray<{ path: string; source: string }>;
  /**
   * The files, and the names of the scenario formats (besides the native one) they were loaded with: given once,
   * then forgotten, so the prefetch does not keep a replaced index's scenarios alive. With `load`, the caller's
   * thread loads the files not yet loaded ahead, beside the prefetch, as the catalog would load them itself, once
   * `wanted` resolves (someone waits for the files; at once without it).
   */
  take(load?: CatalogFileLoader, wanted?: Promise<void>): Promise<CatalogFiles & { formats: string[]; reused?: number }> | undefined;
}

/** A listed catalog file: its path and the source name of its folder. */
export interface CatalogTarget {
  path: string;
  source: string;
}

/** Loads one listed file as the catalog does (a failure becomes the file's problem). */
export type CatalogFileLoader = (target: CatalogTarget) => CatalogFile;

export interface Catalog {
  /** Resolves when the index is built (starting the build if nothing has). Never rejects. */
  ready(): Promise<void>;
  search(query: CatalogQuery): Promise<CatalogSearchResult>;
  /** The full, normalised scenario (a copy the caller may change), or `null`. */
  get(id: string): Promise<Scenario | null>;
  /**
   * Indexes the folders again (files added, changed or removed since) and swaps the new index in when it is
   * complete; searches meanwhile see the old one. Concurrent calls share one run.
   */
  refresh(): Promise<CatalogRefresh>;
  /** Counts per source and the files that failed to load or duplicated an id. */
  integrity(): Promise<{ total: number; bySource: Record<string, number>; problems: CatalogProblem[] }>;
}

/** What a refresh changed: scenario ids added, changed and removed, and the files refused (with why). */
export interface CatalogRefresh {
  total: number;
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: number;
  refused: CatalogProblem[];
}
