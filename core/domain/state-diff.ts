/**
 * The RFC 6902 diff of a shim's state after a call. Shims return new states that share every unchanged part
 * with the old one (core/shim.ts asks them never to mutate), so the diff skips identical references and costs
 * what changed, not what the state holds: fast-json-patch's `compare` walks the whole state, 50 µs for a
 * 200-key store (bench/shim-call.mjs). Appends to an array become `add` operations; other array changes of
 * length replace the array. The result applies with any RFC 6902 implementation (tested with fast-json-patch).
 */

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

/** RFC 6901: `~` and `/` escaped in a path segment. */
export function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function diffInto(before: unknown, after: unknown, path: string, operations: PatchOperation[]): void {
  if (before === after) return;
  if (Array.isArray(before) && Array.isArray(after)) {
    if (after.length >= before.length) {
      // Identity first: a τ-bench table is an array of 1,000 records of which a call replaces one, and a path
      // built per element cost ~25 µs per write.
      for (let index = 0; index < before.length; index++) if (before[index] !== after[index]) diffInto(before[index], after[index], `${path}/${index}`, operations);
      for (let index = before.length; index < after.length; index++) operations.push({ op: 'add', path: `${path}/${index}`, value: after[index] });
    } else {
      operations.push({ op: 'replace', path, value: after });
    }
    return;
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    // for…in without Object.keys: a 200-key store diffs in ~4 µs instead of ~40 (no key arrays allocated).
    let beforeCount = 0;
    let removed = 0;
    for (const key in before) {
      beforeCount++;
      const value = after[key];
      if (value === before[key]) continue;
      if (!Object.hasOwn(after, key)) {
        removed++;
        operations.push({ op: 'remove', path: `${path}/${pointerSegment(key)}` });
      } else diffInto(before[key], value, `${path}/${pointerSegment(key)}`, operations);
    }
    let afterCount = 0;
    for (const _key in after) afterCount++;
    if (afterCount > beforeCount - removed) {
      for (const key in after) if (!Object.hasOwn(before, key)) operations.push({ op: 'add', path: `${path}/${pointerSegment(key)}`, value: after[key] });
    }
    return;
  }
  // Different primitives, or a change of kind: equal primitives were caught by `===` (NaN never occurs in JSON).
  operations.push({ op: 'replace', path, value: after });
}

/** The operations that turn `before` into `after` (both plain JSON). */
export function stateDiff(before: unknown, after: unknown): PatchOperation[] {
  const operations: PatchOperation[] = [];
  diffInto(before, after, '', operations);
  return operations;
}

/** `stateDiff` of two values at `path` of a larger document, appended to `operations` (a shim's `viewDiff`). */
export function stateDiffInto(before: unknown, after: unknown, path: string, operations: PatchOperation[]): void {
  diffInto(before, after, path, operations);
}

/** Resolves an RFC 6901 path into its segments. */
function segmentsOf(path: string): string[] {
  return path === '' ? [] : path.slice(1).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Applies operations made by `stateDiff` to a copy of `document`. Members are defined as own data properties,
 * so a key an agent chose (`__proto__`, `constructor`) is an ordinary key, never a prototype change.
 */
export function applyStateDiff<T>(document: T, operations: readonly PatchOperation[]): T {
  const root = { value: structuredClone(document) as unknown };
  for (const operation of operations) {
    const parts = ['value', ...segmentsOf(operation.path)];
    const last = parts.pop()!;
    let parent: unknown = root;
    for (const part of parts) parent = Array.isArray(parent) ? parent[Number(part)] : (parent as Record<string, unknown>)[part];
    if (parent === null || typeof parent !== 'object') throw new Error(`no container at ${operation.path}`);
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (operation.op === 'remove') parent.splice(index, 1);
      else if (operation.op === 'add') parent.splice(index, 0, structuredClone(operation.value));
      else parent[index] = structuredClone(operation.value);
    } else if (operation.op === 'remove') {
      delete (parent as Record<string, unknown>)[last];
    } else {
      Object.defineProperty(parent, last, { value: structuredClone(operation.value), writable: true, enumerable: true, configurable: true });
    }
  }
  return root.value as T;
}

/**
 * Applies operations made by `stateDiff` without copying `document`: only the containers on each operation's
 * path are copied (once), everything else is shared with `document`. For results that are read, never
 * mutated (a world rebuilt to be serialised, core/domain/packed-evidence.ts): 30 finals of a 1 MB world cost
 * what their diffs touch, not 30 deep copies. Keys are defined as own data properties, as `applyStateDiff` does.
 */
export function applyStateShared<T>(document: T, operations: readonly PatchOperation[]): T {
  const copied = new Set<object>();
  const copy = (value: object): object => {
    if (copied.has(value)) return value;
    let fresh: object;
    if (Array.isArray(value)) fresh = value.slice();
    else {
      fresh = {};
      for (const key of Object.keys(value)) Object.defineProperty(fresh, key, { value: (value as Record<string, unknown>)[key], writable: true, enumerable: true, configurable: true });
    }
    copied.add(fresh);
    return fresh;
  };
  const root = { value: document as unknown };
  copied.add(root);
  for (const operation of operations) {
    const parts = ['value', ...segmentsOf(operation.path)];
    const last = parts.pop()!;
    let parent: Record<string, unknown> | unknown[] = root;
    for (const part of parts) {
      const child = Array.isArray(parent) ? parent[Number(part)] : parent[part];
      if (child === null || typeof child !== 'object') throw new Error(`no container at ${operation.path}`);
      const own = copy(child);
      if (Array.isArray(parent)) parent[Number(part)] = own;
      else Object.defineProperty(parent, part, { value: own, writable: true, enumerable: true, configurable: true });
      parent = own as Record<string, unknown> | unknown[];
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (operation.op === 'remove') parent.splice(index, 1);
      else if (operation.op === 'add') parent.splice(index, 0, operation.value);
      else parent[index] = operation.value;
    } else if (operation.op === 'remove') {
      delete parent[last];
    } else {
      Object.defineProperty(parent, last, { value: operation.value, writable: true, enumerable: true, configurable: true });
    }
  }
  return root.value as T;
}
