/**
 * The Nosey Parker kinds vendored into gitleaks' format (noseyparker-rules.ts): each RE2 rule finds what Nosey
 * Parker's pattern, as its rule file writes it, finds (same match, same groups) on Nosey Parker's own examples,
 * on its negative examples and on generated text; they run through findCredentials, where the entropy threshold
 * and allowlists keep placeholders out; and hostile outputs complete (completion properties, as in
 * ../hostile.test.ts).
 *
 * noseyparker-rules.examples.json holds Nosey Parker's patterns, examples and negative examples for these rules
 * (Apache-2.0, praetorian-inc/noseyparker at the commit it names), written by
 * `python3 bench/validity/extract/secret_sources.py <rule ids>` from the rule files.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { GITLEAKS_RULES } from './gitleaks-rules.ts';
import { SECRETLINT_RULES } from './secretlint-rules.ts';
import { NOSEYPARKER_RULES, NOSEYPARKER_SOURCE } from './noseyparker-rules.ts';
import { findCredentials } from './gitleaks.ts';
import fixture from './noseyparker-rules.examples.json' with { type: 'json' };

interface NoseyParkerRule {
  name: string;
  pattern: string;
  examples: string[];
  negative_examples: string[];
}
const ORIGINAL = fixture.rules as Record<string, NoseyParkerRule>;

/**
 * Nosey Parker's pattern as the test oracle: Rust's verbose mode read as Rust reads it (unescaped whitespace,
 * `(?# comments)` and `#` line comments dropped, `\ ` a space), then compiled as it stands: Rust's regex syntax
 * is RE2's.
 */
