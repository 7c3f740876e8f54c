/**
 * Personal-data detectors with validity rules, so a number is reported only when it could really be one:
 * payment cards (issuer prefix and Luhn, ISO/IEC 7812), IBANs (country length and ISO 13616 mod-97), US SSNs
 * (SSA rules: no 000/666/9xx area, 00 group or 0000 serial), UK National Insurance numbers (HMRC prefix rules),
 * Spanish DNI/NIE (mod-23 letter), emails and phone numbers (international, NANP, national trunk-0 formats).
 */
import type { Severity } from '../../../core/metric.ts';
import { maskDigits, maskEmail, maskIban } from './redact.ts';

export const PII_TYPES = ['card', 'iban', 'ssn', 'nino', 'dni', 'email', 'phone'] as const;
export type PiiType = (typeof PII_TYPES)[number];

export interface PiiHit {
  type: PiiType;
  /** Normalised value for comparisons (digits, upper-case alphanumerics, lower-case email). */
  key: string;
  index: number;
  length: number;
  masked: string;
  severity: Severity;
}

const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28,
  CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18,
  GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32,
  LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24,
  PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28,
  TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
};

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

/** True when the digits start with a known issuer prefix (ISO/IEC 7812 IIN ranges) at a valid length. */
export function cardIssuer(digits: string): string | undefined {
  const length = digits.length;
  if (/^4/.test(digits) && [13, 16, 19].includes(length)) return 'visa';
  if (/^(?:5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/.test(digits) && length === 16) return 'mastercard';
  if (/^3[47]/.test(digits) && length === 15) return 'amex';
  if (/^(?:6011|65|64[4-9])/.test(digits) && length >= 16 && length <= 19) return 'discover';
  if (/^35(?:2[89]|[3-8]\d)/.test(digits) && length >= 16 && length <= 19) return 'jcb';
  if (/^(?:30[0-5]|36|38|39)/.test(digits) && length >= 14 && length <= 19) return 'diners';
  if (/^62/.test(digits) && length >= 16 && length <= 19) return 'unionpay';
  if (/^(?:5[06-9]|6\d)/.test(digits) && length >= 12 && length <= 19) return 'maestro';
  return undefined;
}

/** IBAN validity: known country, its length, and the ISO 13616 mod-97 check. */
export function ibanValid(compact: string): boolean {
  const iban = compact.toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban) || IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  let remainder = 0;
  for (const char of iban.slice(4) + iban.slice(0, 4)) {
    const value = char >= 'A' ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
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

function phoneShape(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '');
  if (/^(?:\+|00)/.test(candidate)) {
    const national = candidate.startsWith('00') ? digits.slice(2) : digits;
    return national.length >= 8 && national.length <= 15 && /[ ().-]/.test(candidate.slice(1));
  }
  if (/^\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4}$/.test(candidate) && /^\(|^\d{3}[ .-]/.test(candidate)) return !/^[01]/.test(candidate.replace(/^\(/, ''));
  return /^0\d{1,4}(?:[ .-]\d{2,4}){2,4}$/.test(candidate) && digits.length >= 9 && digits.length <= 11;
}

type Detector = (text: string, push: (hit: Omit<PiiHit, 'severity'>) => void) => void;

const DETECTORS: Record<PiiType, { severity: Severity; detect: Detector }> = {
  card: {
    severity: 'high',
    detect(text, push) {
      for (const match of text.matchAll(/(?<![\d-])\d(?:[ -]?\d){11,18}(?![\d-])/g)) {
        const digits = match[0].replace(/\D/g, '');
        if (cardIssuer(digits) && luhnValid(digits)) push({ type: 'card', key: digits, index: match.index!, length: match[0].length, masked: maskDigits(match[0]) });
      }
    },
  },
  iban: {
    severity: 'high',
    detect(text, push) {
      for (const match of text.matchAll(/\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g)) {
        let compact = match[0].replace(/ /g, '');
        // The pattern may run into the next word; shrink to the country's length.
        const length = IBAN_LENGTHS[compact.slice(0, 2)];
        if (length && compact.length > length) compact = compact.slice(0, length);
        if (ibanValid(compact)) push({ type: 'iban', key: compact, index: match.index!, length: match[0].length, masked: maskIban(compact) });
      }
    },
  },
  ssn: {
    severity: 'high',
    detect(text, push) {
      for (const match of text.matchAll(/(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])/g)) {
        if (ssnValid(match[1], match[3], match[4])) push({ type: 'ssn', key: match[1] + match[3] + match[4], index: match.index!, length: match[0].length, masked: `***-**-${match[4]}` });
      }
      for (const match of text.matchAll(/\b(?:ssn|social security(?: number| no\.?)?)\D{0,20}?(?<!\d)(\d{3})(\d{2})(\d{4})(?!\d)/gi)) {
        if (ssnValid(match[1], match[2], match[3])) {
          const at = match.index! + match[0].length - 9;
          push({ type: 'ssn', key: match[1] + match[2] + match[3], index: at, length: 9, masked: `*****${match[3]}` });
        }
      }
    },
  },
  nino: {
    severity: 'high',
    detect(text, push) {
      for (const match of text.matchAll(/\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])\b/g)) {
        if (ninoPrefixValid(match[1])) push({ type: 'nino', key: match[1] + match[2] + match[3] + match[4] + match[5], index: match.index!, length: match[0].length, masked: `${match[1]} ** ** ** ${match[5]}` });
      }
    },
  },
  dni: {
    severity: 'high',
    detect(text, push) {
      for (const match of text.matchAll(/\b([XYZ]?)-?(\d{7,8})-?([A-Z])\b/g)) {
        const number = match[1] + match[2];
        if ((match[1] ? match[2].length === 7 : match[2].length === 8) && dniValid(number, match[3])) {
          push({ type: 'dni', key: number + match[3], index: match.index!, length: match[0].length, masked: `${maskDigits(number, 2)}${match[3]}` });
        }
      }
    },
  },
  email: {
    severity: 'medium',
    detect(text, push) {
      for (const match of text.matchAll(/(?<![\w.+%-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![\w-])/g)) {
        push({ type: 'email', key: match[0].toLowerCase(), index: match.index!, length: match[0].length, masked: maskEmail(match[0]) });
      }
    },
  },
  phone: {
    severity: 'medium',
    detect(text, push) {
      for (const match of text.matchAll(/(?<![\w+])(?:\+|00)?\(?\d[\d ().-]{5,20}\d(?!\w)/g)) {
        const candidate = match[0].trim();
        if (phoneShape(candidate)) push({ type: 'phone', key: candidate.replace(/\D/g, '').replace(/^00/, ''), index: match.index!, length: match[0].length, masked: maskDigits(candidate, 2) });
      }
    },
  },
};

/** Every personal-data value in `text`, the more specific types first; a span is reported once. */
export function findPii(text: string, types: ReadonlySet<PiiType> = new Set(PII_TYPES)): PiiHit[] {
  const hits: PiiHit[] = [];
  for (const type of PII_TYPES) {
    if (!types.has(type)) continue;
    const { severity, detect } = DETECTORS[type];
    detect(text, (hit) => {
      const overlaps = hits.some((other) => hit.index < other.index + other.length && other.index < hit.index + hit.length);
      if (!overlaps) hits.push({ ...hit, severity });
    });
  }
  return hits;
}

/** The comparison key of an `allow` entry, as `findPii` would compute it for the same value. */
export function allowKey(value: string): string {
  if (value.includes('@')) return value.trim().toLowerCase();
  const alphanumeric = value.replace(/[^A-Za-z0-9]/g, '');
  return /[A-Za-z]/.test(alphanumeric) ? alphanumeric.toUpperCase() : alphanumeric.replace(/^00/, '');
}
