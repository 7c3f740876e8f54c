/**
 * Credentials in an output, found with gitleaks' rule collection (gitleaks-rules.ts: 217 rules, MIT), plus the
 * kinds of secretlint's recommended preset that gitleaks lacks (secretlint-rules.ts: 10 rules, MIT) and those of
 * Nosey Parker's collection that both lack (noseyparker-rules.ts: 26 rules, Apache-2.0), both written in
 * gitleaks' format, the way gitleaks applies its rules: a rule counts only when one of its keywords is in the
 * lower-cased text; the secret is the rule's `secretGroup` or else its first non-empty group; a secret whose
 * Shannon entropy is at or below the rule's `entropy` is dropped, and so is one the global or the rule's
 * allowlists allow (regexes against the secret, the match or its line; stopwords; `AND` or `OR`).
 *
 * Every rule runs on RE2 (re2js), so matching is linear in the output: gitleaks' patterns are Go RE2 syntax
 * and all 217 compile unchanged. RE2 in JavaScript is slow per character, so the rules are first run
 * together as one RE2 set (a lazy DFA: about 30 µs for 4 KiB, 6 µs per KiB on long outputs). Only the rules
 * the set reports are then run alone, to locate their matches, first around their keywords (64 characters
 * before, 1,024 after), and over the whole output if nothing is found there. For the set, the leading
 * `[\w.-]{0,50}?` of gitleaks' "semi-generic" rules is left out: with zero repetitions allowed it changes
 * where a match starts, not whether one exists, and it multiplied the DFA's states. Six rules that begin
 * with a character-class count before their first literal (four of gitleaks', two of Nosey Parker's) are kept
 * out of the set, since they made it explode on random base64 text (7 s for 1 MB instead of 0.3 s); they run
 * alone when their keyword is present.
 *
 * Building the set costs about 150 ms, once per process, on the first output scanned.
 */
import { RE2JS, RE2Set } from 're2js';
import { GITLEAKS_GLOBAL_ALLOWLIST, GITLEAKS_RULES } from './gitleaks-rules.ts';
import { SECRETLINT_RULES } from './secretlint-rules.ts';
import { NOSEYPARKER_RULES } from './noseyparker-rules.ts';
import type { GitleaksAllowlist, GitleaksRule } from './gitleaks-types.ts';

export interface CredentialHit {
  /** The gitleaks rule id: `slack-webhook-url`, `generic-api-key`… */
  kind: string;
  secret: string;
  /** The whole match, in output offsets. */
  index: number;
  length: number;
}

/** Rules that begin with a character-class count rather than a literal: run alone (see above). */
const OUTSIDE_THE_SET = new Set(['azure-ad-client-secret', 'facebook-access-token', 'hashicorp-tf-api-token', 'maxmind-license-key', 'new-relic-license-key', 'azure-devops-pat']);
const BEFORE_KEYWORD = 64;
const AFTER_KEYWORD = 1024;
/**
 * Matches examined per rule and output at most: each costs allowlist checks (generic-api-key has 1,446
 * stopwords), and a metric needs the count of leaked strings only up to where it stops mattering.
 */
export const MAX_MATCHES_PER_RULE = 256;

interface CompiledAllowlist {
  and: boolean;
  target: 'secret' | 'match' | 'line';
  regexes: RE2JS[];
  stopwords: string[];
}

interface Compiled {
  regex: RE2JS;
  allowlists: CompiledAllowlist[];
}

interface Scanner {
  set: RE2Set;
  inSet: GitleaksRule[];
  apart: GitleaksRule[];
  global: CompiledAllowlist;
}

let scanner: Scanner | undefined;
const compiledRules = new Map<string, Compiled>();

function compileAllowlist(allowlist: GitleaksAllowlist): CompiledAllowlist {
  return { and: allowlist.condition === 'AND', target: allowlist.regexTarget ?? 'secret', regexes: (allowlist.regexes ?? []).map((pattern) => RE2JS.compile(pattern)), stopwords: allowlist.stopwords ?? [] };
}

