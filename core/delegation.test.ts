import { describe, it, expect } from 'vitest';
import { actingPrincipal, storedCreator } from './delegation.ts';
import { createAuthManagerClass, type AuthManagerInstance } from './auth-manager.ts';

const SINCE = '2026-11-23T09:00:00.000Z';

/** A manager whose providers are `oidc` (claims mapped again), `static-key`, and `keys` (a revocable key store). */
function manager(): AuthManagerInstance {
  const Manager = createAuthManagerClass();
  const instance = new (class extends Manager {
    override permissionsFromClaims(claims: Record<string, unknown>): string[] {
      return claims.role === 'operator' ? ['evaluations:launch', 'runs:read'] : [];
    }
  })({ allowQueryKey: true });
  instance.addProvider({ name: 'oidc', authenticate: () => null });
  instance.addProvider({ name: 'static-key', authenticate: () => null });
  instance.addProvider({
    name: 'keys',
    authenticate: () => null,
    current: (stored) => (stored.id === 'keys|gone' ? { refused: 'the key was revoked' } : { principal: { id: stored.id, provider: 'keys', permissions: ['runs:read'] } }),
  });
  return instance;
}

describe('delegation: who stored work acts as', () => {
  it('acts as the creator with only the permission the work needs', async () => {
    const creator = storedCreator({ id: 'iss|ana', provider: 'oidc', permissions: ['evaluations:*', 'runs:read'], claims: { role: 'operator' } });
    // The claims go along, so a run it queues is asked again under the mapping when it starts.
    expect(await actingPrincipal(manager(), creator, 'iss|ana', 'evaluations:launch', SINCE)).toEqual({ principal: { id: 'iss|ana', provider: 'oidc', permissions: ['evaluations:launch'], claims: { role: 'operator' } } });
  });

  it('refuses when the stored grant lacks it, or the claims no longer map to it', async () => {
    const auth = manager();
    expect(await actingPrincipal(auth, { id: 'bo', provider: 'oidc', permissions: ['runs:read'] }, 'bo', 'evaluations:launch', SINCE)).toEqual({ refused: 'its creator bo did not hold evaluations:launch' });
    expect(await actingPrincipal(auth, { id: 'cy', provider: 'oidc', permissions: ['*'], claims: { role: 'viewer' } }, 'cy', 'evaluations:launch', SINCE)).toEqual({ refused: 'the claims of its creator cy no longer grant evaluations:launch' });
  });

  it('asks the provider who the creator is now: gone, or without the permission any more', async () => {
    const auth = manager();
    expect(await actingPrincipal(auth, { id: 'keys|gone', provider: 'keys', permissions: ['*'] }, 'keys|gone', 'evaluations:launch', SINCE)).toEqual({ refused: 'the key was revoked' });
    expect(await actingPrincipal(auth, { id: 'keys|demoted', provider: 'keys', permissions: ['*'] }, 'keys|demoted', 'evaluations:launch', SINCE)).toEqual({ refused: 'its creator keys|demoted no longer holds evaluations:launch' });
    expect(await actingPrincipal(auth, { id: 'x|y', provider: 'unloaded', permissions: ['*'] }, 'x|y', 'evaluations:launch', SINCE)).toEqual({ refused: 'the identity provider "unloaded" of x|y is no longer configured' });
  });

  it('trusts a record without its creator only when the static key made it', async () => {
    const auth = manager();
    expect(await actingPrincipal(auth, undefined, 'static-key', 'evaluations:launch', SINCE)).toEqual({ principal: { id: 'static-key', provider: 'static-key', permissions: ['evaluations:launch'] } });
    expect(await actingPrincipal(auth, undefined, 'iss|dee', 'evaluations:launch', SINCE)).toEqual({ refused: 'it does not record who created it' });
    expect(await actingPrincipal(auth, undefined, null, 'evaluations:launch', SINCE)).toEqual({ refused: 'it does not record who created it' });
  });

  it('stores a copy of the permissions, and claims only when there are some', () => {
    const permissions = ['*'];
    const stored = storedCreator({ id: 'static-key', provider: 'static-key', permissions });
    permissions.push('x');
    expect(stored).toEqual({ id: 'static-key', provider: 'static-key', permissions: ['*'] });
  });
});
