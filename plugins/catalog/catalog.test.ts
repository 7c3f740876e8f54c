import { describe, it, expect } from 'vitest';
import { createCatalog } from './catalog.ts';
import { buildSearchIndex, facetKey, tokenize, MAX_QUERY_WORDS } from './catalog-index.ts';
import type { FileAccess } from '../../core/capabilities.ts';
import { silentLogger } from '../../core/capabilities.ts';
import type { Scenario } from '../../core/domain/scenario.ts';

function scenario(id: string, overrides: Partial<Scenario> = {}): Scenario {
  return {
    id,
    title: `Scenario ${id}`,
    industry: 'finance',
    use_case: 'lending',
    tags: [],
    policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted', replies: { '*': 'ok' } },
    topology: [],
    tasks: [{ id: 't1', input: 'Decide the loan.', metrics: [{ id: 'task_success' }] }],
    ...overrides,
  };
}

/** An in-memory FileAccess; `sync: false` leaves out readFileSync so the promise path is used. */
function memoryFiles(tree: Record<string, string>, { sync = true } = {}): FileAccess & { reads: string[] } {
  const reads: string[] = [];
  const encoder = new TextEncoder();
  const read = (path: string) => {
    reads.push(path);
    if (!(path in tree)) throw Object.assign(new Error(`EACCES: ${path}`), { code: 'EACCES' });
    return encoder.encode(tree[path]);
  };
  return {
    reads,
    async realpath(path) {
      if (!Object.keys(tree).some((file) => file.startsWith(`${path}/`))) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      return path;
    },
    stat: async () => ({ isFile: true, size: 0 }),
    readFile: async (path) => read(path),
    ...(sync ? { readFileSync: read } : {}),
    readStream: () => new ReadableStream(),
    writeFile: async () => undefined,
    listFiles: async (dir, extension) => [...Object.keys(tree), `${dir}/vanished.json`].filter((file) => file.startsWith(`${dir}/`) && file.endsWith(extension)).sort(),
    tempDirs: [],
  };
}

const TREE = {
  '/cat/a.json': JSON.stringify(scenario('a', { title: 'Wire transfer fraud', tags: ['AML'] })),
  '/cat/health/b.json': JSON.stringify(scenario('b', { industry: 'healthcare', use_case: 'triage', tasks: [{ id: 't', input: 'Chest pain', metrics: [{ id: 'refusal' }, { id: 'custom_metric' }] }] })),
  '/cat/schema/aes.schema.json': '{"type": "object"}',
  '/cat/data/thesaurus.json': '{"words": []}',
  '/cat/.git/x.json': '{}',
  '/cat/_drafts/x.json': '{}',
  '/cat/notes.txt': 'not json',
};

describe('catalog: indexing', () => {
  it.each([true, false])('indexes scenario files only (synchronous read: %s)', async (sync) => {
    const files = memoryFiles(TREE, { sync });
    const catalog = createCatalog({ files, dirs: [{ path: '/cat', source: 'bundled' }], logger: silentLogger, metricDimension: (id) => (id === 'custom_metric' ? 'privacy' : undefined) });
    const integrity = await catalog.integrity();
    expect(integrity.total).toBe(2);
    expect(integrity.problems).toEqual([{ path: '/cat/vanished.json', message: expect.stringMatching(/^unreadable: EACCES/) }]);
    expect(files.reads.filter((path) => /schema|data|\.git|_drafts/.test(path))).toEqual([]);
    const result = await catalog.search({});
    expect(result.items.map((item) => [item.id, item.dimensions])).toEqual([['a', ['reliability']], ['b', ['safety', 'privacy']]]);
  });

  it('reads nothing until first use, and only once', async () => {
    const files = memoryFiles(TREE);
    const catalog = createCatalog({ files, dirs: [{ path: '/cat', source: 'bundled' }], logger: silentLogger });
    expect(files.reads).toEqual([]);
    await Promise.all([catalog.search({}), catalog.get('a'), catalog.ready()]);
    const readsAfterFirst = files.reads.length;
    await catalog.search({ q: 'wire' });
    expect(files.reads.length).toBe(readsAfterFirst);
  });

  it('is empty with a problem on a runtime without a file system', async () => {
    const catalog = createCatalog({ dirs: [{ path: '/cat', source: 'bundled' }], logger: silentLogger });
    expect(await catalog.integrity()).toEqual({ total: 0, bySource: {}, problems: [{ path: '/cat', message: expect.stringMatching(/no file system/) }] });
    expect(await catalog.get('a')).toBeNull();
  });

  it('indexes documents embedded in the build (workerd) by the folder rules, before mounted folders', async () => {
    const documents = Object.entries(TREE).map(([path, text]) => ({ path: `catalog${path.slice('/cat'.length)}`, text }));
    documents.push({ path: 'catalog/broken.json', text: '{ not json' });
    const mounted = memoryFiles({ '/mnt/a.json': JSON.stringify(scenario('a', { title: 'Mounted duplicate' })), '/mnt/c.json': JSON.stringify(scenario('c')) });
    const catalog = createCatalog({ documents, files: mounted, dirs: [{ path: '/mnt', source: 'mnt' }], logger: silentLogger });
    const { total, bySource, problems } = await catalog.integrity();
    expect(total).toBe(3);
    expect(bySource).toEqual({ bundled: 2, mnt: 1 });
    expect((await catalog.get('a'))?.title).toBe('Wire transfer fraud');
    expect(problems.map((problem) => problem.path).sort()).toEqual(['/mnt/a.json', '/mnt/vanished.json', 'catalog/broken.json']);
    expect((await catalog.search({ q: 'fraud' })).items.map((item) => [item.id, item.source])).toEqual([['a', 'bundled']]);
  });

  it('refuses oversized files without parsing them', async () => {
    const big = JSON.stringify(scenario('big', { description: 'x'.repeat(5 * 1024 * 1024) }));
    const catalog = createCatalog({ files: memoryFiles({ '/cat/big.json': big }), dirs: [{ path: '/cat', source: 'bundled' }], logger: silentLogger });
    const { problems } = await catalog.integrity();
    expect(problems.map((problem) => problem.message)).toContain(`larger than ${4 * 1024 * 1024} bytes`);
  });
});

