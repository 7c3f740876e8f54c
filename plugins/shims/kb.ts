/**
 * `kb`: a knowledge base with ranked search (BM25, the ranking of Lucene and Elasticsearch, over titles weighted
 * twice and bodies). Articles marked `internal` are hidden from searches and refused (`permission_denied`) when
 * the scenario says the agent serves the public (`audience: "public"`).
 */
import { defineShim, shimError, type Json, type ShimOutcome } from '../../core/shim.ts';
import { wordsOf } from './shared/records.ts';

interface Article {
  [key: string]: Json;
  id: string;
  title: string;
  body: string;
  tags: string[];
  visibility: 'public' | 'internal';
}

export interface KbState {
  [key: string]: Json;
  articles: Article[];
  audience: 'public' | 'internal';
}

const K1 = 1.2;
const B = 0.75;

/** BM25 scores of the visible articles for a query, best first; ties by id so the order is deterministic. */
export function rank(articles: readonly Article[], query: string): Array<{ article: Article; score: number }> {
  const terms = [...new Set(wordsOf(query))];
  const documents = articles.map((article) => [...wordsOf(article.title), ...wordsOf(article.title), ...wordsOf(article.body), ...article.tags.flatMap(wordsOf)]);
  const averageLength = documents.reduce((sum, words) => sum + words.length, 0) / Math.max(documents.length, 1) || 1;
  const documentFrequency = new Map(terms.map((term) => [term, documents.filter((words) => words.includes(term)).length]));
  return articles
    .map((article, index) => {
      const words = documents[index];
      let score = 0;
      for (const term of terms) {
        const frequency = words.filter((word) => word === term).length;
        if (frequency === 0) continue;
        const df = documentFrequency.get(term)!;
        const idf = Math.log(1 + (articles.length - df + 0.5) / (df + 0.5));
        score += idf * ((frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * words.length) / averageLength)));
      }
      return { article, score: Math.round(score * 1e6) / 1e6 };
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.article.id.localeCompare(b.article.id));
}

export default defineShim<KbState>({
  name: 'kb',
  // Calls stay on the request thread; a worker loads it to replay gold solutions (core/shim.ts).
  replayModule: import.meta.url,
  description: 'A knowledge base: ranked full-text search over articles, and reading one article.',
  initialStateSchema: {
    type: 'object',
    properties: {
      articles: { type: 'array', maxItems: 5000, items: { type: 'object', required: ['id', 'title', 'body'], properties: { id: { type: 'string' }, title: { type: 'string' }, body: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, visibility: { enum: ['public', 'internal'] } } } },
      audience: { enum: ['public', 'internal'] },
    },
    additionalProperties: false,
  },
  actions: [
    { name: 'search', description: 'Articles ranked by relevance to the query (BM25), best first, with a snippet.', readOnly: true, parameters: { type: 'object', required: ['query'], properties: { query: { type: 'string', minLength: 1, maxLength: 500 }, limit: { type: 'integer', minimum: 1, maximum: 20 } }, additionalProperties: false } },
    { name: 'get_article', description: 'One article in full.', readOnly: true, parameters: { type: 'object', required: ['article_id'], properties: { article_id: { type: 'string' } }, additionalProperties: false } },
  ],
  initialState(seed) {
    const given = (seed ?? {}) as { articles?: Array<Partial<Article> & { id: string; title: string; body: string }>; audience?: 'public' | 'internal' };
    return {
      articles: (given.articles ?? []).map((article) => ({ id: article.id, title: article.title, body: article.body, tags: article.tags ?? [], visibility: article.visibility ?? 'public' })),
      audience: given.audience ?? 'public',
    };
  },
  call(action, params, state): ShimOutcome<KbState> {
    const visible = state.audience === 'internal' ? state.articles : state.articles.filter((article) => article.visibility === 'public');
    if (action === 'search') {
      const hits = rank(visible, String(params.query)).slice(0, (params.limit as number | undefined) ?? 5);
      return { result: { results: hits.map(({ article, score }) => ({ id: article.id, title: article.title, score, snippet: article.body.slice(0, 200) })) }, state };
    }
    if (action === 'get_article') {
      const article = state.articles.find((item) => item.id === params.article_id);
      if (!article) return shimError(state, 'not_found', `no article "${String(params.article_id)}"`);
      if (!visible.includes(article)) return shimError(state, 'permission_denied', `article ${article.id} is internal`);
      return { result: article, state };
    }
    return shimError(state, 'invalid', `unknown action "${action}"`);
  },
});
