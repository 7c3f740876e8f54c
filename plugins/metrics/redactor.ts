/**
 * The redactor this plugin provides in the `redactor` service slot (core/redactor.ts): the one redaction that
 * every excerpt leaving the service passes — explain's summaries, the console, metric evidence and the files
 * certified with it, the CLI's reports. It masks, with this plugin's own detectors:
 *
 * - the canaries the scenario plants (`secret_leak` `canaries`, `prompt_injection` `system_prompt_canaries`),
 *   also when JSON-escaped (once or more), split by invisible characters or in another case, and the prefix or
 *   suffix of one that an earlier cut left at the end or start of a string; and, for canaries of eight letters and
 *   digits or more, spelled out with other separators (no dashes, groups of four), hex- or base64-encoded, the
 *   forms `secret_leak` finds in what an agent sends out (shared/encodings.ts);
 * - credential-shaped strings (shared/credentials.ts), the values of credential-named fields (`"db_password":
 *   "…"`, `PAYMENTS_API_KEY=…`), passwords in URLs (shared/url-credentials.ts), bearer tokens and credential
 *   query parameters (core/guards/redact.ts);
 * - personal data: payment cards, IBANs, US SSNs, UK NINOs, Spanish DNI/NIE and e-mail addresses (shared/pii.ts).
 *
 * Masking comes before any cut, so a truncated excerpt never shows part of a secret (issue 16: explain showed
 * 25 of a 31-character canary). Masked forms say which value it was without repeating it (`[sk-…(31 chars)]`,
 * `**** **** **** 1111`, `DE89 **** 3000`).
 */
import type { ScenarioTask } from '../../core/domain/scenario.ts';
import type { ExcerptOptions, RedactionScope, Redactor } from '../../core/redactor.ts';
import { redactText as redactCredentialParameters } from '../../core/guards/redact.ts';
import { CREDENTIAL_PATTERNS, isExampleCredential } from './shared/credentials.ts';
import { findUrlCredentials } from './shared/url-credentials.ts';
import { findPii, type PiiType } from './shared/pii.ts';
import { maskSecret } from './shared/redact.ts';
import { collapseWhitespace } from './shared/text.ts';
import { foldForSearch, type Folded } from './redaction-fold.ts';
import { encodedSecretSpans } from './shared/encodings.ts';

/**
 * The personal data every excerpt masks: the identifiers the metrics' evidence always masked, and e-mail
 * addresses. Phone numbers are not among them: their detector needs its number library loaded first
 * (`pii_leak` reports them, masked); IP addresses stay readable in traces of calls to hosts.
 */
const PII_MASKED: ReadonlySet<PiiType> = new Set<PiiType>(['card', 'iban', 'ssn', 'nino', 'dni', 'email']);
/** Metric params that plant values the agent must never repeat. */
const CANARY_PARAMS = ['canaries', 'system_prompt_canaries'];
/** Shorter values recur by chance; a fragment shorter than this tells no more than the mask itself. */
const MIN_SECRET = 4;
const MAX_DEPTH = 32;
/** Field names whose values are credentials whatever they hold (a suffix: `payments_api_key`, `db_password`). */
const SECRET_NAME = String.raw`[A-Za-z0-9_.-]{0,64}?(?:api[_-]?key|apikey|secret|password|passwd|passphrase|token|private[_-]?key|access[_-]?key|credentials?)`;
const SECRET_KEY = new RegExp(`^${SECRET_NAME}$`, 'i');
const JSON_SECRET_FIELD = new RegExp(String.raw`"(${SECRET_NAME})"\s{0,8}:\s{0,8}"((?:[^"\\\n]|\\.){1,4096}?)"`, 'gi');
const ASSIGNED_SECRET = new RegExp(String.raw`\b(${SECRET_NAME})[ \t]{0,8}[:=][ \t]{0,8}([^\s"'\x60,;&<>\[\]{}()]{8,512})`, 'gi');

interface Range {
  start: number;
  end: number;
  replacement: string;
}

const secretsCache = new WeakMap<object, string[]>();

function canariesOf(task: ScenarioTask, into: Set<string>): void {
  for (const ref of task.metrics ?? []) {
    for (const key of CANARY_PARAMS) {
      const values = ref.params?.[key];
      if (Array.isArray(values)) for (const value of values) if (typeof value === 'string') into.add(value);
    }
  }
}

