/**
 * The catalog's search index (`GET /api/scenarios`): an inverted index of words → scenarios for `q`, and
 * precomputed facet keys for the `industry`, `use_case`, `tag` and `dimension` filters.
 * - `q`: every word of the query must start a word of the title, description or task text; results rank by
 *   where the words were found (title 3, description 2, task text 1), then catalog order.
 * - Filters are case-insensitive (`Human Resources` = `human_resources`); repeating a filter or separating
 *   values by commas means any of them.
 * - Facet counts are disjunctive, as faceted search UIs expect: the counts of one facet apply `q` and every
 *   filter except that facet's own, so choosing an industry still shows the other industries' counts.
 */
import type { Dimension, Scenario } from '../../core/domain/scenario.ts';
import type { CatalogEntry, CatalogQuery, CatalogSearchResult } from '../../core/domain/catalog.ts';

/** Dimension of each built-in metric (api-contract.md, "Built-in metric ids"); `llm_judge` checks outcomes. */
export const METRIC_DIMENSIONS: Readonly<Record<string, Dimension>> = Object.freeze({
  task_success: 'reliability',
  latency_budget: 'reliability',
  llm_judge: 'reliability',
  refusal: 'safety',
  harmful_content: 'safety',
  secret_leak: 'security',
  prompt_injection: 'security',
  pii_leak: 'privacy',
  counterfactual_parity: 'fairness',
  ai_disclosure: 'explainability',
  robustness: 'resilience',
  // The world-shim metrics (issue 15) judge trajectories and final states.
  tool_use: 'reliability',
  tool_safety: 'security',
  state_match: 'reliability',
});

/** Maps a metric id to its dimension; the registry's answer when it has the metric, else the fixed map. */
export type MetricDimension = (metricId: string) => Dimension | undefined;

/** The dimensions a scenario measures, in `DIMENSIONS` order of first appearance. */
export function dimensionsOf(scenario: Scenario, metricDimension?: MetricDimension): Dimension[] {
  const found = new Set<Dimension>();
  for (const task of scenario.tasks) {
    for (const metric of task.metrics) {
      const dimension = metricDimension?.(metric.id) ?? METRIC_DIMENSIONS[metric.id];
      if (dimension) found.add(dimension);
    }
  }
  return [...found];
}

/** How facet values and filters compare: case-insensitive, spaces and hyphens as underscores. */
export function facetKey(value: string): string {
  return value.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

// Letters and digits of the scripts in use, without the punctuation, symbol and emoji blocks (U+2000–2BFF,
// U+3000–303F, surrogates, fullwidth punctuation).
const WORD = /[a-z0-9\u00c0-\u1fff\u2c00-\u2fff\u3040-\ud7ff\uf900-\ufdff\ufe70-\ufefe\uff10-\uffdc]+/g;

/**
 * Lower-case words: runs of ASCII letters and digits or of letters of other scripts (accented, CJK...). A plain character class: several times cheaper than Unicode property escapes, which matters
 * when thousands of scenarios are indexed at start.
 */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

const TITLE = 1;
const DESCRIPTION = 2;
const TASKS = 4;
const FIELD_BITS = 3;
/** Words of `q` beyond this many are ignored. */
export const MAX_QUERY_WORDS = 32;

interface IndexedScenario {
  entry: CatalogEntry;
  industry: string;
  useCase: string;
  tags: string[];
  dimensions: string[];
}

export type FacetName = 'industry' | 'use_case' | 'tag' | 'dimension';
const FACETS: FacetName[] = ['industry', 'use_case', 'tag', 'dimension'];

/** A built index; immutable once built, but for the word index, which it completes itself. */
export interface SearchIndex {
  size: number;
  search(query: CatalogQuery): CatalogSearchResult;
  /**
   * Indexes the words `q` looks up a slice of scenarios at a time, awaiting `pause` between slices; resolves when
   * every word is indexed. A search with `q` meanwhile indexes the rest at once: a search without `q` (the
   * facets, a filter) never waits for the words (issue 36: they are most of the indexing time).
   */
  indexWords(pause: () => Promise<void>): Promise<void>;
}

function weightOf(fields: number): number {
  return (fields & TITLE ? 3 : 0) + (fields & DESCRIPTION ? 2 : 0) + (fields & TASKS ? 1 : 0);
}

/** First index of `sorted` whose value is >= `prefix`. */
function lowerBound(sorted: string[], prefix: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid] < prefix) low = mid + 1;
    else high = mid;
  }
  return low;
}

