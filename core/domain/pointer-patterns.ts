/**
 * JSON Pointers (RFC 6901) with `*` segments, naming the parts of a world a gold comparison leaves out: a shim's
 * incidental state (`Shim.incidental`, relative to its view) and a scenario's `ignore_paths` (rooted at the
 * world). A `*` segment stands for any one member or element (`/email/messages/*` then `/read`: every message's
 * read flag); a pointer covers everything under what it names. A segment is unescaped as RFC 6901 says (`~1` is `/`,
 * `~0` is `~`), so a key literally named `*` is covered by a `*` segment too.
 *
 * Patterns become a trie that a comparison walks beside the documents (json-diff.ts), one step per member, so a
 * walk outside every pattern pays nothing.
 */

/** The wildcard segment. */
export const ANY_SEGMENT = '*';

/** A set of pointer patterns as a trie: `covered` where a pattern ends, children by segment (`*` for any). */
export interface PointerTrie {
  covered: boolean;
  children: Map<string, PointerTrie>;
}

/** Why `text` is not an RFC 6901 pointer (a `~` not followed by `0` or `1`, no leading `/`); undefined when it is. */
export function pointerPatternError(text: string): string | undefined {
  if (text !== '' && !text.startsWith('/')) return 'is not a JSON Pointer (RFC 6901): it must be empty or start with "/"';
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '~' && text[index + 1] !== '0' && text[index + 1] !== '1') return `is not a JSON Pointer (RFC 6901): "~" at ${index} must be followed by 0 or 1 ("~0" is "~", "~1" is "/")`;
  }
  return undefined;
}

/** The unescaped segments of a valid pointer (`""` has none). */
export function pointerSegments(text: string): string[] {
  return text === '' ? [] : text.slice(1).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The trie of `patterns` (each a valid pointer; see `pointerPatternError`). */
export function pointerTrie(patterns: Iterable<string>): PointerTrie {
  const root: PointerTrie = { covered: false, children: new Map() };
  for (const pattern of patterns) {
    let node = root;
    for (const segment of pointerSegments(pattern)) {
      let child = node.children.get(segment);
      if (!child) node.children.set(segment, (child = { covered: false, children: new Map() }));
      node = child;
    }
    node.covered = true;
  }
  return root;
}

/** The trie nodes reached from `nodes` by one member or element `key`; empty when no pattern goes on there. */
export function stepPointerTrie(nodes: readonly PointerTrie[], key: string): PointerTrie[] {
  const next: PointerTrie[] = [];
  for (const node of nodes) {
    const exact = node.children.get(key);
    if (exact) next.push(exact);
    const any = key === ANY_SEGMENT ? undefined : node.children.get(ANY_SEGMENT);
    if (any) next.push(any);
  }
  return next;
}

/** True when one of `patterns` covers the pointer `path` (it names the path or something above it). */
export function pointerCovered(patterns: readonly string[], path: string): boolean {
  let nodes = [pointerTrie(patterns)];
  if (nodes[0].covered) return true;
  for (const segment of pointerSegments(path)) {
    nodes = stepPointerTrie(nodes, segment);
    if (nodes.length === 0) return false;
    if (nodes.some((node) => node.covered)) return true;
  }
  return false;
}
