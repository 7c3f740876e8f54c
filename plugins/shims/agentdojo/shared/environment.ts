/**
 * An AgentDojo environment as the reference loads it (task_suite/task_suite.py at 96046ab54): `environment.yaml`
 * read with its `!include`s, dumped back to text with every string double-quoted (`read_suite_file`), the
 * injections put in with Python's `str.format`, and that text YAML-loaded and validated into the suite's model.
 * The injected text is therefore read as the inside of a double-quoted YAML scalar: `\n` in it is an escape, a
 * raw line break folds into a space, and a line break PyYAML put into a long string meets it where it falls.
 *
 * Here the dumped text is the scenario's `initial_state.<shim>.environment_text`, and its `injections` map each
 * `{name}` field to the harness's vector `{{injection:name}}` (core/domain/injection.ts), which the engine renders
 * (the attack's text, the canary, or the vector's default) before the shim formats and loads the text as the
 * reference does.
 */
import { parse, type CollectionTag, type DocumentOptions, type ParseOptions, type ScalarTag, type SchemaOptions, type ToJSOptions } from 'yaml';
import type { Json } from '../../../../core/shim.ts';
import { PyFloat } from './python.ts';
import { coerce, type PyType } from './types.ts';
import { pyYamlDump } from './yaml-dump.ts';
import { environmentTemplate, injectTemplate, type EnvironmentTemplate } from './environment-template.ts';

type Tag = NonNullable<SchemaOptions['customTags']> extends infer T ? (T extends Array<infer U> ? U : never) : never;
type Tags = Tag[];

/** YAML 1.1 (PyYAML's SafeLoader), floats kept as floats (`1810.0` dumps back as `1810.0`), `!include` resolved. */
function loaderTags(includes: Readonly<Record<string, string>> | undefined, keepFloats: boolean): (tags: Tags) => Tags {
  return (tags) => {
    const out: Tags = tags.map((tag) => {
      if (!keepFloats || typeof tag !== 'object' || tag.tag !== 'tag:yaml.org,2002:float' || !('resolve' in tag)) return tag;
      const resolve = (tag as ScalarTag).resolve;
      return { ...tag, resolve: (...args: Parameters<typeof resolve>) => new PyFloat(Number(resolve(...args))) } as ScalarTag;
    });
    out.push({
      tag: '!include',
      resolve(path: string) {
        const text = includes?.[path];
        if (text === undefined) throw new Error(`!include ${path}: the suite's data does not hold it`);
        return readYaml(text, includes, keepFloats) as never;
      },
    } as ScalarTag);
    return out;
  };
}

type ReadOptions = ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions;
const readOptions = (includes: Readonly<Record<string, string>> | undefined, keepFloats: boolean): ReadOptions =>
  ({ version: '1.1', customTags: loaderTags(includes, keepFloats), maxAliasCount: -1, uniqueKeys: false, intAsBigInt: false });

function readYaml(text: string, includes: Readonly<Record<string, string>> | undefined, keepFloats: boolean): unknown {
  return parse(text, readOptions(includes, keepFloats));
}

/** The `!include` paths an environment text names, for a reader to fetch before `environmentTemplate`. */
export function includesOf(text: string): string[] {
  return [...new Set([...text.matchAll(/!include\s+(\S+)/g)].map((match) => match[1]!))];
}

/** Python's `str.format` fields of a text: `{name}` (a `{{` or `}}` is a literal brace, a single brace an error). */
const FORMAT_FIELD = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}|[{}]/g;

/** Python's `text.format(**values)` for plain `{name}` fields. */
export function pyFormat(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(FORMAT_FIELD, (whole, name: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    if (name === undefined) throw new Error(`ValueError: Single '${whole}' encountered in format string`);
    if (!Object.hasOwn(values, name)) throw new Error(`KeyError: '${name}'`);
    return values[name]!;
  });
}

/** `environmentText`'s last results, by the JSON of its arguments. */
const madeTexts = new Map<string, string>();

/**
 * The environment text as the reference dumps it (`read_suite_file`): `environment.yaml` (and the files it
 * includes) in, the text with its `str.format` fields (`{injection_bill_text}`) out. A field that names no
 * vector is an error here, as the reference's `format` raises on it.
 */
