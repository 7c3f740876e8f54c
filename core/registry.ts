/**
 * A named registry for one kind of extension (metrics, mutators, agent adapters, signers, ...).
 * Plugins register during start-up; a duplicate name fails the start, and registering after start throws,
 * so what a running service offers never changes under a request.
 */

export interface Registry<T> {
  /** What the registry holds, for error messages ("metric", "mutator"). */
  readonly kind: string;
  register(item: T, owner?: string): T;
  get(name: string): T | undefined;
  has(name: string): boolean;
  /** Registered names, in registration order. */
  names(): string[];
  list(): T[];
  /** The plugin that registered an item. */
  ownerOf(name: string): string | undefined;
  freeze(): void;
}

/** Creates a registry keyed by `nameOf(item)`. */
export function createRegistry<T>(kind: string, nameOf: (item: T) => string): Registry<T> {
  const items = new Map<string, { item: T; owner?: string }>();
  let frozen = false;
  return {
    kind,
    register(item, owner) {
      const name = nameOf(item);
      if (frozen) throw new Error(`cannot register ${kind} "${name}" after the service started`);
      if (!name) throw new Error(`a ${kind} needs a name`);
      const existing = items.get(name);
      if (existing) {
        throw new Error(`${kind} "${name}" is registered twice (by ${existing.owner ?? 'the core'} and ${owner ?? 'the core'})`);
      }
      items.set(name, { item, owner });
      return item;
    },
    get: (name) => items.get(name)?.item,
    has: (name) => items.has(name),
    names: () => [...items.keys()],
    list: () => [...items.values()].map((entry) => entry.item),
    ownerOf: (name) => items.get(name)?.owner,
    freeze() {
      frozen = true;
    },
  };
}
