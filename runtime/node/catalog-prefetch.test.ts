import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCatalogPrefetch } from './catalog-prefetch.ts';
import { catalogDirs } from '../../plugins/catalog/catalog-dirs.ts';
import { collectCatalogFiles, loadContext, loadFileSync } from '../../plugins/catalog/catalog-files.ts';
import { nodeFiles } from './capabilities.ts';
import { bundledCatalogDir } from './paths.ts';
import { aesFormat } from '../../plugins/aes/format.ts';
import type { CatalogFiles, CatalogPrefetch } from '../../core/domain/catalog.ts';
import { testApp } from '../../test/helpers.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { createCatalog } from '../../plugins/catalog/catalog.ts';

const native = (id: string, title: string) => ({
  id, title, industry: 'finance', use_case: 'lending', tags: [], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { '*': 'ok' } }, topology: [],
  tasks: [{ id: 't1', input: 'Decide the loan.', metrics: [{ id: 'task_success' }] }],
});
const aes = {
  aes_version: 1.4, metadata: { id: 'refund-flow', name: 'Refund flow', compliance_level: 'Standard' }, description: 'A customer wants a refund.', industry: 'Ecommerce',
  workflow: { nodes: [{ id: 'task-1', task_description: 'Find the order.', expected_outcome: [{ target: 'message', expected: 'Order \\d+', mode: 'regex' }] }], edges: [] },
};

/** A mounted folder with a native scenario, an AES one and two that cannot be used. */
function mountedFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-prefetch-'));
  mkdirSync(join(dir, 'lending'));
  writeFileSync(join(dir, 'lending', 'loan.json'), JSON.stringify(native('prefetch_loan', 'Loan prefetched')));
  writeFileSync(join(dir, 'refund.json'), JSON.stringify(aes));
  writeFileSync(join(dir, 'broken.json'), '{"id": ');
  writeFileSync(join(dir, 'invalid.json'), JSON.stringify({ id: 'no tasks' }));
  return dir;
}

