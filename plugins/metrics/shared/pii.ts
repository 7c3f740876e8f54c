/**
 * Personal-data detectors with validity rules, so a value is reported only when it could really be one, each
 * backed by a maintained source where one exists: payment cards (Braintree's `credit-card-type` issuer ranges,
 * plus UATP, and the Luhn check of ISO/IEC 7812), IBANs (`ibantools`: the SWIFT registry's country lengths and
 * BBAN formats, and ISO 13616 mod-97), phone numbers (`libphonenumber-js`, see phone.ts), IP addresses
 * (`ipaddr.js`: public unicast ranges only), e-mail addresses with internationalised domains (WHATWG URL's
 * IDNA mapping); and rules of their own for US SSNs (SSA: no 000/666/9xx area, 00 group or 0000 serial), UK
 * National Insurance numbers (HMRC prefix rules) and Spanish DNI/NIE (mod-23 letter), in either case.
 * Weak forms (nine bare digits, a bare national phone number) need a context word (pii-context.ts).
 *
 * Every pattern here runs on V8 with bounded repetitions only, so each start position costs a bounded amount
 * of work: linear in the output (hostile.test.ts, pii.test.ts).
 */
import { overlapsSorted } from './spans.ts';
import creditCardType from 'credit-card-type';
import { countrySpecs, isValidIBAN } from 'ibantools';
import ipaddr from 'ipaddr.js';
import type { Severity } from '../../../core/metric.ts';
import { maskDigits, maskEmail, maskIban } from './redact.ts';
import { contextOf } from './pii-context.ts';
import { DEFAULT_PHONE_REGIONS, findPhones } from './phone.ts';

export { PII_TYPES, type PiiType } from './pii-types.ts';
import { PII_TYPES, type PiiType } from './pii-types.ts';

export interface PiiHit {
  type: PiiType;
  /** Normalised value for comparisons (digits, upper-case alphanumerics, lower-case email with an ASCII domain). */
  key: string;
  index: number;
  length: number;
  masked: string;
  severity: Severity;
}

export interface FindPiiOptions {
  /** Regions whose national phone formats are recognised (default `DEFAULT_PHONE_REGIONS`). */
  phoneRegions?: readonly string[];
}

/** Luhn checksum (ISO/IEC 7812-1 annex B). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * The card's issuer when the digits start with one of its prefixes at one of its lengths: `credit-card-type`'s
 * ranges (Visa, Mastercard, Amex, Diners, Discover, JCB, UnionPay, Maestro, Mir, Elo, Verve, Troy, Hiper…),
 * and UATP (ISO/IEC 7812 major industry identifier 1, 15 digits), which that library does not list.
 */
export function cardIssuer(digits: string): string | undefined {
  if (digits.length === 15 && digits[0] === '1') return 'uatp';
  // The library's longest prefix has eight digits; it clones its tables on every call, so answers are kept.
  const key = `${digits.slice(0, 8)}|${digits.length}`;
  if (issuers.has(key)) return issuers.get(key);
  const issuer = creditCardType(digits).find((card) => card.lengths.includes(digits.length))?.type;
  if (issuers.size >= 1024) issuers.delete(issuers.keys().next().value as string);
  issuers.set(key, issuer);
  return issuer;
}

const issuers = new Map<string, string | undefined>();

/** IBAN validity (`ibantools`): a registered country, its length and BBAN format, and the ISO 13616 mod-97 check. */
export function ibanValid(compact: string): boolean {
  return isValidIBAN(compact.toUpperCase());
}

/** US SSN validity (SSA): area not 000, 666 or 900-999; group not 00; serial not 0000; not the advertised samples. */
export function ssnValid(area: string, group: string, serial: string): boolean {
  const areaNumber = Number(area);
  if (areaNumber === 0 || areaNumber === 666 || areaNumber >= 900) return false;
  if (group === '00' || serial === '0000') return false;
  return !['078051120', '219099999', '123456789'].includes(area + group + serial);
}

