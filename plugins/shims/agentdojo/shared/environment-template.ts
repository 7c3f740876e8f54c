/**
 * An environment text parsed once, loaded again for each set of injections without parsing the whole text again.
 * Every attacked unit loads the suite's environment with its own injections (a published-trace replay of
 * workspace has 1,471 distinct sets): YAML-parsing the whole text for each was most of a replay's CPU.
 *
 * The text is parsed once with each `{field}` standing as a marker. The injected text always lands inside a
 * double-quoted scalar (the reference's dump quotes every string), and such a scalar's value depends only on its
 * own source text: its escapes and its line folding. So each injection set re-reads only the scalars holding a
 * marker, each alone, and copies the parsed tree with their new values. Where that is not certain the answer is
 * `undefined` and the caller parses the whole text as before: a marker outside a double-quoted string value, an
 * alias or a tag in the text, an injected `"` (it may end the scalar and change the document's shape), or a
 * scalar read alone that does not parse cleanly into one double-quoted scalar (the whole parse gives the error).
 */
import { isAlias, isNode, isScalar, parseDocument, Scalar, visit, type DocumentOptions, type ParseOptions, type SchemaOptions, type ToJSOptions } from 'yaml';
import type { Json } from '../../../../core/shim.ts';

/** The marker standing for the field numbered `index`: private-use code points, so no environment text spells it. */
const marker = (index: number) => `\uE000${index}\uE001`;
const MARKER = /\uE000(\d+)\uE001/g;

/**
 * A template: the tree with markers, the lists and maps holding a marker at any depth, each marked scalar's source
 * (by its marked value), and the fields' names.
 */
export interface EnvironmentTemplate {
  tree: unknown;
  marked: ReadonlySet<unknown>;
  sources: ReadonlyMap<string, string>;
  fields: readonly string[];
  options: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions;
}

/**
 * The template of `text`, or undefined when it cannot stand for the whole parse. `format` is the caller's
 * `str.format` (it throws on a bad field, and so does the whole parse: undefined then too).
 */
export function environmentTemplate(text: string, format: (text: string, values: Record<string, string>) => string, options: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions): EnvironmentTemplate | undefined {
  if (text.includes('\uE000')) return undefined;
  const fields = [...new Set([...text.matchAll(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].flatMap((match) => (match[1] ? [match[1]] : [])))];
  let marked: string;
  try {
    marked = format(text, Object.fromEntries(fields.map((name, index) => [name, marker(index)])));
  } catch {
    return undefined;
  }
  const document = parseDocument(marked, options);
  if (document.errors.length || document.warnings.length) return undefined;
  const sources = new Map<string, string>();
  let certain = true;
  visit(document, {
    Node(key, node) {
      if (isAlias(node) || (isNode(node) && (node.tag || node.anchor))) certain = false;
      if (!isScalar(node) || typeof node.value !== 'string' || !node.value.includes('\uE000')) return;
      // A key's marker could make two keys one; a plain scalar's value would depend on YAML's implicit types.
      if (key === 'key' || node.type !== Scalar.QUOTE_DOUBLE || !node.range) certain = false;
      else {
        const source = marked.slice(node.range[0], node.range[1]);
        if ((sources.get(node.value) ?? source) !== source) certain = false;
        sources.set(node.value, source);
      }
    },
  });
  if (!certain) return undefined;
  const tree = document.toJS(options);
  const holding = new Set<unknown>();
  holdsMarker(tree, holding);
  return { tree, marked: holding, sources, fields, options };
}

/**
 * The tree `template` stands for with `values` (each field's text, as the whole text would hold it), or
 * undefined when the whole text must be parsed instead.
 */
export function injectTemplate(template: EnvironmentTemplate, values: Readonly<Record<string, string>>): unknown {
  const texts: string[] = [];
  for (const name of template.fields) {
    const value = values[name];
    if (value === undefined || value.includes('"')) return undefined;
    texts.push(value);
  }
  const read = new Map<string, string>();
  for (const [markedValue, source] of template.sources) {
    const value = readScalar(template, source.replace(MARKER, (_, index: string) => texts[Number(index)]!));
    if (value === null) return undefined;
    read.set(markedValue, value);
  }
  return copyWith(template.tree, read, template.marked);
}

// A scalar's injected source repeats across units: each vector gets the default text or one attack's text for one
// injection task, whatever the user task.
// Per template (its parse options); bounded: a full cache starts again empty.
const MAX_READ = 10_000;
const readByTemplate = new WeakMap<EnvironmentTemplate, Map<string, string | null>>();

/** The value of one double-quoted scalar's source, read alone; null when it does not read cleanly as one. */
function readScalar(template: EnvironmentTemplate, injected: string): string | null {
  let readScalars = readByTemplate.get(template);
  if (!readScalars) readByTemplate.set(template, (readScalars = new Map()));
  let value = readScalars.get(injected);
  if (value === undefined) {
    // The line break after it: without one the yaml package reads an unclosed quote (`\"` at the end) silently.
    const document = parseDocument(`${injected}\n`, template.options);
    const scalar = document.contents;
    const clean = !document.errors.length && !document.warnings.length && isScalar(scalar) && scalar.type === Scalar.QUOTE_DOUBLE && scalar.range?.[1] === injected.length && typeof scalar.value === 'string';
    value = clean ? (scalar.value as string) : null;
    if (readScalars.size >= MAX_READ) readScalars.clear();
    readScalars.set(injected, value);
  }
  return value;
}

/** Whether `value` holds a marked string at any depth; the lists and maps that do are added to `marked`. */
function holdsMarker(value: unknown, marked: Set<unknown>): boolean {
  if (typeof value === 'string') return value.includes('\uE000');
  if (!value || typeof value !== 'object') return false;
  let holds = false;
  for (const entry of Object.values(value)) if (holdsMarker(entry, marked)) holds = true;
  if (holds) marked.add(value);
  return holds;
}

/**
 * `value` copied where it holds a marker (`marked`), each string `read` holds replaced by its reading. The rest
 * is shared with the template, never written: the loader copies the tree into the suite's model, then freezes it.
 * Copying the whole tree for every unit showed in a travel and workspace replay's profile.
 */
function copyWith(value: unknown, read: ReadonlyMap<string, string>, marked: ReadonlySet<unknown>): unknown {
  if (typeof value === 'string') return read.get(value) ?? value;
  if (!marked.has(value)) return value;
  if (Array.isArray(value)) return value.map((item) => copyWith(item, read, marked));
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      // As the yaml package builds a map: a key an object already has (`__proto__`) becomes an own property.
      if (key in out) Object.defineProperty(out, key, { value: copyWith(entry, read, marked), writable: true, enumerable: true, configurable: true });
      else out[key] = copyWith(entry, read, marked);
    }
    return out as Json;
  }
  return value;
}
