/**
 * The two ways a plugin changes a host class, with pluggable.js's quirks kept in here.
 *
 * `mapClaims` (preferred): `(claims, next, { permissionsOfRole }) => permissions`, composed in load order around
 * the built-in mapping, so a plugin never touches `__super__`.
 *
 * `overrides` (the spec's "extending the AuthManager class through the plugin system"): pluggable.js keeps the
 * replaced methods on `__super__`, one object on the class prototype shared by every instance and re-bound on
 * each call. An async override that read `this.__super__` after an `await` could so call the original on
 * another request's instance. `containSuper` snapshots `__super__` when the override is entered and gives the
 * override a `this` on which `__super__` is that snapshot, so reading it late is safe.
 */
import type { AuthManagerClass, AuthManagerInstance } from './auth-manager.ts';

/** What a claims mapper may use besides the next mapping. */
export interface ClaimsMappingTools {
  /** The permissions of a role of the contract's table, `undefined` for an unknown role. */
  permissionsOfRole(role: string): readonly string[] | undefined;
}

export type ClaimsMapper = (claims: Record<string, unknown>, next: (claims: Record<string, unknown>) => string[], tools: ClaimsMappingTools) => string[];

/** The AuthManager class with the plugins' mappers around `permissionsFromClaims`, the last loaded outermost. */
export function composeClaimMappers(Base: AuthManagerClass, mappers: Array<{ plugin: string; map: ClaimsMapper }>): AuthManagerClass {
  return class extends (Base as new (...args: ConstructorParameters<AuthManagerClass>) => AuthManagerInstance) {
    override permissionsFromClaims(claims: Record<string, unknown>): string[] {
      const tools: ClaimsMappingTools = { permissionsOfRole: (role) => this.permissionsOfRole(role) };
      let next = (given: Record<string, unknown>) => super.permissionsFromClaims(given);
      for (const { plugin, map } of mappers) {
        const inner = next;
        next = (given) => {
          const granted = map(given, inner, tools);
          if (!Array.isArray(granted) || granted.some((node) => typeof node !== 'string')) throw new Error(`plugin "${plugin}": mapClaims must return a list of permission names`);
          return granted;
        };
      }
      return next(claims);
    }
  };
}

type Method = (this: Record<string, unknown>, ...args: unknown[]) => unknown;

function withCapturedSuper(method: Method): Method {
  return function capturedSuper(...args) {
    const shared = this.__super__ as Record<string, unknown> | undefined;
    if (!shared) return method.apply(this, args);
    const captured = { ...shared };
    const self = new Proxy(this, {
      get: (target, key) => (key === '__super__' ? captured : Reflect.get(target, key, target)),
      set: (target, key, value) => Reflect.set(target, key, value, target),
    });
    return method.apply(self, args);
  };
}

/** Overrides as pluggable.js receives them: class-method overrides wrapped by `withCapturedSuper`. */
export function containSuper(overrides: Record<string, unknown>): Record<string, unknown> {
  const contained: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (typeof value !== 'object' || value === null) {
      contained[key] = value;
      continue;
    }
    contained[key] = Object.fromEntries(Object.entries(value).map(([name, member]) => [name, typeof member === 'function' ? withCapturedSuper(member as Method) : member]));
  }
  return contained;
}