describe('catalog prefetch (issue 36: a mounted catalog loaded on another thread while the service loads)', () => {
  it('loads in a worker exactly what the catalog would load itself, with the bundled formats', async () => {
    const dir = mountedFolder();
    const root = mkdtempSync(join(tmpdir(), 'aeh-prefetch-root-'));
    const prefetch = startCatalogPrefetch({ PROJECT_ROOT: root, AEH_CATALOG_DIRS: dir }, root)!;
    expect(prefetch.dirs).toEqual(catalogDirs({ catalogDirs: [dir], projectRoot: root }, bundledCatalogDir));
    const { formats, ...files } = (await prefetch.take())!;
    expect(prefetch.take()).toBeUndefined();
    expect(formats).toEqual([aesFormat.name]);
    const inline = await collectCatalogFiles({ files: nodeFiles(), dirs: prefetch.dirs, formats: [aesFormat] });
    expect(files).toEqual(JSON.parse(JSON.stringify(inline)));
    const mounted = files.loaded.filter((file) => file.source === dir);
    expect(mounted.map((file) => [file.path.slice(dir.length), file.scenario?.id])).toEqual([
      ['/broken.json', undefined],
      ['/invalid.json', undefined],
      ['/lending/loan.json', 'prefetch_loan'],
      ['/refund.json', 'refund-flow'],
    ]);
    expect(mounted[0].problem).toMatch(/JSON/);
    expect(mounted[1].problem).toMatch(/invalid scenario/);
  }, 120_000);

  it('keeps the files in order across the chunks the worker posts them in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-prefetch-many-'));
    // More files than one chunk holds (CHUNK_FILES, 256), some of them problems.
    for (let at = 0; at < 600; at += 1) {
      const name = `s${String(at).padStart(3, '0')}.json`;
      writeFileSync(join(dir, name), at % 97 === 0 ? '{"id": ' : JSON.stringify(native(`many_${at}`, `Many ${at}`)));
    }
    const root = mkdtempSync(join(tmpdir(), 'aeh-prefetch-root-'));
    const prefetch = startCatalogPrefetch({ PROJECT_ROOT: root, AEH_CATALOG_DIRS: dir }, root)!;
    const { formats, ...files } = (await prefetch.take())!;
    expect(formats).toEqual([aesFormat.name]);
    const inline = await collectCatalogFiles({ files: nodeFiles(), dirs: prefetch.dirs, formats: [aesFormat] });
    expect(files).toEqual(JSON.parse(JSON.stringify(inline)));
    expect(files.loaded.filter((file) => file.source === dir)).toHaveLength(600);
  }, 120_000);

  it('loads the files the worker has not claimed on the taking thread, each once, with the same result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-prefetch-help-'));
    for (let at = 0; at < 600; at += 1) {
      const name = `h${String(at).padStart(3, '0')}.json`;
      writeFileSync(join(dir, name), at % 89 === 0 ? JSON.stringify({ id: 'no tasks' }) : JSON.stringify(at % 2 ? native(`help_${at}`, `Help ${at}`) : { ...aes, metadata: { ...aes.metadata, id: `help-aes-${at}` } }));
    }
    const root = mkdtempSync(join(tmpdir(), 'aeh-prefetch-root-'));
    const prefetch = startCatalogPrefetch({ PROJECT_ROOT: root, AEH_CATALOG_DIRS: dir }, root)!;
    const context = loadContext([aesFormat]);
    const here: string[] = [];
    const { formats, ...files } = (await prefetch.take((target) => {
      here.push(target.path);
      return loadFileSync(readFileSync, target, context);
    }))!;
    expect(formats).toEqual([aesFormat.name]);
    // However the two threads shared the files (it depends on the machine), each was loaded once, in its place.
    expect(new Set(here).size).toBe(here.length);
    const inline = await collectCatalogFiles({ files: nodeFiles(), dirs: prefetch.dirs, formats: [aesFormat] });
    expect(JSON.parse(JSON.stringify(files))).toEqual(JSON.parse(JSON.stringify(inline)));
    const mounted = files.loaded.filter((file) => file.source === dir);
    expect(mounted).toHaveLength(600);
    expect(mounted.filter((file) => file.problem).map((file) => file.problem)).toEqual(Array.from({ length: 7 }, () => expect.stringMatching(/invalid scenario/)));
  }, 120_000);

  it('leaves the files to the worker while nobody waits for them (the rest of the start goes first)', async () => {
    const dir = mountedFolder();
    const root = mkdtempSync(join(tmpdir(), 'aeh-prefetch-root-'));
    const prefetch = startCatalogPrefetch({ PROJECT_ROOT: root, AEH_CATALOG_DIRS: dir }, root)!;
    let loadedHere = 0;
    const { formats, ...files } = (await prefetch.take(() => {
      loadedHere += 1;
      throw new Error('not expected');
    }, new Promise<void>(() => undefined)))!;
    expect(loadedHere).toBe(0);
    const inline = await collectCatalogFiles({ files: nodeFiles(), dirs: prefetch.dirs, formats: [aesFormat] });
    expect(files).toEqual(JSON.parse(JSON.stringify(inline)));
  }, 120_000);

  it('reads the .env of the project root, as the service does', async () => {
    const dir = mountedFolder();
    const root = mkdtempSync(join(tmpdir(), 'aeh-prefetch-root-'));
    writeFileSync(join(root, '.env'), `AEH_CATALOG_DIRS=${dir}\n`);
    const prefetch = startCatalogPrefetch({ PROJECT_ROOT: root }, root)!;
    expect(prefetch.dirs.map((entry) => entry.source)).toEqual(['bundled', dir]);
    await prefetch.take();
  }, 120_000);

  it('gives no prefetch for a configuration the service would refuse (the service says why)', () => {
    expect(startCatalogPrefetch({ PORT: 'eighty' }, tmpdir())).toBeUndefined();
  });
});