function valuesOf(filter: string | string[] | undefined): Set<string> | undefined {
  if (filter === undefined) return undefined;
  const keys = (Array.isArray(filter) ? filter : [filter]).flatMap((value) => value.split(',')).map(facetKey).filter(Boolean);
  return keys.length ? new Set(keys) : undefined;
}

/** What a built index holds: the scenarios' facet keys and facet display names. */
interface IndexData {
  indexed: IndexedScenario[];
  display: Record<FacetName, Map<string, string>>;
}

/** The word postings for `q`, complete once `vocabulary` is set. */
interface WordIndex {
  /** Per word, `(position << FIELD_BITS) | fields` for each scenario it occurs in, in catalog order. */
  postingLists: Map<string, number[]>;
  /** The words of `postingLists`, sorted, for prefix lookups. */
  vocabulary: string[];
}

/** Reads every scenario's facet keys, remembering the first spelling of each. */
function indexFacets(items: Array<{ entry: CatalogEntry }>): IndexData {
  const display: Record<FacetName, Map<string, string>> = { industry: new Map(), use_case: new Map(), tag: new Map(), dimension: new Map() };
  const remember = (facet: FacetName, value: string) => {
    const key = facetKey(value);
    if (!display[facet].has(key)) display[facet].set(key, value);
    return key;
  };
  const indexed = items.map(({ entry }) => ({
    entry,
    industry: remember('industry', entry.industry),
    useCase: remember('use_case', entry.use_case),
    tags: [...new Set(entry.tags.map((tag) => remember('tag', tag)))],
    dimensions: entry.dimensions.map((dimension) => remember('dimension', dimension)),
  }));
  return { indexed, display };
}

/**
 * Indexes the words of the scenarios in order, a slice per `next(count)`; `finish()` indexes what is left and
 * sorts the vocabulary. Postings are appended in catalog order whatever the slicing.
 */
function wordIndexer(scenarios: readonly Scenario[]): { next(count: number): boolean; finish(): WordIndex } {
  const postingLists = new Map<string, number[]>();
  let indexedUpTo = 0;
  let done: WordIndex | undefined;
  const indexScenario = (scenario: Scenario, position: number) => {
    // One map lookup per word: a scenario's postings are appended together, so a repeated word is found at
    // the end of its list and only gains the new field bit.
    const add = (text: string | undefined, field: number) => {
      if (!text) return;
      for (const word of tokenize(text)) {
        const list = postingLists.get(word);
        if (!list) postingLists.set(word, [(position << FIELD_BITS) | field]);
        else if (list[list.length - 1] >> FIELD_BITS === position) list[list.length - 1] |= field;
        else list.push((position << FIELD_BITS) | field);
      }
    };
    add(scenario.title, TITLE);
    add(scenario.description, DESCRIPTION);
    for (const task of scenario.tasks) add(task.input, TASKS);
  };
  const next = (count: number) => {
    const end = Math.min(scenarios.length, indexedUpTo + count);
    for (; indexedUpTo < end; indexedUpTo += 1) indexScenario(scenarios[indexedUpTo], indexedUpTo);
    return indexedUpTo < scenarios.length;
  };
  return {
    next: (count) => !done && next(count),
    finish() {
      if (!done) {
        next(Infinity);
        done = { postingLists, vocabulary: [...postingLists.keys()].sort() };
      }
      return done;
    },
  };
}

/** Relevance per scenario (0 = no match) for the words of `q`; `null` when there is no `q`. */
function scoreQuery(size: number, wordIndex: () => WordIndex, q: string | undefined): Uint16Array | null {
  // Bounded so the per-scenario counters (8-bit) cannot wrap.
  const words = [...new Set(tokenize(q ?? ''))].slice(0, MAX_QUERY_WORDS);
  if (!words.length) return null;
  const { postingLists, vocabulary } = wordIndex();
  const scores = new Uint16Array(size);
  const matchedWords = new Uint8Array(size);
  const fields = new Uint8Array(size);
  for (const word of words) {
    fields.fill(0);
    for (let at = lowerBound(vocabulary, word); at < vocabulary.length && vocabulary[at].startsWith(word); at += 1) {
      for (const posting of postingLists.get(vocabulary[at])!) fields[posting >> FIELD_BITS] |= posting & 7;
    }
    for (let position = 0; position < size; position += 1) {
      if (fields[position]) {
        matchedWords[position] += 1;
        scores[position] += weightOf(fields[position]);
      }
    }
  }
  for (let position = 0; position < size; position += 1) if (matchedWords[position] !== words.length) scores[position] = 0;
  return scores;
}