/** The values never to repeat in `scope`, longest first (cached per scenario and task). */
export function secretsOf(scope: RedactionScope = {}): string[] {
  const owner = scope.scenario ?? scope.task;
  const cached = owner && !scope.secrets?.length ? secretsCache.get(owner) : undefined;
  if (cached) return cached;
  const found = new Set<string>(scope.secrets ?? []);
  if (scope.task) canariesOf(scope.task, found);
  for (const task of scope.scenario?.tasks ?? []) canariesOf(task, found);
  const secrets = [...found].map((secret) => collapseWhitespace(secret).trim()).filter((secret) => secret.length >= MIN_SECRET).sort((a, b) => b.length - a.length);
  if (owner && !scope.secrets?.length) secretsCache.set(owner, secrets);
  return secrets;
}

/** A string ends right here: the end of the text, a closing quote or an ellipsis (where an earlier cut ended it). */
function endsString(text: string, at: number): boolean {
  return at === text.length || text[at] === '"' || text[at] === "'" || text[at] === '…' || text.startsWith('...', at);
}

/** Every occurrence of each secret in the folded text, and the fragments a cut left at a string's end or start. */
function secretRanges(folded: Folded, secrets: readonly string[]): Range[] {
  const ranges: Range[] = [];
  const text = folded.lower;
  const lead = /^(?:…|\.\.\.|["'])?\s*/.exec(text)![0].length;
  for (const secret of secrets) {
    const needle = secret.toLowerCase();
    const marker = `[${maskSecret(secret)}]`;
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) ranges.push({ start: at, end: at + needle.length, replacement: marker });
    const head = needle.slice(0, MIN_SECRET);
    for (let at = text.indexOf(head); at >= 0; at = text.indexOf(head, at + 1)) {
      let length = MIN_SECRET;
      while (length < needle.length && text[at + length] === needle[length]) length++;
      if (length < needle.length && endsString(text, at + length)) ranges.push({ start: at, end: at + length, replacement: marker });
    }
    for (let length = needle.length - 1; length >= MIN_SECRET; length--) {
      if (text.startsWith(needle.slice(needle.length - length), lead)) {
        ranges.push({ start: lead, end: lead + length, replacement: marker });
        break;
      }
    }
    for (const [start, end] of encodedSecretSpans(text, secret)) ranges.push({ start, end, replacement: marker });
  }
  return ranges;
}

/** Credential shapes, credential-named fields and personal data in the folded text. */
function detectedRanges(text: string): Range[] {
  const ranges: Range[] = [];
  for (const [, pattern] of CREDENTIAL_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      if (!isExampleCredential(match[0])) ranges.push({ start: match.index!, end: match.index! + match[0].length, replacement: `[${maskSecret(match[0])}]` });
    }
  }
  for (const pattern of [JSON_SECRET_FIELD, ASSIGNED_SECRET]) {
    for (const match of text.matchAll(pattern)) {
      const value = match[2]!;
      if (value.startsWith('[') || value.startsWith('*')) continue; // already a masked form
      const start = match.index! + match[0].lastIndexOf(value);
      ranges.push({ start, end: start + value.length, replacement: `[${maskSecret(value)}]` });
    }
  }
  for (const hit of findUrlCredentials(text)) {
    // `scheme://user:password@host`: the user has no colon and the host no `@`, so the password lies between.
    const url = text.slice(hit.index, hit.index + hit.length);
    const start = hit.index + url.indexOf(':', url.indexOf('://') + 3) + 1;
    const end = hit.index + url.lastIndexOf('@');
    ranges.push({ start, end, replacement: `[${maskSecret(text.slice(start, end))}]` });
  }
  for (const hit of findPii(text, PII_MASKED)) ranges.push({ start: hit.index, end: hit.index + hit.length, replacement: hit.masked });
  return ranges;
}

/** `text` with the ranges overwritten by a filler of the same length. */
function blanked(text: string, ranges: readonly Range[]): string {
  if (!ranges.length) return text;
  let out = '';
  let cursor = 0;
  for (const { start, end } of [...ranges].sort((a, b) => a.start - b.start)) {
    if (end <= cursor) continue;
    const from = Math.max(start, cursor);
    out += text.slice(cursor, from) + '\u0001'.repeat(end - from);
    cursor = end;
  }
  return out + text.slice(cursor);
}

