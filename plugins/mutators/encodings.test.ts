import { describe, it, expect } from 'vitest';
import { createRng } from '../../core/domain/rng.ts';
import base64, { toBase64 } from './base64.ts';
import rot13Mutator, { rot13 } from './rot13.ts';
import leetspeak from './leetspeak.ts';
import homoglyph from './homoglyph.ts';
import caseMutator from './case.ts';
import whitespace from './whitespace.ts';
import punctuation from './punctuation.ts';
import zeroWidth from './zero-width.ts';
import type { Mutator } from '../../core/mutator.ts';

const run = (mutator: Mutator, text: string, seed = 1, options: Record<string, unknown> = {}) => mutator.mutate(text, { rng: createRng(seed), options }) as string;
const decode = (encoded: string) => new TextDecoder().decode(Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0)));

describe('mutators: encodings and character-level noise', () => {
  it('base64 encodes the UTF-8 bytes (RFC 4648), wrapped or bare', () => {
    expect(toBase64('hello')).toBe('aGVsbG8=');
    expect(decode(run(base64, 'Grüße 👋', 1, { wrap: false }))).toBe('Grüße 👋');
    expect(run(base64, 'hi')).toMatch(/Base64-encoded.*\naGk=$/s);
  });

  it('rot13 rotates ASCII letters only and is its own inverse', () => {
    expect(rot13('Hello, World! é 中')).toBe('Uryyb, Jbeyq! é 中');
    expect(rot13(rot13('The Quick Brown Fox'))).toBe('The Quick Brown Fox');
    expect(run(rot13Mutator, 'abc', 1, { wrap: false })).toBe('nop');
  });

  it('leetspeak writes look-alike digits', () => {
    expect(run(leetspeak, 'leet speak', 1, { rate: 1 })).toMatch(/^[1|][3][3][7+] [5$]p[3][4@]k$/);
  });

  it('homoglyph swaps letters for confusables that look the same', () => {
    const out = run(homoglyph, 'Pay the invoice', 1, { rate: 1 });
    expect(out).not.toBe('Pay the invoice');
    expect(out.length).toBe('Pay the invoice'.length);
    expect(/[^\x00-\x7f]/.test(out)).toBe(true);
  });

  it('case supports every mode', () => {
    expect(run(caseMutator, 'hello World', 1, { mode: 'upper' })).toBe('HELLO WORLD');
    expect(run(caseMutator, 'Hello World', 1, { mode: 'lower' })).toBe('hello world');
    expect(run(caseMutator, 'hello big world', 1, { mode: 'title' })).toBe('Hello Big World');
    expect(run(caseMutator, 'abcdef', 1, { mode: 'alternating' })).toMatch(/^(aBcDeF|AbCdEf)$/);
    expect(run(caseMutator, 'straße', 1, { mode: 'upper' })).toBe('STRAßE');
  });

  it('whitespace changes only the spacing', () => {
    const out = run(whitespace, 'one two three four', 2, { rate: 1 });
    expect(out).not.toBe('one two three four');
    expect(out.replace(/\s+/g, '')).toBe('onetwothreefour');
  });

  it('punctuation changes only punctuation', () => {
    const out = run(punctuation, 'Hello, how are you today?', 3, { rate: 1 });
    expect(out).not.toBe('Hello, how are you today?');
    expect(out.replace(/[^\p{L}\s]/gu, '').replace(/\s+/g, ' ').trim()).toBe('Hello how are you today');
  });

  it('zero_width inserts only invisible characters', () => {
    const out = run(zeroWidth, 'password', 4, { rate: 1 });
    expect(out.length).toBe('password'.length * 2 - 1);
    expect(out.replace(/[\u200b\u200c\u2060\ufeff]/g, '')).toBe('password');
  });
});
