/**
 * Hostile inputs for the personal-data detectors (issue 16): the pieces their patterns are built from, repeated
 * to a megabyte. As in ../hostile.test.ts these are completion properties, not timings: a pattern that
 * backtracked or a quadratic overlap check would take minutes to hours on these inputs, a linear one
 * milliseconds to a second.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PII_TYPES, findPii } from './pii.ts';
import { MAX_PARSES, findPhones, loadPhoneNumbers } from './phone.ts';
import { contextOf } from './pii-context.ts';
import { cpuMs, CPU_BOUND_TIMEOUT_MS } from '../../../test/cpu-time.ts';

const ALL = new Set(PII_TYPES);
const MEGABYTE = 1_000_000;
const fill = (piece: string, length = MEGABYTE) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length);

const PIECES = ['1', '0', '.', ':', '-', ' ', '(', ')', '+', '00', '@', 'a', 'ü', 'xn--', 'AB', 'ab', 'x', 'Z', '12', '8.8.8.8', 'ffff', '::', 'ssn ', 'call ', 'order ', '\u200b', '😀'];
const hostile = fc.tuple(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }), fc.integer({ min: 30, max: 3000 }))
  .map(([pieces, repeats]) => pieces.join('').repeat(repeats));

beforeAll(() => loadPhoneNumbers());

describe('pii detectors: hostile outputs', () => {
  it('complete on repeated pattern pieces (property)', () => {
    fc.assert(fc.property(hostile, (text) => Array.isArray(findPii(text, ALL))), { numRuns: 40 });
  });

  it.each([
    ['dotted digit runs (IPv4, dotted SSNs, phone candidates)', fill('1.')],
    ['colon and hex runs (IPv6)', fill('a:')],
    ['colon runs', fill(':')],
    ['hex groups with a mapped IPv4 tail', fill('ffff::1.2.3.4:')],
    ['e-mail local parts without a domain', fill('a.')],
    ['an @ after a megabyte of letters', `${fill('ü')}@`],
    ['domain labels without a top-level domain', `x@${fill('ü-.')}`],
    ['letter-digit runs (NINO, DNI, IBAN)', fill('AB12')],
    ['lower-case letter-digit runs', fill('ab 12 ')],
    ['digit runs with separators (cards, SSNs)', fill('1 ')],
    ['context words without values', fill('call ssn order ')],
  ])('complete on a megabyte of %s', (_name, text) => {
    expect(Array.isArray(findPii(text, ALL))).toBe(true);
  });

  it('stay linear when an output holds very many values (overlaps by binary search)', () => {
    const cards = fill('4111 1111 1111 1111, ', 400_000);
    const hits = findPii(cards, ALL);
    expect(hits.length).toBeGreaterThan(15_000);
    expect(hits.every((hit) => hit.type === 'card')).toBe(true);
    expect(findPii(fill('jane@example.org ', 400_000), ALL).length).toBeGreaterThan(20_000);
  });

  it('bound the phone parses of one output', async () => {
    // Distinct national-looking numbers, each valid nowhere and so tried in every region.
    let table = '';
    for (let i = 0; table.length < 400_000; i++) table += `${1000 + (i % 9000)} ${1000 + ((i * 7919) % 9000)}, `;
    // MAX_PARSES parses at a few microseconds each; generous for a slow machine.
    expect(await cpuMs(() => findPhones(table))).toBeLessThan(MAX_PARSES * 0.5);
  }, CPU_BOUND_TIMEOUT_MS);

  it('read context within a bounded window only', () => {
    const text = `ssn ${fill(' ', 100_000)}536228841`;
    expect(contextOf(text, text.length - 9, 'ssn')).toBeUndefined();
    expect(findPii(text, new Set(['ssn']))).toEqual([]);
  });
});
