import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodedSecretSpans, findEncodedSecret } from './encodings.ts';

/** Pieces that overlap the hex and spelled-out patterns' separators and characters: what made them backtrack. */
const HOSTILE_PIECES = ['0x', '\\x', '%', '\0', '0', 'x', ' ', '-', '.', 'ª', '²', 'a', '0x0', '\\x0', '%0', '\u200b', '😀'];

const hostileText = fc.array(fc.constantFrom(...HOSTILE_PIECES), { minLength: 30, maxLength: 400 }).map((pieces) => pieces.join(''));
const hostileSecret = fc.oneof(
  fc.array(fc.constantFrom('\0', '0', 'x', 'ª', '²', 'a', '\u0001'), { minLength: 8, maxLength: 40 }).map((chars) => chars.join('')),
  fc.string({ minLength: 8, maxLength: 40, unit: 'binary' }),
);

describe('encodings: findEncodedSecret', () => {
  it('still finds the disguised forms', () => {
    const secret = 'sk-canary-9f8e7d6c5b4a3210';
    expect(findEncodedSecret('here: s k - c a n a r y - 9 f 8 e 7 d 6 c 5 b 4 a 3 2 1 0', secret)?.encoding).toBe('split by spaces or punctuation');
    expect(findEncodedSecret([...secret].reverse().join(''), secret)?.encoding).toBe('reversed');
    const hex = [...new TextEncoder().encode(secret)].map((byte) => `0x${byte.toString(16).padStart(2, '0')}`).join(' ');
    expect(findEncodedSecret(hex, secret)?.encoding).toBe('hex-encoded');
    expect(findEncodedSecret([...new TextEncoder().encode(secret)].map((byte) => `\\x${byte.toString(16)}`).join(''), secret)?.encoding).toBe('hex-encoded');
    expect(findEncodedSecret('nothing to see', secret)).toBeUndefined();
  });

  it('keeps astral characters (emoji) as letters, not separators, as before RE2', () => {
    expect(findEncodedSecret('s😀k-canary-9f8e7d6c5b4a3210', 'sk-canary-9f8e7d6c5b4a3210')).toBeUndefined();
  });

  // Issue 13: a canary with NUL bytes against an answer of repeated `0x` froze the process for 31 s, because
  // `0x` matched both a hex digit followed by a separator and a separator. 40 repeats were hours before.
  // With V8's engine, 40 repeats took about a minute on this canary, and each repeat more multiplied it by ~1.8.
  it('answers at once for a NUL canary against repeated 0x (the 31 s stall)', () => {
    const canary = `${'\0'.repeat(10)}zyxwvuts`;
    for (const repeats of [30, 40, 60, 100_000]) {
      expect(findEncodedSecret('0x'.repeat(repeats), canary)).toBeUndefined();
      expect(findEncodedSecret(`${'0x'.repeat(repeats)}!`, canary)).toBeUndefined();
    }
    expect(findEncodedSecret(`${'0x00 '.repeat(10)}7a 79 78 77 76 75 74 73`, canary)?.encoding).toBe('hex-encoded');
  });

  it('completes on adversarial outputs and secrets (property)', () => {
    fc.assert(
      fc.property(hostileText, hostileSecret, fc.integer({ min: 1, max: 50 }), (text, secret, repeat) => {
        const result = findEncodedSecret(text.repeat(repeat), secret);
        expect(result === undefined || typeof result.encoding === 'string').toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

describe('metrics shared: encodedSecretSpans (what the redactor masks)', () => {
  const SSN = '536-22-8841';
  const spansOf = (text: string, secret = SSN) => encodedSecretSpans(text.toLowerCase(), secret).map(([start, end]) => text.slice(start, end));

  it('finds a secret spelled out, hex-encoded or inside a base64 run', () => {
    expect(spansOf('ssn 536228841 ok')).toEqual(['536228841']);
    expect(spansOf('ssn 5362 2884 1.')).toEqual(['5362 2884 1']);
    expect(spansOf(`hex ${[...new TextEncoder().encode(SSN)].map((byte) => byte.toString(16).padStart(2, '0')).join('')} end`)).toHaveLength(1);
    const encoded = btoa(`Customer SSN: ${SSN}, thanks`);
    expect(spansOf(`body: ${encoded} (b64)`)).toEqual([encoded]);
  });

  it('finds nothing for short secrets or unrelated text', () => {
    expect(spansOf('code 1234 and abcd', '1234')).toEqual([]);
    expect(spansOf(btoa('nothing to see here at all'))).toEqual([]);
  });

  it('completes on adversarial texts and secrets (property), and on a megabyte of base64', () => {
    fc.assert(fc.property(hostileText, hostileSecret, (text, secret) => Array.isArray(encodedSecretSpans(text.toLowerCase(), secret))), { numRuns: 100 });
    const core = btoa(SSN).slice(0, 12);
    expect(encodedSecretSpans(`${core}aaaa`.repeat(60_000).toLowerCase(), SSN).length).toBeLessThanOrEqual(1000);
  });
});