/** The pattern without the leading `[\w.-]{0,50}?` (also inside a leading `(?i:`): same matches exist. */
export function existencePattern(pattern: string): string {
  let current = pattern;
  for (;;) {
    const next = current.replace(/^((?:\(\?i\)|\(\?i:)*)\[\\w\.-\]\{0,50\}\?/, '$1');
    if (next === current) return current;
    current = next;
  }
}

/** Compiles the rule set now rather than on the first scan (`Metric.warm`). */
export function warmCredentialRules(): void {
  scannerOf();
}

function scannerOf(): Scanner {
  if (scanner) return scanner;
  const set = new RE2Set();
  const inSet: GitleaksRule[] = [];
  const apart: GitleaksRule[] = [];
  for (const rule of [...GITLEAKS_RULES, ...SECRETLINT_RULES, ...NOSEYPARKER_RULES]) {
    if (OUTSIDE_THE_SET.has(rule.id)) {
      apart.push(rule);
      continue;
    }
    set.add(existencePattern(rule.regex));
    inSet.push(rule);
  }
  set.compile();
  scanner = { set, inSet, apart, global: compileAllowlist(GITLEAKS_GLOBAL_ALLOWLIST) };
  return scanner;
}

function compiledOf(rule: GitleaksRule): Compiled {
  let compiled = compiledRules.get(rule.id);
  if (!compiled) {
    compiled = { regex: RE2JS.compile(rule.regex), allowlists: (rule.allowlists ?? []).map(compileAllowlist) };
    compiledRules.set(rule.id, compiled);
  }
  return compiled;
}

/** Lower-cases ASCII letters only, so offsets stay those of the output (gitleaks' keywords are ASCII). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Shannon entropy in bits per character, as gitleaks computes it. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let entropy = 0;
  const length = [...value].length;
  for (const count of counts.values()) {
    const share = count / length;
    entropy -= share * Math.log2(share);
  }
  return entropy;
}

function allowed(allowlist: CompiledAllowlist, secret: string, match: string, line: string): boolean {
  const target = allowlist.target === 'match' ? match : allowlist.target === 'line' ? line : secret;
  const byRegex = allowlist.regexes.some((regex) => regex.matcher(target).find());
  const lower = secret.toLowerCase();
  const byStopword = allowlist.stopwords.some((word) => lower.includes(word));
  if (!allowlist.and) return byRegex || byStopword;
  return (allowlist.regexes.length === 0 || byRegex) && (allowlist.stopwords.length === 0 || byStopword);
}

/** Merged windows around every occurrence of the rule's keywords. */
function keywordWindows(rule: GitleaksRule, text: string, lower: string): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  for (const keyword of rule.keywords) {
    for (let at = lower.indexOf(keyword); at >= 0; at = lower.indexOf(keyword, at + 1)) windows.push([Math.max(0, at - BEFORE_KEYWORD), Math.min(text.length, at + keyword.length + AFTER_KEYWORD)]);
  }
  windows.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const window of windows) {
    const last = merged[merged.length - 1];
    if (last && window[0] <= last[1]) last[1] = Math.max(last[1], window[1]);
    else merged.push([...window]);
  }
  return merged;
}

interface RawMatch {
  index: number;
  match: string;
  groups: Array<string | null>;
}

function scan(regex: RE2JS, text: string, start: number, end: number, into: RawMatch[]): void {
  const matcher = regex.matcher(start === 0 && end === text.length ? text : text.slice(start, end));
  const groupCount = matcher.groupCount();
  while (into.length < MAX_MATCHES_PER_RULE && matcher.find()) {
    const groups: Array<string | null> = [];
    for (let group = 1; group <= groupCount; group++) groups.push(matcher.group(group));
    into.push({ index: start + matcher.start(), match: matcher.group() ?? '', groups });
  }
}

function lineAround(text: string, index: number, length: number): string {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index + length);
  return text.slice(start, end < 0 ? text.length : end);
}

function findRule(rule: GitleaksRule, text: string, lower: string, global: CompiledAllowlist, hits: CredentialHit[]): void {
  const { regex, allowlists } = compiledOf(rule);
  const raw: RawMatch[] = [];
  for (const [start, end] of keywordWindows(rule, text, lower)) if (raw.length < MAX_MATCHES_PER_RULE) scan(regex, text, start, end, raw);
  if (raw.length === 0) scan(regex, text, 0, text.length, raw);
  for (const { index, match: whole, groups } of raw) {
    const match = whole.replace(/^\n+|\n+$/g, '');
    const secret = (rule.secretGroup ? groups[rule.secretGroup - 1] : groups.find((group) => group)) || match;
    if (rule.entropy && shannonEntropy(secret) <= rule.entropy) continue;
    const line = lineAround(text, index, whole.length);
    if (allowed(global, secret, match, line) || allowlists.some((allowlist) => allowed(allowlist, secret, match, line))) continue;
    hits.push({ kind: rule.id, secret, index, length: whole.length });
  }
}

/** Every credential gitleaks' rules find in `text`: the specific rules in rule order, then `generic-api-key`. */
export function findCredentials(text: string): CredentialHit[] {
  const { set, inSet, apart, global } = scannerOf();
  const lower = asciiLower(text);
  const present = (rule: GitleaksRule) => rule.keywords.length === 0 || rule.keywords.some((keyword) => lower.includes(keyword));
  const hits: CredentialHit[] = [];
  const reported = [...set.match(text).map((index: number) => inSet[index]), ...apart];
  // The generic rule last, so a caller that keeps the first finding of a span names the specific kind.
  reported.sort((a, b) => Number(a.id === GENERIC) - Number(b.id === GENERIC));
  for (const rule of reported) if (present(rule)) findRule(rule, text, lower, global, hits);
  return hits;
}

const GENERIC = 'generic-api-key';