describe('catalog: search index', () => {
  const items = [
    scenario('loan-1', { title: 'Loan decision', description: 'Approve or refer.', tags: ['Fair-Lending'] }),
    scenario('refund-1', { title: 'Card refund', industry: 'retail', use_case: 'returns', tasks: [{ id: 't', input: 'Issue a loan refund', metrics: [{ id: 'pii_leak' }] }] }),
    scenario('refund-2', { title: 'Refund policy', industry: 'retail', use_case: 'returns', description: 'Loans are not refunded.' }),
  ].map((item) => ({ scenario: item, entry: { id: item.id, title: item.title, industry: item.industry, use_case: item.use_case, tags: item.tags, dimensions: item.tasks[0].metrics[0].id === 'pii_leak' ? ['privacy' as const] : ['reliability' as const], source: 'bundled', format: 'native', task_count: 1 } }));
  const index = buildSearchIndex(items);

  it('ranks title matches above description and task-text matches', () => {
    expect(index.search({ q: 'loan' }).items.map((item) => item.id)).toEqual(['loan-1', 'refund-2', 'refund-1']);
    // refund-2: title (3) + description (2); refund-1: title (3) + task text (1)
    expect(index.search({ q: 'refund loan' }).items.map((item) => item.id)).toEqual(['refund-2', 'refund-1']);
  });

  it('matches word prefixes, not the middle of words', () => {
    expect(index.search({ q: 'refun' }).total).toBe(2);
    expect(index.search({ q: 'efund' }).total).toBe(0);
  });

  it('normalises facet values and filters alike', () => {
    expect(facetKey(' Fair Lending ')).toBe(facetKey('fair-lending'));
    expect(index.search({ tag: 'FAIR LENDING' }).items.map((item) => item.id)).toEqual(['loan-1']);
    expect(index.search({ tag: 'fair-lending' }).facets.tag).toEqual({ 'Fair-Lending': 1 });
  });

  it('orders facet values by count', () => {
    expect(Object.entries(index.search({}).facets.industry)).toEqual([['retail', 2], ['finance', 1]]);
  });

  it('ignores query words past the limit instead of overflowing its counters', () => {
    const title = Array.from({ length: 40 }, (_, at) => `w${at}`).join(' ');
    const wide = buildSearchIndex([{ scenario: scenario('wide', { title }), entry: { ...items[0].entry, id: 'wide', title } }]);
    const query = Array.from({ length: 300 }, (_, at) => `w${at}`).join(' ');
    // the first MAX_QUERY_WORDS words all match; w40 and later would not, and are ignored
    expect(wide.search({ q: query }).total).toBe(1);
    expect(MAX_QUERY_WORDS).toBeLessThan(40);
  });

  it('indexes the words in slices between pauses, and a text search meanwhile indexes the rest (issue 36)', async () => {
    const many = Array.from({ length: 600 }, (_, at) => scenario(`s${at}`, { title: `Scenario s${at}`, tasks: [{ id: 't', input: `word${at} shared`, metrics: [{ id: 'task_success' }] }] }));
    const sliced = buildSearchIndex(many.map((item) => ({ scenario: item, entry: { ...items[0].entry, id: item.id, title: item.title } })));
    let pauses = 0;
    let release!: () => void;
    const indexing = sliced.indexWords(() => {
      pauses += 1;
      return new Promise<void>((resolve) => (release = resolve));
    });
    // Paused after the first slice: facets answer, and a text search finds every scenario, the rest included.
    expect(pauses).toBe(1);
    expect(sliced.search({ limit: 0 }).total).toBe(600);
    expect(sliced.search({ q: 'word599' }).items.map((item) => item.id)).toEqual(['s599']);
    expect(sliced.search({ q: 'shared', limit: 0 }).total).toBe(600);
    release();
    await indexing;
    expect(pauses).toBe(1);
    expect(sliced.search({ q: 'word0' }).items.map((item) => item.id)).toEqual(['s0']);
  });

  it('tokenizes accented and non-Latin words', () => {
    expect(tokenize('Évaluer la Sécurité — 安全 test_case')).toEqual(['évaluer', 'la', 'sécurité', '安全', 'test', 'case']);
  });
});
