import { describe, it, expect } from 'vitest';
import { definePlugin, loadPlugins, PluginError, type OverrideThis, type Plugin } from './plugin.ts';
import { createHost, type HostInternals } from './plugin-host.ts';
import { parseConfig } from './config.ts';
import type { AuthManagerInstance } from './auth-manager.ts';

function host(): HostInternals {
  return createHost(parseConfig({ DASHBOARD_API_KEY: 'k'.repeat(64), AEH_STORAGE: 'memory' }), { runtime: { name: 'test', version: '0' } });
}

/** A plugin that records when its setup ran. */
function recorder(name: string, order: string[], extra: Partial<Plugin> = {}): Plugin {
  return { name, setup: () => void order.push(name), ...extra };
}

describe('core: plugin loading', () => {
  it('initialises plugins in registration order and returns their names', () => {
    const order: string[] = [];
    expect(loadPlugins(host(), [recorder('a', order), recorder('b', order), recorder('c', order)])).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('initialises dependencies first, whatever the registration order', () => {
    const order: string[] = [];
    loadPlugins(host(), [recorder('app', order, { dependencies: ['db', 'cache'] }), recorder('cache', order, { dependencies: ['db'] }), recorder('db', order)]);
    expect(order).toEqual(['db', 'cache', 'app']);
  });

  it('fails on two plugins with one name, naming it', () => {
    expect(() => loadPlugins(host(), [{ name: 'twin' }, { name: 'twin' }])).toThrow('plugin "twin": the name is used by two plugins');
  });

  it('fails on a missing dependency, naming both plugins', () => {
    expect(() => loadPlugins(host(), [{ name: 'needy', dependencies: ['ghost'] }])).toThrow('plugin "needy": depends on "ghost", which is not loaded');
  });

  it('fails on a circular dependency more than one level deep, showing the cycle', () => {
    const plugins = [{ name: 'a', dependencies: ['b'] }, { name: 'b', dependencies: ['c'] }, { name: 'c', dependencies: ['a'] }];
    expect(() => loadPlugins(host(), plugins)).toThrow('circular dependency: a -> b -> c -> a');
  });

  it('fails on a self-dependency', () => {
    expect(() => loadPlugins(host(), [{ name: 'narcissus', dependencies: ['narcissus'] }])).toThrow(/circular dependency: narcissus -> narcissus/);
  });

  it('names the plugin whose setup throws, keeping the cause', () => {
    const error = (() => {
      try {
        loadPlugins(host(), [{ name: 'fine' }, { name: 'broken', setup: () => { throw new RangeError('bad option'); } }]);
      } catch (caught) {
        return caught as PluginError;
      }
    })();
    expect(error).toBeInstanceOf(PluginError);
    expect(error?.plugin).toBe('broken');
    expect(error?.message).toBe('plugin "broken": setup failed: bad option');
    expect(error?.cause).toBeInstanceOf(RangeError);
  });

  it('names the dependency, not the dependant, when the dependency throws', () => {
    const plugins = [{ name: 'top', dependencies: ['bottom'] }, { name: 'bottom', setup: () => { throw new Error('nope'); } }];
    expect(() => loadPlugins(host(), plugins)).toThrow('plugin "bottom": setup failed: nope');
  });

  it('names a plugin whose enabled() throws', () => {
    expect(() => loadPlugins(host(), [{ name: 'moody', enabled: () => { throw new Error('no config'); } }])).toThrow('plugin "moody": enabled() failed: no config');
  });

  it('refuses a boolean enabled (pluggable.js 3.0.1 crashes on it)', () => {
    expect(() => loadPlugins(host(), [{ name: 'flag', enabled: false } as unknown as Plugin])).toThrow('plugin "flag": enabled must be a function');
  });

  it.each([
    ['a nameless object', { setup() {} }, /must be an object with a name/],
    ['a string', 'plugin', /must be an object with a name/],
    ['a bad name', { name: 'has spaces' }, /plugin "has spaces": the name must be/],
    ['a non-function setup', { name: 'x', setup: 'yes' }, /setup must be a function/],
    ['dependencies that are not names', { name: 'x', dependencies: 'y' }, /dependencies must be an array/],
  ])('refuses %s', (_, plugin, message) => {
    expect(() => loadPlugins(host(), [plugin as unknown as Plugin])).toThrow(message);
  });

  it('skips a plugin whose enabled() is false', () => {
    const order: string[] = [];
    expect(loadPlugins(host(), [recorder('on', order), recorder('off', order, { enabled: () => false })])).toEqual(['on']);
    expect(order).toEqual(['on']);
  });

  it('honours allow and deny lists', () => {
    const order: string[] = [];
    const plugins = () => [recorder('a', order), recorder('b', order), recorder('c', order)];
    expect(loadPlugins(host(), plugins(), { allow: ['a', 'c'] })).toEqual(['a', 'c']);
    expect(loadPlugins(host(), plugins(), { deny: ['b'] })).toEqual(['a', 'c']);
  });

  it('fails when a dependency is denied or disabled instead of initialising the dependant without it', () => {
    const plugins = [{ name: 'base' }, { name: 'child', dependencies: ['base'] }];
    expect(() => loadPlugins(host(), plugins, { deny: ['base'] })).toThrow('plugin "child": depends on "base", which is disabled or denied');
    const disabled = [{ name: 'base', enabled: () => false }, { name: 'child', dependencies: ['base'] }];
    expect(() => loadPlugins(host(), disabled)).toThrow(/disabled or denied/);
  });

  it('does not mutate the plugin objects, so one module can be loaded into many apps', () => {
    const plugin = Object.freeze({ name: 'shared', dependencies: Object.freeze(['dep']) as string[], setup() {} });
    const dep = Object.freeze({ name: 'dep' });
    loadPlugins(host(), [plugin, dep]);
    expect(() => loadPlugins(host(), [plugin, dep])).not.toThrow();
    expect(Object.keys(plugin)).toEqual(['name', 'dependencies', 'setup']);
  });

  it('tags start hooks with their plugin so a failing hook names it', async () => {
    const h = host();
    loadPlugins(h, [{ name: 'late-failure', setup: (scoped) => scoped.onStart(() => { throw new Error('no database'); }) }]);
    await expect(h.startHooks[0]({} as never)).rejects.toThrow('plugin "late-failure": start hook failed: no database');
  });

  it('makes registries refuse registrations once the host is frozen', () => {
    const h = host();
    let saved: HostInternals | undefined;
    loadPlugins(h, [{ name: 'sneaky', setup: (scoped) => { saved = scoped as HostInternals; } }]);
    h.freeze();
    expect(() => saved!.metrics.register({ id: 'late' } as never, 'sneaky')).toThrow('cannot register metric "late" after the service started');
    expect(() => saved!.onStart(() => undefined)).toThrow('after the service started');
  });
});

describe('core: plugin overrides', () => {
  it('extends the AuthManager class, calling the original through __super__', () => {
    const h = host();
    loadPlugins(h, [{
      name: 'groups-mapping',
      overrides: {
        AuthManager: {
          permissionsFromClaims(this: OverrideThis<AuthManagerInstance>, claims: Record<string, unknown>) {
            const base = this.__super__.permissionsFromClaims(claims);
            return (claims.groups as string[] | undefined)?.includes('qa') ? [...base, 'evaluations:launch'] : base;
          },
        },
      },
    }]);
    const manager = new h.AuthManager({ allowQueryKey: true });
    expect(manager.permissionsFromClaims({ roles: ['viewer'], groups: ['qa'] })).toContain('evaluations:launch');
    expect(manager.permissionsFromClaims({ roles: ['viewer'], groups: ['qa'] })).toContain('runs:read');
    expect(manager.permissionsFromClaims({ roles: ['viewer'] })).not.toContain('evaluations:launch');
  });

  it('chains two overrides of one method in load order', () => {
    const h = host();
    const adds = (name: string, node: string): Plugin => ({
      name,
      overrides: {
        AuthManager: {
          permissionsFromClaims(this: OverrideThis<AuthManagerInstance>, claims: Record<string, unknown>) {
            return [...this.__super__.permissionsFromClaims(claims), node];
          },
        },
      },
    });
    loadPlugins(h, [adds('first', 'a:one'), adds('second', 'b:two')]);
    expect(new h.AuthManager({ allowQueryKey: true }).permissionsFromClaims({ permissions: ['x:y'] })).toEqual(['x:y', 'a:one', 'b:two']);
  });

  it('changes only the app it was loaded into', () => {
    const extended = host();
    const plain = host();
    loadPlugins(extended, [{ name: 'everything', overrides: { AuthManager: { permissionsFromClaims: () => ['*'] } } }]);
    loadPlugins(plain, []);
    expect(new extended.AuthManager({ allowQueryKey: true }).permissionsFromClaims({})).toEqual(['*']);
    expect(new plain.AuthManager({ allowQueryKey: true }).permissionsFromClaims({})).toEqual([]);
  });

  it('fails clearly when overriding something the host does not have', () => {
    expect(() => loadPlugins(host(), [{ name: 'typo', overrides: { AuthManger: { permissionsFromClaims() { return []; } } } }]))
      .toThrow('plugin "typo": overrides "AuthManger", which the host does not have');
  });

  it('fails clearly when overriding a non-class member with methods', () => {
    expect(() => loadPlugins(host(), [{ name: 'odd', overrides: { config: { port() { return 1; } } } }])).toThrow('overrides "config" with methods, but it is not a class');
  });
});

describe('core: definePlugin', () => {
  it('returns the plugin frozen', () => {
    const plugin = definePlugin({ name: 'frozen', setup() {} });
    expect(Object.isFrozen(plugin)).toBe(true);
  });

  it('checks the definition', () => {
    expect(() => definePlugin({ name: '' })).toThrow();
    expect(() => definePlugin({ name: 'ok', enabled: true as never })).toThrow(/enabled must be a function/);
  });
});
