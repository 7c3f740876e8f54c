/**
 * gitleaks' rule collection as secret_leak runs it (issue 16): every vendored rule compiles on RE2, the set
 * pattern keeps each rule's matches, gitleaks' entropy and allowlists apply, and hostile outputs complete.
 * As in ../hostile.test.ts the megabyte cases are completion properties: the DFA set fell back to RE2's NFA
 * on random base64 text before the semi-generic prefixes were left out of it (74 s for a megabyte).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { GITLEAKS_RULES, GITLEAKS_SOURCE } from './gitleaks-rules.ts';
import { existencePattern, findCredentials, shannonEntropy } from './gitleaks.ts';

const kindsOf = (text: string) => findCredentials(text).map((hit) => hit.kind);

describe('gitleaks rules', () => {
  it('vendors gitleaks\' collection with its source, and every rule compiles on RE2', () => {
    expect(GITLEAKS_SOURCE).toMatchObject({ repository: 'gitleaks/gitleaks', path: 'config/gitleaks.toml' });
    expect(GITLEAKS_RULES.length).toBeGreaterThan(200);
    for (const rule of GITLEAKS_RULES) {
      expect(() => RE2JS.compile(rule.regex), rule.id).not.toThrow();
      expect(() => RE2JS.compile(existencePattern(rule.regex)), rule.id).not.toThrow();
      expect(rule.keywords.every((keyword) => keyword === keyword.toLowerCase()), rule.id).toBe(true);
    }
  });

  it('leaves out only the leading lazy prefix for the set, which keeps whether a match exists', () => {
    expect(existencePattern('(?i)[\\w.-]{0,50}?(?:adafruit)x')).toBe('(?i)(?:adafruit)x');
    expect(existencePattern('[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?(?:cohere)x)')).toBe('(?i:(?:cohere)x)');
    expect(existencePattern('\\bghp_[a-z]{36}')).toBe('\\bghp_[a-z]{36}');
  });

  it.each([
    ['slack-webhook-url', 'post to https://hooks.slack.com/services/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'],
    ['gitlab-pat', 'export GITLAB_TOKEN=glpat-Xk9mQ2vL7rT1yW5pZ8cN'],
    ['notion-api-token', 'NOTION=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'],
    ['square-access-token', 'square: sq0atp-aF3kL9mQ2xV7rT1yW5pZ8cN4bJ'],
    ['generic-api-key', 'DATABASE_TOKEN = "q8Zr3Lm0Vx7Kp2Tn9Wb4"'],
  ])('finds a %s', (kind, text) => {
    expect(kindsOf(text)).toContain(kind);
  });

  it.each([
    ['prose about keys and tokens', 'Keep the key in the vault and rotate the token monthly; the auth service grants access.'],
    ['a placeholder value', 'api_key = "<your key here>"'],
    ['a low-entropy value under a key name', 'API_KEY = "aaaaaaaaaaaaaaaa"'],
    ['a secret with one of gitleaks\' stopwords', 'token = "abcdefghijklmnopqrstuvwxyz012345"'],
    ['a prefix inside a longer word (\\b)', 'xnpm_aF3kL9mQ2xV7rT1yW5pZ8cN4bJ6hD0gS2eUqW'],
  ])('does not report %s', (_name, text) => {
    expect(findCredentials(text)).toEqual([]);
  });

  it('computes Shannon entropy as gitleaks does', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });

  const fill = (piece: string) => piece.repeat(Math.ceil(1_000_000 / piece.length));
  let seed = 7;
  const random = (alphabet: string, length: number) => {
    let text = '';
    for (let i = 0; i < length; i++) text += alphabet[(seed = (seed * 1103515245 + 12345) & 0x7fffffff) % alphabet.length];
    return text;
  };

  it.each([
    ['random base64 text', random('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.:', 1_000_000)],
    ['random hex', random('0123456789abcdef', 1_000_000)],
    ['assignments without values', fill('api_key = "')],
    ['keywords everywhere', fill('key token secret auth access ey s. sk ')],
    ['token prefixes without bodies', fill('ghp_ xoxb- glpat- sk-ant- AKIA ')],
    ['JWT-shaped runs', fill('eyJhbGciOiJIUzI1NiJ9.')],
  ])('completes on a megabyte of %s', (_name, text) => {
    expect(Array.isArray(findCredentials(text))).toBe(true);
  });

  it('completes on repeated pieces (property)', () => {
    const pieces = ['key', '=', ' ', '"', "'", 'a', 'Z', '0', '9', '_', '-', '.', '/', '+', 'ghp_', 'xoxb-', 'eyJ', 'sk-', 'https://', 'hooks.slack.com/services/', '\n', ':'];
    fc.assert(fc.property(fc.tuple(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 6 }), fc.integer({ min: 30, max: 3000 })), ([chosen, repeats]) => Array.isArray(findCredentials(chosen.join('').repeat(repeats)))), { numRuns: 25 });
  });
});
