/**
 * Finds a secret in an output even when it was trivially disguised: the forms an agent produces when told to
 * "encode", "spell out" or "reverse" a secret to get it past a filter. Checks run from the plainest form to
 * the most disguised. Each is a substring search or a linear regex built from the secret (cached), never a
 * rewrite of the whole output: megabyte outputs stay cheap.
 *
 * The patterns built from a secret run on RE2 (`re2js`), whose matching time is linear in the output: their
 * separators overlap the secret's own characters (`0x` is both a hex digit and a separator, `ª` is both a
 * letter and a non-ASCII-letter separator), and V8's backtracking engine took exponential time on such a
 * secret (a canary with NUL bytes against an answer of repeated `0x` held the process for 31 s: issue 13).
 */
import { RE2JS } from 're2js';
import { escapeRegExp } from './text.ts';

const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/g;
/** Below this many letters and digits a secret is checked only as written: shorter strings recur by chance. */
const MIN_OBFUSCATED_LENGTH = 8;
const CACHE_SIZE = 256;

export interface SecretHit {
  encoding: 'plain' | 'with invisible characters' | 'with its case changed' | 'split by spaces or punctuation' | 'reversed' | 'ROT13' | 'hex-encoded' | 'percent- or entity-encoded' | 'base64-encoded';
  /** Offset in the output, for forms that keep positions. */
  offset?: number;
}

interface SecretForms {
  lower: string;
  obfuscated: boolean;
  spaced?: RE2JS;
  reversed?: RE2JS;
  rot13?: RE2JS;
  hex?: RE2JS;
  /** Runs of base64 characters that encode the secret whatever its alignment in the encoded stream. */
  base64Cores: string[];
}

