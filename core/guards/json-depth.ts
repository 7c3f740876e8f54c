/**
 * One depth limit where JSON enters (issue 32 item 6, issue 33 item 4). `JSON.parse` accepts any nesting, but
 * much that runs later recurses over a value (JSON Schema validation, canonical JSON, world diffs, structured
 * clones to workers, `JSON.stringify`): 120 KB of `[[[[…]]]]` nested 20,000 levels overflowed the stack there,
 * outside any handler, and left a run `running` for ever. So every body, file, CSV cell, agent answer and tool
 * call's arguments is held to `MAX_JSON_DEPTH` as it is parsed: a request gets a 400 naming the path, an agent a
 * failed call judged as its own.
 *
 * The check scans the text (brackets outside strings), which costs about what parsing does and no recursion;
 * the path is looked for only when the limit is passed.
 */

/** The deepest nesting accepted: far past any real scenario, answer or world, far short of the stack. */
export const MAX_JSON_DEPTH = 128;

/** JSON nested deeper than the limit: `path` is the JSON Pointer of the first value past it. */
export class JsonDepthError extends RangeError {
  constructor(readonly path: string, readonly limit: number) {
    super(`nests deeper than ${limit} levels at ${path || '/'}`);
    this.name = 'JsonDepthError';
  }
}

/**
 * The deepest bracket nesting of a JSON text, ignoring brackets inside strings; stops counting past `stopAt`.
 * A string is skipped with `indexOf` to its closing quote (one not escaped by an odd run of backslashes): most
 * of a scenario file's text is in strings, and the native search skips it several times faster than a loop over
 * its characters (issue 36: this scan cost as much as `JSON.parse` over the 5,028 mounted AES files).
 */
export function textDepth(text: string, stopAt = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      let close = index;
      do {
        close = text.indexOf('"', close + 1);
        // Unterminated: the rest is the string (JSON.parse refuses such a text anyway).
        if (close === -1) return deepest;
      } while (escaped(text, close));
      index = close;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stopAt) return deepest;
      }
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it (the string's opening quote stops the run). */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

const escapeSegment = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The JSON Pointer of the first value nested deeper than `limit` levels, or `undefined`; iterative, any depth. */
export function tooDeepPath(value: unknown, limit = MAX_JSON_DEPTH): string | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length) {
    const { value: current, path, depth } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return path;
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) stack.push({ value: current[index], path: `${path}/${index}`, depth: depth + 1 });
    } else {
      for (const key of Object.keys(current).reverse()) stack.push({ value: (current as Record<string, unknown>)[key], path: `${path}/${escapeSegment(key)}`, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Throws `JsonDepthError` when a parsed value is nested deeper than `limit`. */
export function assertDepth(value: unknown, limit = MAX_JSON_DEPTH): void {
  const path = tooDeepPath(value, limit);
  if (path !== undefined) throw new JsonDepthError(path, limit);
}

/**
 * `JSON.parse` held to the depth limit: a text nested deeper throws `JsonDepthError` naming the path (syntax
 * errors are `JSON.parse`'s own; callers word them).
 */
export function parseWithinDepth(text: string, limit = MAX_JSON_DEPTH): unknown {
  const value = JSON.parse(text) as unknown;
  if (textDepth(text, limit) > limit) assertDepth(value, limit);
  return value;
}

/** What stands in a pruned value for the part nested past the limit. */
export const TOO_DEEP = `[nested deeper than ${MAX_JSON_DEPTH} levels]`;

/**
 * A copy of `value` with every object or array nested past `limit` replaced by `TOO_DEEP` (the value itself
 * when nothing is that deep); iterative, so any depth is safe. For agent answers: the answer is still judged
 * (a forbidden tool's name is still seen), and the too-deep part can no longer overflow anything later.
 */
export function pruneDeep(value: unknown, limit = MAX_JSON_DEPTH): unknown {
  if (tooDeepPath(value, limit) === undefined) return value;
  const root: { value: unknown } = { value: undefined };
  const stack: Array<{ source: unknown; depth: number; assign: (copy: unknown) => void }> = [{ source: value, depth: 0, assign: (copy) => (root.value = copy) }];
  while (stack.length) {
    const { source, depth, assign } = stack.pop()!;
    if (source === null || typeof source !== 'object') {
      assign(source);
      continue;
    }
    if (depth + 1 > limit) {
      assign(TOO_DEEP);
      continue;
    }
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array(source.length);
      assign(copy);
      source.forEach((item, index) => stack.push({ source: item, depth: depth + 1, assign: (child) => (copy[index] = child) }));
    } else {
      const copy: Record<string, unknown> = {};
      assign(copy);
      for (const [key, item] of Object.entries(source)) stack.push({ source: item, depth: depth + 1, assign: (child) => (copy[key] = child) });
    }
  }
  return root.value;
}

/** `JSON.parse` of an agent's text with the part nested past the limit pruned (`pruneDeep`). */
export function parseAgentJson(text: string, limit = MAX_JSON_DEPTH): unknown {
  const value = JSON.parse(text) as unknown;
  return textDepth(text, limit) > limit ? pruneDeep(value, limit) : value;
}

/** The deepest a tool call's arguments may nest: deeper, the call is the agent's failed call (`invalid`). */
export const MAX_ARGUMENT_DEPTH = 64;

/** Why a tool call's arguments are refused for their depth (naming where), or `undefined` when they are not. */
export function argumentsDepthRefusal(args: unknown): string | undefined {
  const path = tooDeepPath(args, MAX_ARGUMENT_DEPTH);
  return path === undefined ? undefined : `the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels at ${path}`;
}