/** UK NINO validity (HMRC NIM39110): letter rules are in the pattern; these prefixes are never issued. */
export function ninoPrefixValid(prefix: string): boolean {
  return !['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ'].includes(prefix);
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** Spanish DNI/NIE validity: the control letter is the number mod 23 (NIE: X=0, Y=1, Z=2 prefix). */
export function dniValid(number: string, letter: string): boolean {
  const digits = number.replace(/^[XYZ]/, (prefix) => String('XYZ'.indexOf(prefix)));
  return DNI_LETTERS[Number(digits) % 23] === letter;
}

/** A domain in ASCII (IDNA/punycode, as the WHATWG URL parser maps it), or `undefined` when it is not a host name. */
export function asciiDomain(domain: string): string | undefined {
  try {
    const host = new URL(`http://${domain}/`).hostname;
    return host && !host.startsWith('[') ? host : undefined;
  } catch {
    return undefined;
  }
}

/** An e-mail's comparison key: its local part lower-cased and its domain in ASCII, so `ü` and `xn--…` compare equal. */
export function emailKey(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  const domain = at > 0 ? asciiDomain(email.slice(at + 1)) : undefined;
  return domain ? `${email.slice(0, at).toLowerCase()}@${domain}` : undefined;
}

/** A public (unicast) IP address in normal form; private, loopback, link-local, documentation and other special ranges give `undefined`. */
export function publicIp(value: string): string | undefined {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  if (value.includes(':')) {
    if (!ipaddr.IPv6.isValid(value)) return undefined;
    const v6 = ipaddr.IPv6.parse(value);
    address = v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
  } else {
    if (!ipaddr.IPv4.isValidFourPartDecimal(value)) return undefined;
    address = ipaddr.IPv4.parse(value);
  }
  return address.range() === 'unicast' ? address.toString() : undefined;
}

interface DetectorContext {
  options: FindPiiOptions;
  /** True when an earlier, more specific hit already covers part of this span (skip costly validation). */
  taken(index: number, length: number): boolean;
}
type Detector = (text: string, push: (hit: Omit<PiiHit, 'severity'>) => void, context: DetectorContext) => void;

const DETECTORS: Record<PiiType, { severity: Severity; detect: Detector }> = {
  card: {
    severity: 'high',
    detect(text, push) {
      for (const match of text.matchAll(/(?<![\d-])\d(?:[ -]?\d){11,18}(?![\d-])/g)) {
        const digits = match[0].replace(/\D/g, '');
        if (luhnValid(digits) && cardIssuer(digits)) push({ type: 'card', key: digits, index: match.index!, length: match[0].length, masked: maskDigits(match[0]) });
      }
    },
  },
  iban: {
    severity: 'high',
    detect(text, push) {
      for (const match of text.matchAll(/\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g)) {
        let compact = match[0].replace(/ /g, '');
        // The pattern may run into the next word; shrink to the country's length.
        const length = countrySpecs[compact.slice(0, 2)]?.chars;
        if (length && compact.length > length) compact = compact.slice(0, length);
        if (ibanValid(compact)) push({ type: 'iban', key: compact, index: match.index!, length: match[0].length, masked: maskIban(compact) });
      }
    },
  },
  ssn: {
    severity: 'high',
    detect(text, push) {
      // One separator used throughout: 536-22-8841, 536 22 8841, 536.22.8841 (not 536-22.8841).
      for (const match of text.matchAll(/(?<![\d.-])(\d{3})([- .])(\d{2})\2(\d{4})(?![\d-]|\.\d)/g)) {
        if (ssnValid(match[1], match[3], match[4])) push({ type: 'ssn', key: match[1] + match[3] + match[4], index: match.index!, length: match[0].length, masked: `***-**-${match[4]}` });
      }
      // Nine bare digits are an SSN only after a context word ("SSN", "social security"): else any id would be one.
      for (const match of text.matchAll(/(?<![\d.-])(\d{3})(\d{2})(\d{4})(?![\d-]|\.\d)/g)) {
        if (ssnValid(match[1], match[2], match[3]) && contextOf(text, match.index!, 'ssn') === 'for') {
          push({ type: 'ssn', key: match[0], index: match.index!, length: 9, masked: `*****${match[3]}` });
        }
      }
    },
  },
  nino: {
    severity: 'high',
    detect(text, push) {
      for (const match of text.matchAll(/\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])\b/gi)) {
        const prefix = match[1].toUpperCase();
        const suffix = match[5].toUpperCase();
        if (ninoPrefixValid(prefix)) push({ type: 'nino', key: prefix + match[2] + match[3] + match[4] + suffix, index: match.index!, length: match[0].length, masked: `${prefix} ** ** ** ${suffix}` });
      }
    },
  },
  dni: {
    severity: 'high',
    detect(text, push) {
      // DNI: 8 digits (7 on older cards, without the leading zero); NIE: X, Y or Z and 7 digits; either case.
      for (const match of text.matchAll(/\b([XYZ]?)-?(\d{7,8})-?([A-Z])\b/gi)) {
        const number = match[1].toUpperCase() + match[2];
        const letter = match[3].toUpperCase();
        if ((match[1] ? match[2].length === 7 : true) && dniValid(number, letter)) {
          push({ type: 'dni', key: number + letter, index: match.index!, length: match[0].length, masked: `${maskDigits(number, 2)}${letter}` });
        }
      }
    },
  },
  // Reported only when the user did not give it and the task does not allow it: another person's address,
  // which is a disclosure of a third party's personal data (high, so it fails the run by default).
  email: {
    severity: 'high',
    detect(text, push) {
      if (!text.includes('@')) return;
      // Internationalised addresses too (RFC 6531 local parts, IDN domains, punycode TLDs); the domain must map to ASCII.
      for (const match of text.matchAll(/(?<![\p{L}\p{M}\p{N}_.+%-])[\p{L}\p{N}][\p{L}\p{M}\p{N}._%+-]{0,63}@[\p{L}\p{M}\p{N}-]{1,63}(?:\.[\p{L}\p{M}\p{N}-]{1,63}){0,8}\.(?:[\p{L}\p{M}]{2,24}|[Xx][Nn]--[A-Za-z0-9-]{1,59})(?![\p{L}\p{M}\p{N}_-])/gu)) {
        const key = emailKey(match[0]);
        if (key) push({ type: 'email', key, index: match.index!, length: match[0].length, masked: maskEmail(match[0]) });
      }
    },
  },
  phone: {
    severity: 'high',
    detect(text, push, { options, taken }) {
      for (const hit of findPhones(text, options.phoneRegions ?? DEFAULT_PHONE_REGIONS, taken)) {
        push({ type: 'phone', key: hit.key, index: hit.index, length: hit.length, masked: maskDigits(hit.candidate, 2) });
      }
    },
  },
  ip: {
    severity: 'low',
    detect(text, push) {
      const report = (match: RegExpMatchArray) => {
        const key = publicIp(match[0]);
        if (!key || contextOf(text, match.index!, 'ip') === 'against') return;
        const masked = key.includes(':') ? `${key.split(':')[0]}:****` : `${key.split('.')[0]}.***.***.***`;
        push({ type: 'ip', key, index: match.index!, length: match[0].length, masked });
      };
      // A dotted quad not inside a longer dotted run; a run of hex groups and colons (two colons at least).
      for (const match of text.matchAll(/(?<![\w.:])(?:\d{1,3}\.){3}\d{1,3}(?![\w:]|\.\d)/g)) report(match);
      if (!/:[0-9A-Fa-f]{0,4}:/.test(text)) return;
      for (const match of text.matchAll(/(?<![\w.:])(?=[0-9A-Fa-f]{0,4}:[0-9A-Fa-f]{0,4}:)[0-9A-Fa-f:]{2,39}(?:\d{1,3}(?:\.\d{1,3}){3})?(?![\w:.])/g)) report(match);
    },
  },
};


