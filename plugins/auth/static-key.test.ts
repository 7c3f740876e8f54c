/** The static key provider runs the auth provider conformance suite (testing/auth-provider.ts). */
import { describe, it, expect } from 'vitest';
import { pluginHost, testAuthProvider } from '../../testing/index.ts';
import staticKey from './static-key.ts';

const KEY = '3f'.repeat(32);

const provider = (env: Record<string, string> = { DASHBOARD_API_KEY: KEY }) => pluginHost([staticKey], { env }).authProviders.get('static-key')!;

testAuthProvider('static-key', () => provider(), {
  valid: [
    { credential: KEY, permissions: ['*'] },
    { credential: { source: 'x-api-key', value: KEY }, permissions: ['*'] },
    { credential: { source: 'query', value: KEY }, permissions: ['*'] },
  ],
});

describe('auth: static key', () => {
  it('accepts nothing when DASHBOARD_API_KEY is unset', async () => {
    const unset = provider({});
    expect(await unset.authenticate({ source: 'authorization', value: KEY }, undefined as never)).toBeNull();
    expect(await unset.authenticate({ source: 'authorization', value: '' }, undefined as never)).toBeNull();
  });
});
