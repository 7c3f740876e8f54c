/**
 * PyYAML's `safe_dump` and AgentDojo's quoted `dump` (every string double-quoted: `yaml_loader.py`'s
 * `quoted_presenter`), both in block style with sorted keys, as the `yaml` package writes them with PyYAML's
 * scalars (pyyaml-scalar.ts): the package lays out mappings and sequences as PyYAML does once sequences are not
 * indented under their key (`indentSeq: false`), and calls our string, float and plain-text tags for scalars.
 *
 * A PyYAML scalar breaks its lines by the column it starts at, which the package's stringify context tells: a
 * mapping value gets `indentAtStart` (the key's length plus ": ") under an indent one step past its key; a
 * sequence item starts at its indent; a key (`implicitKey`) is never split.
 */
import { Document, type Scalar } from 'yaml';
import type { DocumentOptions, Pair, ScalarTag, SchemaOptions } from 'yaml';
import { PyFloat } from './python.ts';
import { pyYamlScalar } from './pyyaml-scalar.ts';

/** A scalar PyYAML writes as it is, plain (a date `2024-05-13`, a datetime `2024-05-13 13:00:00`). */
export class PyPlain {
  constructor(readonly text: string) {}
}

/** PyYAML's `represent_float`: `repr` lowered, `.0` put before an exponent without a point, `.inf`, `.nan`. */
export function pyYamlFloat(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  if (value === Infinity) return '.inf';
  if (value === -Infinity) return '-.inf';
  const abs = Math.abs(value);
  let text: string;
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    text = `${mantissa}e${exponent.startsWith('-') ? '-' : '+'}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
  } else {
    text = Object.is(value, -0) ? '-0.0' : String(value);
    if (!/[.e]/.test(text)) text += '.0';
  }
  return !text.includes('.') && text.includes('e') ? text.replace('e', '.0e') : text;
}

interface PlaceContext { indent: string; indentStep: string; implicitKey?: boolean; indentAtStart?: number }

function placeOf(ctx: PlaceContext) {
  const indent = ctx.indent.length;
  if (ctx.implicitKey) return { column: indent, indent, simpleKey: true };
  const column = ctx.indentAtStart !== undefined ? indent - ctx.indentStep.length + ctx.indentAtStart : indent;
  return { column, indent, simpleKey: false };
}

function stringTag(style: '"' | undefined): ScalarTag {
  return {
    tag: 'tag:yaml.org,2002:str',
    default: true,
    identify: (value) => typeof value === 'string',
    resolve: (text) => text,
    stringify: (item, ctx) => pyYamlScalar(String((item as Scalar).value), placeOf(ctx as unknown as PlaceContext), style),
  };
}

const floatTag: ScalarTag = {
  tag: 'tag:yaml.org,2002:float',
  default: true,
  identify: (value) => value instanceof PyFloat,
  resolve: (text) => new PyFloat(Number(text)),
  stringify: (item) => pyYamlFloat(((item as Scalar).value as PyFloat).value),
};

const plainTag: ScalarTag = {
  tag: 'tag:yaml.org,2002:timestamp',
  default: true,
  identify: (value) => value instanceof PyPlain,
  resolve: (text) => new PyPlain(text),
  stringify: (item) => ((item as Scalar).value as PyPlain).text,
};

/** Python sorts keys by code point; JavaScript's `<` by UTF-16 unit. */
const byCodePoint = (a: string, b: string) => {
  const left = [...a];
  const right = [...b];
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const difference = left[index]!.codePointAt(0)! - right[index]!.codePointAt(0)!;
    if (difference) return difference;
  }
  return left.length - right.length;
};

type Tag = NonNullable<SchemaOptions['customTags']> extends infer T ? (T extends Array<infer U> ? U : never) : never;
const taggers = new Map<string, (tags: Tag[]) => Tag[]>();
function customTags(style: '"' | undefined) {
  const key = style ?? 'plain';
  let tagger = taggers.get(key);
  if (!tagger) {
    const strings = stringTag(style);
    tagger = (tags) => [strings, floatTag, plainTag, ...tags.filter((tag) => typeof tag !== 'object' || tag.tag !== strings.tag)];
    taggers.set(key, tagger);
  }
  return tagger;
}

/**
 * PyYAML's dump of `value` (JSON-like data; floats as `PyFloat`, dates as `PyPlain`): `safe_dump` by default,
 * every string double-quoted with `style: '"'` (AgentDojo's environment text). Ends with a newline, as PyYAML's.
 */
export function pyYamlDump(value: unknown, style?: '"'): string {
  const options: DocumentOptions & SchemaOptions = { customTags: customTags(style), sortMapEntries: (a: Pair, b: Pair) => byCodePoint(String((a.key as Scalar).value ?? a.key), String((b.key as Scalar).value ?? b.key)) };
  const doc = new Document(value, options);
  return doc.toString({ indentSeq: false, lineWidth: 0, minContentWidth: 0, simpleKeys: false, nullStr: 'null', trueStr: 'true', falseStr: 'false' });
}