function fromVerbose(pattern: string): string {
  const flags = /^(?:\(\?[a-z]+\))+/.exec(pattern)?.[0] ?? '';
  const letters = [...new Set(flags.replace(/[()?]/g, ''))];
  if (!letters.includes('x')) return pattern;
  const body = pattern.slice(flags.length).replace(/\(\?#[^)]*\)/g, '');
  let out = '';
  let inClass = false;
  for (let at = 0; at < body.length; at++) {
    const char = body[at];
    if (char === '\\') {
      const next = body[at + 1];
      out += next === ' ' ? ' ' : char + next;
      at++;
    } else if (/\s/.test(char)) {
      continue;
    } else if (char === '#' && !inClass) {
      while (at < body.length && body[at] !== '\n') at++;
    } else {
      if (char === '[') inClass = true;
      if (char === ']') inClass = false;
      out += char;
    }
  }
  const kept = letters.filter((letter) => letter !== 'x').join('');
  return (kept ? `(?${kept})` : '') + out;
}

/** The Nosey Parker rule a vendored rule copies, named in its description. */
const noseyParkerId = (description: string) => /\((np\.[a-z0-9]+\.\d+)\)/.exec(description)?.[1] ?? '';

/** The first match of a pattern: the whole match and its groups, or null. */
function firstMatch(pattern: RE2JS, text: string): string[] | null {
  const matcher = pattern.matcher(text);
  if (!matcher.find()) return null;
  return Array.from({ length: matcher.groupCount() + 1 }, (_, group) => matcher.group(group) ?? '');
}

const CASES = NOSEYPARKER_RULES.map((rule) => {
  const original = ORIGINAL[noseyParkerId(rule.description)];
  return { rule, original, ours: RE2JS.compile(rule.regex), oracle: RE2JS.compile(fromVerbose(original?.pattern ?? '')) };
});

/** Nosey Parker's examples that are placeholders, which the entropy threshold keeps out on purpose. */
const PLACEHOLDER_EXAMPLES = ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaNRAL', 'tvly-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', '00aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '00-aaaaaaaaaaaaa-aaaaaaaaaaaaaaaaaaaaaaaaa'];

describe('Nosey Parker rules', () => {
  it('names its source, and each rule names a Nosey Parker rule whose examples the fixture holds', () => {
    expect(NOSEYPARKER_SOURCE.commit).toBe(fixture.source.commit);
    expect(fixture.source).toMatchObject({ repo: 'praetorian-inc/noseyparker', licence: 'Apache-2.0' });
    expect(Object.keys(ORIGINAL).sort()).toEqual(CASES.map(({ rule }) => noseyParkerId(rule.description)).sort());
  });

  it('has unique ids, lower-case keywords that let every Nosey Parker example through, and RE2 patterns', () => {
    const taken = new Set([...GITLEAKS_RULES, ...SECRETLINT_RULES].map((rule) => rule.id));
    for (const { rule, original } of CASES) {
      expect(taken.has(rule.id), rule.id).toBe(false);
      taken.add(rule.id);
      expect(rule.keywords.every((keyword) => keyword === keyword.toLowerCase()), rule.id).toBe(true);
      for (const example of original.examples) expect(rule.keywords.some((keyword) => example.toLowerCase().includes(keyword)), `${rule.id}: ${example}`).toBe(true);
    }
  });

  it('reads Nosey Parker\'s verbose patterns as Rust does', () => {
    expect(fromVerbose('(?x)(?i)\n  \\b (nrak-[a-z0-9]{27})  (?# key )\n  \\b')).toBe('(?i)\\b(nrak-[a-z0-9]{27})\\b');
    expect(fromVerbose('(?xi)\n a\\ b # a comment\n c')).toBe('(?i)a bc');
    expect(fromVerbose('(?i)\\b(sq0atp-[a-z0-9_-]{22})\\b')).toBe('(?i)\\b(sq0atp-[a-z0-9_-]{22})\\b');
  });

  it.each(CASES.map((entry) => [entry.rule.id, entry] as const))('%s finds what Nosey Parker\'s pattern finds in its examples, and nothing in its negative examples', (_id, { original, ours, oracle }) => {
    for (const example of original.examples) {
      expect(firstMatch(oracle, example), example).not.toBeNull();
      expect(firstMatch(ours, example), example).toEqual(firstMatch(oracle, example));
    }
    for (const example of original.negative_examples) {
      expect(firstMatch(oracle, example), example).toBeNull();
      expect(firstMatch(ours, example), example).toBeNull();
    }
  });

  it.each(CASES.map((entry) => [entry.rule.id, entry] as const))('%s finds what Nosey Parker\'s pattern finds on generated text (property)', (_id, { original, ours, oracle }) => {
    const example = original.examples[0];
    const token = firstMatch(oracle, example)![0];
    const prefix = token.slice(0, Math.max(3, token.search(/[_.\-!/:]/) + 1));
    const pieces = [prefix, token, token.slice(0, -1), token.slice(prefix.length, prefix.length + 12), example.slice(0, 40), 'a', 'Z', '7', 'f', '_', '-', '.', '/', ' ', '\n', '"', "'", '=', 'é'];
    fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 10 }), (chosen) => {
      const text = chosen.join('');
      expect(firstMatch(ours, text)).toEqual(firstMatch(oracle, text));
    }), { numRuns: 200 });
  });

  it.each(CASES.map((entry) => [entry.rule.id, entry] as const))('findCredentials reports %s in each Nosey Parker example but its placeholders', (id, { original }) => {
    for (const example of original.examples) {
      const placeholder = PLACEHOLDER_EXAMPLES.some((value) => example.includes(value));
      expect(findCredentials(example).some((hit) => hit.kind === id), example).toBe(!placeholder);
    }
  });

  it.each([
    ['a Square OAuth secret of the wrong length', 'sq0csp-sq0abc-012345678901234567890123456789'],
    ['a prefix glued to a word', 'xtvly-M5gj3Jev9qI3hv2KuTOrvF0gVrBq5Usi'],
    ['prefixes alone', 'Doppler tokens start with dp.st., Tavily keys with tvly-, Square secrets with sq0csp-.'],
    ['a netrc entry with a placeholder password', 'machine api.example.com login alice password <your-password>'],
    ['a netrc entry with a template password', 'machine api.example.com\n  login ci\n  password ${NETRC_PASSWORD}'],
  ])('does not report %s', (_name, text) => {
    expect(findCredentials(text).filter((hit) => CASES.some(({ rule }) => rule.id === hit.kind))).toEqual([]);
  });

  const fill = (piece: string) => piece.repeat(Math.ceil(1_000_000 / piece.length));
  it.each([
    ['prefixes without bodies', fill('sq0csp- sq0atp- dp.st. dp.scim. tvly- cio odt_ sgp_ live_ nral nrak- okta ssws ! xapp- token-id: machine default ')],
    ['Okta-shaped runs', fill('okta 00aaaaaaaaaaaaaaaaaaaa ')],
    ['AZDO runs', fill('AZDO0123456789')],
    ['netrc heads', fill('machine a login b password ')],
    ['one endless body', `dp.st.${'a'.repeat(1_000_000)}`],
  ])('completes on a megabyte of %s', (_name, text) => {
    expect(Array.isArray(findCredentials(text))).toBe(true);
  });
});
