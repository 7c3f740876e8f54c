/**
 * The text_speak example passes the mutator conformance suite, and works when loaded the way a user loads it
 * (`AEH_PLUGINS`), through `POST /api/v1/mutate`.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testMutator, sampleScenario } from '../../testing/index.ts';
import { buildNodeApp } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { createRng } from '../../core/domain/rng.ts';
import { TEST_KEY } from '../../test/helpers.ts';
import { textSpeak } from './text-speak-mutator.ts';

testMutator(textSpeak);

describe('example plugin: text_speak mutator', () => {
  it('shortens the words it knows, keeps capitals and leaves longer words alone', () => {
    const all = textSpeak.mutate('Please tell me your balance before Friday, yourself included.', { rng: createRng(1), options: { rate: 1 } });
    expect(all).toBe('Pls tell me ur balance b4 Friday, yourself included.');
    const none = textSpeak.mutate('Nothing here is shorthand.', { rng: createRng(1), options: {} });
    expect(none).toBe('Nothing here is shorthand.');
  });

  it('loads from AEH_PLUGINS and mutates a scenario over HTTP', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-example-mutator-'));
    const plugin = join(fileURLToPath(new URL('.', import.meta.url)), 'text-speak-mutator.ts');
    const { app } = await buildNodeApp({ DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory', PROJECT_ROOT: root, AEH_PLUGINS: plugin }, root, silentLogger);
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await app.request(path, { method, headers: { 'X-API-Key': TEST_KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as any };
    };
    const listed = await call('GET', '/api/v1/mutators');
    expect(listed.body.items).toContainEqual(expect.objectContaining({ type: 'text_speak' }));
    const scenario = sampleScenario(['Are you able to see my account before tomorrow, please?']);
    const mutated = await call('POST', '/api/v1/mutate', { type: 'text_speak', raw_json: scenario, seed: 7 });
    expect(mutated.status).toBe(200);
    expect(mutated.body.changes).toHaveLength(1);
    expect(mutated.body.changes[0].after).not.toBe(mutated.body.changes[0].before);
    expect(mutated.body.scenario.tasks[0].input).toMatch(/\b(R|u|c|acct|b4|2moro|pls)\b/);
    await app.close();
  });
});
