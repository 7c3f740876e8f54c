/**
 * issue 18 item 3: POST /api/v1/catalog/refresh re-indexes the bundled and mounted catalogs without a restart,
 * reports what was added, changed, removed or refused, and searches during a refresh see the old index.
 */
import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp } from './helpers.ts';
import claimsBearer from './fixtures/claims-bearer-auth.ts';
import { nodeCapabilities } from '../runtime/node/capabilities.ts';
import { silentLogger, type FileAccess } from '../core/capabilities.ts';

function scenario(id: string, title = `Scenario ${id}`) {
  return { id, title, industry: 'retail', use_case: 'returns', tags: ['refresh-test'], policy_ref: 'NIST AI 100-1', agent: { adapter: 'scripted', replies: {} }, topology: [], tasks: [{ id: 't1', input: 'Hi', metrics: [{ id: 'task_success' }] }] };
}

function mounted(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-refresh-'));
  mkdirSync(join(dir, 'retail'));
  for (const id of ['keep-me', 'change-me', 'remove-me']) writeFileSync(join(dir, 'retail', `${id}.json`), JSON.stringify(scenario(id)));
  return dir;
}

const bearer = (claims: Record<string, unknown>) => ({ Authorization: `Bearer claims.${Buffer.from(JSON.stringify(claims)).toString('base64url')}` });

describe('POST /api/v1/catalog/refresh', () => {
  it('reports what was added, changed, removed and refused, and serves the new index', async () => {
    const dir = mounted();
    const t = await testApp({ env: { AEH_CATALOG_DIRS: dir } });
    expect((await t.json('GET', '/api/scenarios?tag=refresh-test')).body.total).toBe(3);
    writeFileSync(join(dir, 'retail', 'change-me.json'), JSON.stringify(scenario('change-me', 'Changed title')));
    rmSync(join(dir, 'retail', 'remove-me.json'));
    writeFileSync(join(dir, 'retail', 'new-one.json'), JSON.stringify(scenario('new-one')));
    writeFileSync(join(dir, 'retail', 'broken.json'), '{"id": "broken", ');
    const { status, body } = await t.json('POST', '/api/v1/catalog/refresh');
    expect(status).toBe(200);
    expect(body.added).toEqual(['new-one']);
    expect(body.changed).toEqual(['change-me']);
    expect(body.removed).toEqual(['remove-me']);
    expect(body.refused).toEqual([expect.objectContaining({ path: expect.stringContaining('broken.json'), message: expect.stringMatching(/JSON/) })]);
    expect(body.counts).toMatchObject({ added: 1, changed: 1, removed: 1, refused: 1 });
    const search = await t.json('GET', '/api/scenarios?tag=refresh-test');
    expect(search.body.items.map((item: { id: string }) => item.id).sort()).toEqual(['change-me', 'keep-me', 'new-one']);
    expect((await t.json('GET', '/api/scenarios/change-me')).body.title).toBe('Changed title');
    expect((await t.json('GET', '/api/scenarios/remove-me')).status).toBe(404);
    // Nothing changed since: an empty report.
    expect((await t.json('POST', '/api/v1/catalog/refresh')).body.counts).toMatchObject({ added: 0, changed: 0, removed: 0 });
  });

  it('serves the old index to searches while the new one is built', async () => {
    const dir = mounted();
    const base = nodeCapabilities(dir, silentLogger).files!;
    let gate: Promise<void> | undefined;
    let release = () => {};
    // No synchronous read, so the catalog reads through readFile, which this test can hold.
    const files: FileAccess = { ...base, readFileSync: undefined, readFile: async (path) => { if (gate) await gate; return base.readFile(path); } };
    const t = await testApp({ env: { AEH_CATALOG_DIRS: dir }, capabilities: { files } });
    expect((await t.json('GET', '/api/scenarios?tag=refresh-test')).body.total).toBe(3);
    rmSync(join(dir, 'retail', 'remove-me.json'));
    gate = new Promise((resolve) => (release = resolve));
    const refreshing = t.json('POST', '/api/v1/catalog/refresh');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await t.json('GET', '/api/scenarios?tag=refresh-test')).body.total).toBe(3); // the old index, complete
    expect((await t.json('GET', '/api/scenarios/remove-me')).status).toBe(200);
    gate = undefined;
    release();
    expect((await refreshing).body.removed).toEqual(['remove-me']);
    expect((await t.json('GET', '/api/scenarios?tag=refresh-test')).body.total).toBe(2);
  });

  it('needs catalog:refresh (operator), and is audited', async () => {
    const t = await testApp({ plugins: [claimsBearer] });
    const viewer = await t.json('POST', '/api/v1/catalog/refresh', { key: null, headers: bearer({ sub: 'v', roles: ['viewer'] }) });
    expect(viewer.status).toBe(403);
    expect(viewer.body.permission).toBe('catalog:refresh');
    const operator = await t.json('POST', '/api/v1/catalog/refresh', { key: null, headers: bearer({ sub: 'o', roles: ['operator'] }) });
    expect(operator.status).toBe(200);
    const audit = await t.json('GET', '/api/v1/audit?limit=5');
    expect(audit.body.items).toContainEqual(expect.objectContaining({ action: 'catalog.refresh', principal: 'test|o', outcome: 'ok' }));
  });
});
