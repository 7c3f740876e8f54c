/**
 * The JSON paths of scenario assertions (`property`): a small, linear subset of JSONPath (RFC 9535) that needs
 * no expression engine, so a scenario can never run code: `$` (or nothing) for the root, `.name` or `['name']`
 * for a member, `[0]` / `[-1]` for an element, `[*]` or `.*` for every member or element. `/a/0/b` (a JSON
 * Pointer, RFC 6901) is accepted too. A path that does not parse is an error, never a silent miss.
 */

export type PathSegment = { member: string } | { index: number } | { wildcard: true };

const SIMPLE_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*/;

/** Parses a path into segments; throws with the position of the first thing it cannot read. */
export function parsePath(path: string): PathSegment[] {
  const text = path.trim();
  if (text === '' || text === '$') return [];
  if (text.startsWith('/')) {
    return text.slice(1).split('/').map((part) => {
      const name = part.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^(?:0|[1-9][0-9]*)$/.test(name) ? { index: Number(name) } : { member: name };
    });
  }
  const segments: PathSegment[] = [];
  let position = text.startsWith('$') ? 1 : 0;
  // A leading bare name (`orders[0].id`) reads like `.orders`.
  if (position === 0 && SIMPLE_NAME.test(text)) {
    const name = SIMPLE_NAME.exec(text)![0];
    segments.push({ member: name });
    position = name.length;
  }
  while (position < text.length) {
    const rest = text.slice(position);
    if (rest.startsWith('.*')) {
      segments.push({ wildcard: true });
      position += 2;
    } else if (rest.startsWith('.')) {
      const name = SIMPLE_NAME.exec(rest.slice(1));
      if (!name) throw new Error(`expected a member name at position ${position + 1} of "${path}"`);
      segments.push({ member: name[0] });
      position += 1 + name[0].length;
    } else if (rest.startsWith('[*]')) {
      segments.push({ wildcard: true });
      position += 3;
    } else if (/^\[-?\d{1,9}\]/.test(rest)) {
      const match = /^\[(-?\d{1,9})\]/.exec(rest)!;
      segments.push({ index: Number(match[1]) });
      position += match[0].length;
    } else if (/^\['[^'\\]{0,500}'\]/.test(rest) || /^\["[^"\\]{0,500}"\]/.test(rest)) {
      const match = /^\[(['"])(.*?)\1\]/.exec(rest)!;
      segments.push({ member: match[2] });
      position += match[0].length;
    } else {
      throw new Error(`cannot read "${rest.slice(0, 20)}" at position ${position} of "${path}"`);
    }
  }
  return segments;
}

/** Every value the path selects in `root`, in document order; empty when nothing is there. */
export function select(root: unknown, segments: readonly PathSegment[]): unknown[] {
  let current: unknown[] = [root];
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if ('wildcard' in segment) {
        if (Array.isArray(value)) next.push(...value);
        else if (value && typeof value === 'object') next.push(...Object.values(value));
      } else if ('index' in segment) {
        if (Array.isArray(value)) {
          const index = segment.index < 0 ? value.length + segment.index : segment.index;
          if (index >= 0 && index < value.length) next.push(value[index]);
        }
      } else if (value && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, segment.member)) {
        next.push((value as Record<string, unknown>)[segment.member]);
      }
    }
    current = next;
  }
  return current;
}