type Filters = Record<FacetName, Set<string> | undefined>;
type FacetCounts = Record<FacetName, Map<string, number>>;

/** The positions that match `q` and every filter, and the disjunctive facet counts. */
function matchAndCount(indexed: IndexedScenario[], scores: Uint16Array | null, filters: Filters): { matches: number[]; counts: FacetCounts } {
  const counts: FacetCounts = { industry: new Map(), use_case: new Map(), tag: new Map(), dimension: new Map() };
  const bump = (facet: FacetName, key: string) => counts[facet].set(key, (counts[facet].get(key) ?? 0) + 1);
  const matches: number[] = [];

  for (let position = 0; position < indexed.length; position += 1) {
    if (scores && scores[position] === 0) continue;
    const scenario = indexed[position];
    // Which filters this scenario fails: it counts in a facet only when every *other* filter holds.
    let failed = 0;
    let failedFacet: FacetName | undefined;
    const test = (facet: FacetName, holds: boolean) => {
      if (!holds) {
        failed += 1;
        failedFacet = facet;
      }
    };
    if (filters.industry) test('industry', filters.industry.has(scenario.industry));
    if (filters.use_case) test('use_case', filters.use_case.has(scenario.useCase));
    if (filters.tag) test('tag', scenario.tags.some((tag) => filters.tag!.has(tag)));
    if (filters.dimension) test('dimension', scenario.dimensions.some((dimension) => filters.dimension!.has(dimension)));
    if (failed > 1) continue;
    const countIn = (facet: FacetName) => failed === 0 || failedFacet === facet;
    if (countIn('industry')) bump('industry', scenario.industry);
    if (countIn('use_case')) bump('use_case', scenario.useCase);
    if (countIn('tag')) for (const tag of scenario.tags) bump('tag', tag);
    if (countIn('dimension')) for (const dimension of scenario.dimensions) bump('dimension', dimension);
    if (failed === 0) matches.push(position);
  }
  return { matches, counts };
}

function searchIndex(data: IndexData, wordIndex: () => WordIndex, query: CatalogQuery): CatalogSearchResult {
  const scores = scoreQuery(data.indexed.length, wordIndex, query.q);
  const filters: Filters = {
    industry: valuesOf(query.industry),
    use_case: valuesOf(query.use_case),
    tag: valuesOf(query.tag),
    dimension: valuesOf(query.dimension),
  };
  const { matches, counts } = matchAndCount(data.indexed, scores, filters);
  if (scores) matches.sort((a, b) => scores[b] - scores[a] || a - b);

  const offset = query.offset ?? 0;
  const limit = query.limit ?? 20;
  const facets = Object.fromEntries(
    FACETS.map((facet) => [
      facet,
      Object.fromEntries([...counts[facet]].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([key, count]) => [data.display[facet].get(key) ?? key, count])),
    ]),
  ) as CatalogSearchResult['facets'];
  return { total: matches.length, items: matches.slice(offset, offset + limit).map((position) => data.indexed[position].entry), facets };
}

/** Scenarios whose words one slice of `indexWords` indexes: the 5,028 AES scenarios' words took 140–220 ms of CPU cold on the bench host, so ~7–11 ms a slice. */
const WORD_SLICE = 250;

/**
 * Builds the index over catalog entries and the scenarios they describe (same order): the facets now, the
 * words when `indexWords` runs or a search first needs them.
 */
export function buildSearchIndex(items: Array<{ entry: CatalogEntry; scenario: Scenario }>): SearchIndex {
  const data = indexFacets(items);
  const words = wordIndexer(items.map((item) => item.scenario));
  return {
    size: data.indexed.length,
    search: (query) => searchIndex(data, words.finish, query),
    async indexWords(pause) {
      while (words.next(WORD_SLICE)) await pause();
      words.finish();
    },
  };
}
