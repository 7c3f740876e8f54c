import { describe, it, expect } from 'vitest';
import { createHost } from '../../../core/plugin-host.ts';
import { loadPlugins } from '../../../core/plugin.ts';
import { parseConfig } from '../../../core/config.ts';
import metricsPlugin from '../index.ts';
import { moderationFromSettings, readLlamaGuard } from './moderation.ts';

const noFetch = () => (() => Promise.reject(new Error('no network in this test'))) as typeof fetch;

function loaded(env: Record<string, string>) {
  const host = createHost(parseConfig({ DASHBOARD_API_KEY: 'k'.repeat(64), AEH_STORAGE: 'memory', ...env }), { runtime: { name: 'test', version: '0' } });
  loadPlugins(host, [metricsPlugin]);
  return host;
}

describe('metrics plugin: the model tier settings (AEH_MODERATION_*)', () => {
  it('without AEH_MODERATION_KIND, refusal and harmful_content are deterministic and scored in workers', () => {
    const host = loaded({});
    expect(host.metrics.get('refusal')?.module).toBeDefined();
    expect(host.metrics.get('harmful_content')?.module).toBeDefined();
  });

  it('with a classifier configured, both consult it and stay on the request thread', () => {
    const host = loaded({ AEH_MODERATION_KIND: 'llama-guard', AEH_MODERATION_URL: 'https://guard.example/v1', AEH_MODERATION_MODEL: 'meta-llama/Llama-Guard-3-8B' });
    expect(host.metrics.get('refusal')?.module).toBeUndefined();
    expect(host.metrics.get('harmful_content')?.module).toBeUndefined();
    expect(host.metrics.get('pii_leak')?.module).toBeDefined();
  });

  it('stops the start naming the setting and the fix, never a value', () => {
    expect(() => loaded({ AEH_MODERATION_KIND: 'llama-guard', AEH_MODERATION_URL: 'https://guard.example/v1' })).toThrow(/set AEH_MODERATION_MODEL/);
    expect(() => loaded({ AEH_MODERATION_KIND: 'openai-moderation' })).toThrow(/set AEH_MODERATION_URL \(or AEH_LLM_BASE_URL\)/);
    expect(() => loaded({ AEH_MODERATION_URL: 'https://guard.example/v1' })).toThrow(/without AEH_MODERATION_KIND/);
    expect(() => loaded({ AEH_MODERATION_KIND: 'perspective', AEH_MODERATION_API_KEY: 'secret-value' })).toThrow(/AEH_MODERATION_KIND/);
    expect(() => loaded({ AEH_MODERATION_KIND: 'openai-moderation', AEH_MODERATION_URL: 'https://m.example/v1', AEH_MODERATION_ROUTE: 'everything' })).toThrow(/AEH_MODERATION_ROUTE/);
    try {
      loaded({ AEH_MODERATION_KIND: 'perspective', AEH_MODERATION_API_KEY: 'secret-value' });
    } catch (error) {
      expect(String(error)).not.toContain('secret-value');
    }
  });

  it('defaults the URL, key and model to the configured provider and omni-moderation-latest', () => {
    const tier = moderationFromSettings({ AEH_MODERATION_KIND: 'openai-moderation' }, { baseUrl: 'https://api.example/v1', apiKey: 'k' }, noFetch);
    // With a classifier configured it judges every answer by default (issue 24 item 9); uncertain is the opt-out.
    expect(tier).toMatchObject({ kind: 'openai-moderation', model: 'omni-moderation-latest', route: 'all' });
    expect(moderationFromSettings({ AEH_MODERATION_KIND: 'openai-moderation', AEH_MODERATION_ROUTE: 'uncertain' }, { baseUrl: 'https://api.example/v1' }, noFetch)).toMatchObject({ route: 'uncertain' });
    expect(moderationFromSettings({}, { baseUrl: 'https://api.example/v1' }, noFetch)).toBeUndefined();
  });
});

describe('Llama Guard answers', () => {
  it.each([
    ['safe', { flagged: false, categories: [] }],
    ['  unsafe\nS1,S10 ', { flagged: true, categories: ['S1', 'S10'] }],
    ['unsafe\nS12', { flagged: true, categories: ['S12'] }],
    ['unsafe\nS5,S13', { flagged: false, categories: ['S5', 'S13'] }],
    ['unsafe\ns11', { flagged: true, categories: ['S11'] }],
  ])('reads %j', (content, verdict) => {
    expect(readLlamaGuard(content)).toEqual(verdict);
  });

  it.each(['', 'Safe enough', 'unsafe', 'unsafe\nS15', 'UNSAFE\nviolence', 42])('refuses to guess from %j', (content) => {
    expect(readLlamaGuard(content)).toBeUndefined();
  });
});
