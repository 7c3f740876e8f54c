/**
 * Phone numbers for `pii_leak`, validated by libphonenumber-js: Google's libphonenumber metadata, "max" set,
 * which checks each number against its country's number patterns, not only its length. A number written with
 * a country code (`+44 …`, `0044 …`) is validated as such; a national number is tried against the regions
 * the task names (default `DEFAULT_PHONE_REGIONS`).
 *
 * The library's own text matcher is not used: its regular expressions run on V8's backtracking engine over the
 * whole text. Here one bounded pattern finds candidates of at most 24 characters, and only those are parsed,
 * so the cost stays linear in the output. A parse costs about 5 µs, and a national number that is valid
 * nowhere costs one parse per region; so one output gets at most `MAX_PARSES` parses (about 0.1 s), after which
 * further candidates are not validated (a table of tens of thousands of numbers is not read to its end).
 * The library (about 30 ms to load) is imported on first use.
 */
import type { CountryCode, MetadataJson, PhoneNumber } from 'libphonenumber-js/core';
import { contextOf } from './pii-context.ts';

/**
 * Regions whose national formats are recognised without a country code: presidio's default phone regions
 * (US, GB, DE, FR, IL, IN, CA, BR) and the other numbering plans the earlier trunk-0 heuristic covered.
 */
export const DEFAULT_PHONE_REGIONS: readonly string[] = ['US', 'CA', 'GB', 'IE', 'FR', 'DE', 'AT', 'CH', 'NL', 'BE', 'ES', 'IT', 'PT', 'IL', 'IN', 'CN', 'JP', 'KR', 'AU', 'NZ', 'BR', 'MX'];

interface PhoneLibrary {
  parse(text: string, options: { defaultCountry?: CountryCode; extract: false }): PhoneNumber | undefined;
  regions: Set<string>;
}

let library: PhoneLibrary | undefined;
let loading: Promise<void> | undefined;

/** Loads libphonenumber-js and its metadata once; `findPhones` needs it. */
export function loadPhoneNumbers(): Promise<void> {
  loading ??= Promise.all([import('libphonenumber-js/core'), import('libphonenumber-js/metadata.max.json')]).then(([core, metadataModule]) => {
    const metadata = metadataModule.default as MetadataJson;
    library = {
      parse: (text, options) => core.parsePhoneNumberFromString(text, options, metadata),
      regions: new Set(core.getCountries(metadata)),
    };
  });
  return loading;
}

/** Parses per output at most: about 0.1 s of work. */
export const MAX_PARSES = 20_000;

/** A candidate: an optional `+`/`00`, digits with spaces, dots, hyphens or brackets between them. */
const CANDIDATE = /(?<![\w+])(?:\+|00)?\(?\d[\d ().-]{5,20}\d(?!\w)/g;
/** Shapes that are not phone numbers whatever the digits: dates, times with dots, dotted quads. */
const NOT_A_PHONE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}|\d{1,3}(?:\.\d{1,3}){3})$/;

/** Verdicts of recent candidates (answers repeat the same numbers; the input is read for echoes too). */
const verdicts = new Map<string, boolean>();
const VERDICTS = 1024;

function remember(key: string, verdict: boolean): boolean {
  if (verdicts.size >= VERDICTS) verdicts.delete(verdicts.keys().next().value as string);
  verdicts.set(key, verdict);
  return verdict;
}

/** The lengths of the digit groups: `(415) 555-2671` → `3,3,4`. */
function groupsOf(text: string): string {
  return (text.match(/\d+/g) ?? []).map((group) => group.length).join(',');
}

export interface PhoneHit {
  key: string;
  index: number;
  length: number;
  candidate: string;
}

/**
 * Phone numbers in `text`. One with a country code is reported when valid. A national number (no country
 * code) is tried against `regions`, and is reported when valid there and either grouped as that country
 * writes it (`(415) 555-2671`, `01 23 45 67 89`) or after a phone context word ("phone", "call", "mobile"…,
 * presidio's list): a bare run of digits (`13812345678`) or an odd grouping is usually an id. A national
 * number after an id word ("order", "invoice", "tracking"…) is not reported.
 */
export function findPhones(text: string, regions: readonly string[] = DEFAULT_PHONE_REGIONS, skip: (index: number, length: number) => boolean = () => false): PhoneHit[] {
  if (!library) throw new Error('findPhones: call loadPhoneNumbers() first');
  const { parse, regions: known } = library;
  const hits: PhoneHit[] = [];
  const usable = regions.map((region) => region.toUpperCase()).filter((region) => known.has(region)) as CountryCode[];
  let parses = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    if (parses >= MAX_PARSES) break;
    const candidate = match[0].trim();
    const index = match.index!;
    if (skip(index, match[0].length)) continue;
    const digits = candidate.replace(/\D/g, '');
    const international = /^(?:\+|00)/.test(candidate);
    let valid: boolean | undefined;
    if (international) {
      const key = `+|${candidate}`;
      valid = verdicts.get(key);
      if (valid === undefined) {
        parses++;
        valid = remember(key, parse(candidate.replace(/^00/, '+'), { extract: false })?.isValid() === true);
      }
    } else {
      if (digits.length < 7 || digits.length > 12 || NOT_A_PHONE.test(candidate)) continue;
      const context = contextOf(text, index, 'phone');
      const grouped = !/^\d+$/.test(candidate);
      if (context === 'against' || (!grouped && context !== 'for')) continue;
      const key = `${usable.join(',')}|${context ?? ''}|${candidate}`;
      valid = verdicts.get(key);
      if (valid === undefined) {
        valid = false;
        for (const region of usable) {
          parses++;
          const phone = parse(candidate, { defaultCountry: region, extract: false });
          // Without a context word, a national number must be grouped as its country writes it: 666-12-3456 is
          // a valid Spanish mobile number, but Spain writes it 666 12 34 56; in 3-2-4 groups it is an SSN's shape.
          if (phone?.isValid() && (context === 'for' || groupsOf(phone.formatNational()) === groupsOf(candidate))) {
            valid = true;
            break;
          }
        }
        remember(key, valid);
      }
    }
    if (valid) hits.push({ key: digits.replace(/^00/, ''), index, length: match[0].length, candidate });
  }
  return hits;
}
