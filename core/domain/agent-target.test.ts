import { describe, it, expect } from 'vitest';
import { agentConfigHash, agentSpecOf, namesNoAgent, secretVariablesOf } from './agent-target.ts';

describe('domain: agent targets', () => {
  it('hashes the canonical JSON of a spec: member order does not matter, every value does', () => {
    const hash = agentConfigHash({ adapter: 'http', url: 'https://a.example.com', headers: { a: '1', b: '2' } });
    expect(hash).toMatch(/^[a-f0-9]{64}$/);
    expect(agentConfigHash({ headers: { b: '2', a: '1' }, url: 'https://a.example.com', adapter: 'http' })).toBe(hash);
    expect(agentConfigHash({ adapter: 'http', url: 'https://a.example.com', headers: { a: '1', b: '3' } })).not.toBe(hash);
  });

  it('hashes a spec holding lone surrogates (RFC 8785 refuses them) as if they were U+FFFD', () => {
    expect(agentConfigHash({ adapter: 'scripted', replies: { '*': 'a\ud800b' } })).toBe(agentConfigHash({ adapter: 'scripted', replies: { '*': 'a\ufffdb' } }));
  });

  it('builds the spec of a target, and names the variables of its secrets', () => {
    expect(agentSpecOf({ adapter: 'http', options: { url: 'https://a.example.com' }, signature_key: { identity: 'x', jwks_url: 'https://a.example.com/jwks' } }))
      .toEqual({ adapter: 'http', url: 'https://a.example.com', signature_key: { identity: 'x', jwks_url: 'https://a.example.com/jwks' } });
    expect(secretVariablesOf({ api_key_env: 'MODEL_KEY', header_envs: { authorization: 'BOT_TOKEN', 'x-b': 'MODEL_KEY' }, url: 'https://a.example.com' })).toEqual(['BOT_TOKEN', 'MODEL_KEY']);
    expect(namesNoAgent({ adapter: 'none' })).toBe(true);
    expect(namesNoAgent(undefined)).toBe(true);
    expect(namesNoAgent({ adapter: 'scripted' })).toBe(false);
  });
});
