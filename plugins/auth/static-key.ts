/**
 * The static API key (`DASHBOARD_API_KEY`): a credential equal to it, compared in constant time, holds every
 * permission. Anything else is left to the next provider (OIDC JWTs).
 */
import type { Plugin } from '../../core/plugin.ts';
import { secretMatcher, type AuthProvider } from '../../core/auth-manager.ts';

export default {
  name: 'auth-static-key',
  setup(host) {
    const matchesKey = host.config.apiKey ? secretMatcher(host.config.apiKey) : undefined;
    const provider: AuthProvider = {
      name: 'static-key',
      async authenticate(credential) {
        if (!matchesKey?.(credential.value)) return null;
        return { id: 'static-key', provider: 'static-key', permissions: ['*'] };
      },
    };
    host.authProviders.register(provider, 'auth-static-key');
  },
} satisfies Plugin;
