/**
 * The static API key (`DASHBOARD_API_KEY`): a credential equal to it, compared in constant time, holds every
 * permission. Anything else is left to the next provider (OIDC JWTs).
 */
import type { Plugin } from '../../core/plugin.ts';
import { type AuthProvider } from '../../core/auth-manager.ts';
import { secretMatcher } from '../../core/guards/secrets.ts';

export default {
  name: 'auth-static-key',
  setup(host) {
    const key = host.config.apiKey;
    const matchesKey = key ? secretMatcher(key) : undefined;
    const provider: AuthProvider = {
      name: 'static-key',
      // Synchronous: the request pipeline then answers a static-key request without a turn of the event loop.
      authenticate(credential) {
        // A credential of another length (a JWT, say) cannot be the key: skip hashing it. This reveals only the
        // key's length, which the spec fixes at 64 hex characters anyway; equal lengths compare in constant time.
        if (!key || credential.value.length !== key.length || !matchesKey!(credential.value)) return null;
        return { id: 'static-key', provider: 'static-key', permissions: ['*'] };
      },
      // Work the static key asked for acts only while the service still has one.
      current: () => (key ? { principal: { id: 'static-key', provider: 'static-key', permissions: ['*'] } } : { refused: 'the static key (DASHBOARD_API_KEY) is no longer set' }),
    };
    host.authProviders.register(provider, 'auth-static-key');
  },
} satisfies Plugin;