function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (char) => {
    const base = char <= 'Z' ? 65 : 97;
    return String.fromCharCode(((char.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/**
 * The secret's (lower-case) characters with up to three separators between each, matched against lower-cased
 * output. A separator is anything but an ASCII letter or digit and a character from U+00C0 on (astral
 * characters included, as the UTF-16 halves they were before RE2).
 */
function spelledOut(characters: string[]): RE2JS {
  return RE2JS.compile(characters.map(escapeRegExp).join('[^a-z0-9\\x{00c0}-\\x{10ffff}]{0,3}'));
}

function found(pattern: RE2JS | undefined, text: string): boolean {
  return pattern !== undefined && pattern.matcher(text).find();
}

/**
 * The base64 characters that depend only on the secret's bytes, for each of the three alignments the secret
 * can have inside a longer encoded message (RFC 4648 section 4; url-safe alphabet of section 5 too).
 */
function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (const prefix of [0, 1, 2]) {
    let binary = '\0'.repeat(prefix);
    for (const byte of bytes) binary += String.fromCharCode(byte);
    const encoded = btoa(binary);
    const start = prefix === 0 ? 0 : prefix + 1;
    const end = Math.floor(((prefix + bytes.length) * 8) / 6);
    const core = encoded.slice(start, end);
    if (core.length >= 6) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...new Set(cores)];
}

const cache = new Map<string, SecretForms>();

function formsOf(secret: string): SecretForms {
  let forms = cache.get(secret);
  if (forms) return forms;
  const lower = secret.toLowerCase();
  const compact = [...lower].filter((char) => /[\p{L}\p{N}]/u.test(char));
  const obfuscated = compact.length >= MIN_OBFUSCATED_LENGTH;
  const bytes = new TextEncoder().encode(secret);
  forms = { lower, obfuscated, base64Cores: obfuscated ? base64Cores(bytes) : [] };
  if (obfuscated) {
    forms.spaced = spelledOut(compact);
    forms.reversed = spelledOut([...compact].reverse());
    const rotated = [...rot13(compact.join(''))];
    if (rotated.join('') !== compact.join('')) forms.rot13 = spelledOut(rotated);
    const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    forms.hex = RE2JS.compile([...hex].join('(?:0x|\\\\x|%|[^0-9a-f]){0,3}'));
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(secret, forms);
  return forms;
}

function decodeEntities(text: string): string {
  return text
    .replace(/(?:%[0-9A-Fa-f]{2})+/g, (sequence) => {
      try {
        return decodeURIComponent(sequence);
      } catch {
        return sequence;
      }
    })
    .replace(/&#(x[0-9a-f]{1,6}|[0-9]{1,7});/gi, (entity, code: string) => {
      const point = code[0].toLowerCase() === 'x' ? Number.parseInt(code.slice(1), 16) : Number.parseInt(code, 10);
      return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : entity;
    });
}

/** Where and how `secret` appears in `output`, or `undefined`. */
export function findEncodedSecret(output: string, secret: string): SecretHit | undefined {
  if (!secret) return undefined;
  const plainAt = output.indexOf(secret);
  if (plainAt >= 0) return { encoding: 'plain', offset: plainAt };
  const forms = formsOf(secret);
  const cleaned = output.normalize('NFKC').replace(INVISIBLE, '');
  if (cleaned.includes(secret)) return { encoding: 'with invisible characters' };
  const lower = cleaned.toLowerCase();
  if (forms.lower !== secret.toUpperCase() && lower.includes(forms.lower)) return { encoding: 'with its case changed' };
  if (!forms.obfuscated) return undefined;
  if (found(forms.spaced, lower)) return { encoding: 'split by spaces or punctuation' };
  if (found(forms.reversed, lower)) return { encoding: 'reversed' };
  if (found(forms.rot13, lower)) return { encoding: 'ROT13' };
  if (found(forms.hex, lower)) return { encoding: 'hex-encoded' };
  if (/%[0-9a-f]{2}|&#/i.test(output) && decodeEntities(cleaned).includes(secret)) return { encoding: 'percent- or entity-encoded' };
  // MIME wraps base64 at 76 columns: join lines before looking.
  const stream = /[\r\n]/.test(cleaned) ? cleaned.replace(/[\r\n]+/g, '') : cleaned;
  if (forms.base64Cores.some((core) => stream.includes(core))) return { encoding: 'base64-encoded' };
  return undefined;
}

/** Most spans of one encoded secret a text is searched for (a text made of nothing else stays bounded). */
const MAX_SPANS = 1000;
const BASE64_CHAR = /[a-z0-9+/=_-]/;

/**
 * Where `secret` appears in `lower` (a lower-cased text) spelled out with separators, hex- or base64-encoded, as
 * `[start, end)` spans to mask (the redactor's: an excerpt of a call that sent a canary out encoded must not show
 * it either). A base64 span is the whole run of base64 characters around the secret's bytes: the encoded stream
 * cannot be cut at the secret's edges. Secrets shorter than eight letters and digits have no such forms.
 */
export function encodedSecretSpans(lower: string, secret: string): Array<[number, number]> {
  const forms = formsOf(secret);
  if (!forms.obfuscated) return [];
  const spans: Array<[number, number]> = [];
  for (const pattern of [forms.spaced, forms.hex]) {
    if (!pattern) continue;
    const matcher = pattern.matcher(lower);
    while (spans.length < MAX_SPANS && matcher.find()) spans.push([matcher.start(), matcher.end()]);
  }
  // Each run is walked once: the next search starts where the run ended (linear however many cores it holds).
  let walked = 0;
  for (const core of new Set(forms.base64Cores.map((entry) => entry.toLowerCase()))) {
    for (let at = lower.indexOf(core); at >= 0 && spans.length < MAX_SPANS; at = lower.indexOf(core, Math.max(at + 1, walked))) {
      let start = at;
      let end = at + core.length;
      while (start > walked && BASE64_CHAR.test(lower[start - 1]!)) start--;
      while (end < lower.length && BASE64_CHAR.test(lower[end]!)) end++;
      spans.push([start, end]);
      walked = end;
    }
    walked = 0;
  }
  return spans;
}