export function environmentText(environmentYaml: string, vectors: readonly string[], includes?: Readonly<Record<string, string>>): string {
  // A pure function of its inputs, and a bench builds each suite's scenario once per model, version and run
  // (issue 36: reading and dumping the YAML was ~7% of `aeh bench agentdojo`): the last few texts are kept.
  const key = JSON.stringify([environmentYaml, vectors, includes ?? null]);
  const made = madeTexts.get(key);
  if (made !== undefined) return made;
  const dumped = pyYamlDump(readYaml(environmentYaml, includes, true), '"');
  try {
    pyFormat(dumped, Object.fromEntries(vectors.map((name) => [name, ''])));
  } catch (error) {
    throw new Error(`the environment text cannot be formatted with the vectors injection_vectors.yaml declares (${vectors.join(', ')}): ${(error as Error).message}`);
  }
  madeTexts.set(key, dumped);
  // One per bundled suite; the oldest goes first.
  if (madeTexts.size > 4) madeTexts.delete(madeTexts.keys().next().value!);
  return dumped;
}

const LINE_BREAK = /\r\n|[\r\n\x85\u2028\u2029]/g;

/**
 * An injected text made readable by the `yaml` package as PyYAML reads it inside the double-quoted scalar it
 * lands in. PyYAML does not check the indentation of a quoted scalar's continuation lines, only that none starts
 * with a document marker; the YAML spec, which the package follows, ends the scalar at a line indented no deeper
 * than its parent. Leading white space of a continuation line is folded away either way, so each line break of
 * the injection gets spaces after it, and a line PyYAML would refuse is refused here.
 */
function asQuotedContinuation(text: string, indent: string): string {
  return text.replace(LINE_BREAK, (lineBreak, offset: number) => {
    const next = text.slice(offset + lineBreak.length, offset + lineBreak.length + 4);
    if (/^(?:---|\.\.\.)(?:[\0 \t\r\n\x85\u2028\u2029]|$)/.test(next)) throw new Error('while scanning a quoted scalar: found unexpected document separator');
    return lineBreak + indent;
  });
}

/** The environment text with its injections put in, as the reference's `environment_text.format(**injections)`. */
export function injectEnvironment(text: string, injections: Readonly<Record<string, string>>): string {
  return pyFormat(text, injectedValues(text, injections));
}

// The text of the last call and its indent: a run loads the same text for each of its units, and measuring its
// lines each time showed in a replay's profile.
let measured: { text: string; indent: string } | undefined;
/** Deeper than any line the dump writes: the scalar's own indent is at most that. */
function continuationIndent(text: string): string {
  if (measured?.text !== text) measured = { text, indent: ' '.repeat(Math.min(200, (text.match(/^ */gm) ?? []).reduce((deepest, spaces) => Math.max(deepest, spaces.length), 0) + 1)) };
  return measured.indent;
}

/** Each field's text as `injectEnvironment` puts it into `text`. */
function injectedValues(text: string, injections: Readonly<Record<string, string>>): Record<string, string> {
  const indent = continuationIndent(text);
  return Object.fromEntries(Object.entries(injections).map(([name, value]) => [name, asQuotedContinuation(value, indent)]));
}

/** The injection vectors of `injection_vectors.yaml`: each one's description and default text, in file order. */
export function vectorsOf(injectionVectorsYaml: string): Record<string, { description: string; default: string }> {
  const loaded = parse(injectionVectorsYaml, { version: '1.1' }) as Record<string, { description: unknown; default: unknown }>;
  const out: Record<string, { description: string; default: string }> = {};
  for (const [name, vector] of Object.entries(loaded ?? {})) {
    if (typeof vector?.default !== 'string' || typeof vector.description !== 'string') throw new Error(`injection vector ${name} needs a description and a default string`);
    out[name] = { description: vector.description, default: vector.default };
  }
  return out;
}

/**
 * The environment state from the dumped text and the injections (every vector's text): formatted, YAML-loaded
 * as PyYAML's `safe_load` reads it and validated into the suite's model, as `load_and_inject_default_environment`
 * does.
 */
export function loadEnvironment(text: string, injections: Readonly<Record<string, string>>, environment: PyType): Json {
  const values = injectedValues(text, injections);
  const template = templateOf(text);
  const tree = template && injectTemplate(template, values);
  return coerce(tree ?? parse(pyFormat(text, values), readOptions(undefined, false)), environment);
}

// A few texts at most (a suite's default environment, the scenarios' own): each template holds its parsed tree.
const MAX_TEMPLATES = 8;
const templates = new Map<string, EnvironmentTemplate | null>();
function templateOf(text: string): EnvironmentTemplate | undefined {
  let template = templates.get(text);
  if (template === undefined) {
    template = environmentTemplate(text, pyFormat, readOptions(undefined, false)) ?? null;
    if (templates.size >= MAX_TEMPLATES) templates.delete(templates.keys().next().value!);
    templates.set(text, template);
  }
  return template ?? undefined;
}