describe('the catalog and a prefetch', () => {
  it('searches, looks up and reports problems exactly as without it, the taking thread helping', async () => {
    const dir = mountedFolder();
    for (let at = 0; at < 300; at += 1) writeFileSync(join(dir, `m${String(at).padStart(3, '0')}.json`), at % 50 === 7 ? '[1, 2' : JSON.stringify(at % 3 ? native(`same_${at}`, `Same ${at}`) : { ...aes, metadata: { ...aes.metadata, id: `same-aes-${at}` } }));
    const root = mkdtempSync(join(tmpdir(), 'aeh-prefetch-root-'));
    const prefetch = startCatalogPrefetch({ PROJECT_ROOT: root, AEH_CATALOG_DIRS: dir }, root)!;
    let taken = false;
    const options = { files: nodeFiles(), dirs: prefetch.dirs.map((entry) => ({ ...entry })), formats: [aesFormat], logger: silentLogger };
    const ahead = createCatalog({ ...options, prefetched: { dirs: prefetch.dirs, take: (load) => ((taken = true), prefetch.take(load)) } });
    const own = createCatalog(options);
    const queries = [{ limit: 1000 }, { q: 'loan', limit: 1000 }, { industry: 'ecommerce', limit: 5, offset: 1 }, { dimension: 'reliability', tag: 'x', limit: 1000 }];
    for (const query of queries) expect(await ahead.search(query)).toEqual(await own.search(query));
    expect(taken).toBe(true);
    const { items } = await own.search({ limit: 1000 });
    expect(items.length).toBeGreaterThan(250);
    for (const { id } of items) expect(await ahead.get(id)).toEqual(await own.get(id));
    const integrity = await ahead.integrity();
    expect(integrity).toEqual(await own.integrity());
    expect(integrity.problems.filter((problem) => problem.path.startsWith(dir)).map((problem) => problem.path.slice(dir.length)).sort()).toEqual(['/broken.json', '/invalid.json', '/m007.json', '/m057.json', '/m107.json', '/m157.json', '/m207.json', '/m257.json']);
  }, 120_000);

  const planted = (dirs: CatalogPrefetch['dirs'], formats = [aesFormat.name]): CatalogPrefetch => {
    const files: CatalogFiles = { problems: [], loaded: [{ path: '/nowhere/planted.json', source: 'bundled', format: 'native', scenario: native('planted_only_in_prefetch', 'Planted') as never }] };
    const taken = Promise.resolve({ ...files, formats });
    return { dirs, take: () => taken };
  };

  it('indexes the prefetched files when they were loaded from its folders with its formats', async () => {
    const t = await testApp({ capabilities: { catalogPrefetch: planted([{ path: bundledCatalogDir, source: 'bundled' }]) } });
    const { body } = await t.json('GET', '/api/scenarios?limit=0');
    expect(body.total).toBe(1);
    expect((await t.json('GET', '/api/scenarios/planted_only_in_prefetch')).status).toBe(200);
  });

  it('reads the folders itself when the prefetch read other folders, other formats, or failed', async () => {
    const own = await testApp();
    const expected = (await own.json('GET', '/api/scenarios?limit=0')).body.total;
    expect(expected).toBeGreaterThan(1);
    const died = Promise.reject(new Error('worker died'));
    died.catch(() => undefined);
    const cases: CatalogPrefetch[] = [
      planted([{ path: '/elsewhere', source: 'bundled' }]),
      planted([{ path: bundledCatalogDir, source: 'bundled' }], ['some-other-format']),
      { dirs: [{ path: bundledCatalogDir, source: 'bundled' }], take: () => died },
    ];
    for (const catalogPrefetch of cases) {
      const t = await testApp({ capabilities: { catalogPrefetch } });
      expect((await t.json('GET', '/api/scenarios?limit=0')).body.total).toBe(expected);
      expect((await t.json('GET', '/api/scenarios/planted_only_in_prefetch')).status).toBe(404);
    }
  });

  it('uses a prefetch for the first index only: a refresh reads the folders', async () => {
    const t = await testApp({ capabilities: { catalogPrefetch: planted([{ path: bundledCatalogDir, source: 'bundled' }]) } });
    expect((await t.json('GET', '/api/scenarios?limit=0')).body.total).toBe(1);
    const refreshed = await t.json('POST', '/api/v1/catalog/refresh');
    expect(refreshed.status).toBe(200);
    expect((await t.json('GET', '/api/scenarios?limit=0')).body.total).toBeGreaterThan(1);
  });
});
