import { describe, it, expect } from 'vitest';
import { moduleLoaded, provideModule, requireLazily } from './lazy-module.ts';

describe('lazy modules', () => {
  it('requires a package on first use, once, and prefers a provided one', () => {
    expect(moduleLoaded('ipaddr.js')).toBe(false);
    const first = requireLazily<{ isValid(address: string): boolean }>('ipaddr.js', import.meta.url);
    expect(first.isValid('127.0.0.1')).toBe(true);
    expect(moduleLoaded('ipaddr.js')).toBe(true);
    expect(requireLazily('ipaddr.js', import.meta.url)).toBe(first);
    const provided = { provided: true };
    provideModule('aeh-test-provided', provided);
    expect(requireLazily('aeh-test-provided', import.meta.url)).toBe(provided);
  });

  it('names a package that cannot be found', () => {
    expect(() => requireLazily('aeh-no-such-package', import.meta.url)).toThrow(/aeh-no-such-package/);
  });
});