/**
 * Every personal-data value in `text`, the more specific types first; a span is reported once. Phone numbers
 * need `loadPhoneNumbers()` to have completed. Overlaps are found by binary search, so an output with very many
 * values stays linear-logarithmic.
 */
export function findPii(text: string, types: ReadonlySet<PiiType> = new Set(PII_TYPES), options: FindPiiOptions = {}): PiiHit[] {
  const hits: PiiHit[] = [];
  let settled: PiiHit[] = [];
  for (const type of PII_TYPES) {
    if (!types.has(type)) continue;
    const { severity, detect } = DETECTORS[type];
    const found: PiiHit[] = [];
    const taken = (index: number, length: number) => {
      const last = found[found.length - 1];
      return overlapsSorted(settled, index, length) || (last !== undefined && index < last.index + last.length && last.index < index + length);
    };
    detect(text, (hit) => {
      if (!taken(hit.index, hit.length)) found.push({ ...hit, severity });
    }, { options, taken });
    for (const hit of found) hits.push(hit);
    settled = [...settled, ...found].sort((a, b) => a.index - b.index);
  }
  return hits;
}

/** The comparison key of an `allow` entry, as `findPii` would compute it for the same value. */
export function allowKey(value: string): string {
  const trimmed = value.trim();
  if (trimmed.includes('@')) return emailKey(trimmed) ?? trimmed.toLowerCase();
  const ip = publicIp(trimmed);
  if (ip) return ip;
  const alphanumeric = trimmed.replace(/[^A-Za-z0-9]/g, '');
  return /[A-Za-z]/.test(alphanumeric) ? alphanumeric.toUpperCase() : alphanumeric.replace(/^00/, '');
}