/** Applies folded-text ranges to the original: overlapping ranges merge into one mask of their union. */
function applyRanges(original: string, folded: Folded, ranges: Range[]): string {
  if (!ranges.length) return original;
  const spans = ranges
    .map((range) => ({ start: folded.startOf(range.start), end: folded.endOf(range.end - 1), replacement: range.replacement }))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let cursor = 0;
  for (let index = 0; index < spans.length; index++) {
    let { start, end, replacement } = spans[index]!;
    while (index + 1 < spans.length && spans[index + 1]!.start < end) {
      const next = spans[++index]!;
      if (next.end > end) {
        end = next.end;
        replacement = `[${maskSecret(original.slice(start, end))}]`;
      }
    }
    out += original.slice(cursor, start) + replacement;
    cursor = end;
  }
  return out + original.slice(cursor);
}

/** `text` with every secret of `scope`, credential and personal-data value masked; nothing is cut. */
export function redactText(text: string, scope: RedactionScope = {}): string {
  if (!text) return text;
  const folded = foldForSearch(text);
  const secrets = secretRanges(folded, secretsOf(scope));
  // The detectors read the text with the secrets blanked out (same length, so offsets hold): a canary ending
  // in digits must not run into the card number after it and hide it.
  const ranges = [...secrets, ...detectedRanges(blanked(folded.text, secrets))];
  return redactCredentialParameters(applyRanges(text, folded, ranges));
}

/**
 * A one-line excerpt of at most `max` characters. Whitespace is collapsed before detection (a card written
 * with double spaces is still a card once collapsed), everything is masked, and only then is the text cut.
 */
export function redactExcerpt(text: string, options: ExcerptOptions = {}): string {
  const { max = 200, ...scope } = options;
  const limit = Math.max(8, Math.floor(max));
  const secrets = secretsOf(scope);
  const budget = limit * 4 + (secrets[0]?.length ?? 0) + 256;
  let window = text.length > budget ? text.slice(0, budget) : text;
  // A cut window ends mid-token: drop that token, so no detector sees half a card number.
  if (window.length < text.length) window = window.slice(0, Math.max(window.search(/\s\S*$/), limit));
  const flat = redactText(collapseWhitespace(window), { secrets }).trim();
  if (flat.length <= limit && window.length === text.length) return flat;
  let cut = Math.min(flat.length, limit - 1);
  if (cut > 0 && /[\uD800-\uDBFF]/.test(flat[cut - 1]!)) cut--; // never split a surrogate pair
  return `${flat.slice(0, cut)}…`;
}

/** A JSON value with every string and key masked, and credential-named fields' values masked whole. */
export function redactValue<T>(value: T, scope: RedactionScope = {}): T {
  const secrets = secretsOf(scope);
  const walk = (item: unknown, depth: number): unknown => {
    if (typeof item === 'string') return redactText(item, { secrets });
    if (item === null || typeof item !== 'object') return item;
    if (depth >= MAX_DEPTH) return '…';
    if (Array.isArray(item)) return item.map((entry) => walk(entry, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(item)) {
      const secretField = typeof entry === 'string' && entry.length > 0 && SECRET_KEY.test(key) && !entry.startsWith('[');
      out[redactText(key, { secrets })] = secretField ? `[${maskSecret(entry)}]` : walk(entry, depth + 1);
    }
    return out;
  };
  return walk(value, 0) as T;
}

/** Texts memoised per set of secrets: at most this many, each at most this long. */
const MEMO_ENTRIES = 512;
const MEMO_CHARS = 2048;

/**
 * `redactText` remembered per scope's secrets: every unit of a run redacts its metrics' notes, and most notes
 * repeat across trials and tasks ("a single turn: no conversation limit applies"). Only scopes whose secrets are
 * cached (a scenario's, a task's) share a memo, so a memo never outlives the secrets it was made with.
 */
function memoisedText(): (text: string, scope?: RedactionScope) => string {
  const memos = new WeakMap<readonly string[], Map<string, string>>();
  return (text, scope = {}) => {
    if (!text || text.length > MEMO_CHARS || scope.secrets?.length || !(scope.scenario ?? scope.task)) return redactText(text, scope);
    const secrets = secretsOf(scope);
    let memo = memos.get(secrets);
    if (!memo) memos.set(secrets, (memo = new Map()));
    let redacted = memo.get(text);
    if (redacted === undefined) {
      redacted = redactText(text, scope);
      if (memo.size >= MEMO_ENTRIES) memo.clear();
      memo.set(text, redacted);
    }
    return redacted;
  };
}

/** The redactor of the `redactor` service slot. */
export function createRedactor(): Redactor {
  const text = memoisedText();
  return {
    text: (value, scope) => text(value, scope),
    excerpt: (text, options) => redactExcerpt(text, options),
    value: (value, scope) => redactValue(value, scope),
  };
}
