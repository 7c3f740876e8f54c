import { describe, it, expect } from 'vitest';
import { generateKeyPairSync, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { derToJoseEcdsa, fromBase64, toBase64, spkiPem } from './remote-signing.ts';

describe('core: remote signing helpers', () => {
  // About 1 signature in 128 has an r or s short enough to drop a byte in DER, so 1,000 random signatures miss
  // the case about once in 2,500 runs: sign on until a few short ones have gone through the conversion.
  it('converts DER ECDSA signatures to the JOSE r||s form (1000 signatures or more, leading zeros included)', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const message = Buffer.from('signing input');
    let short = 0;
    for (let i = 0; i < 1000 || (short < 3 && i < 100_000); i++) {
      const der = nodeSign('sha256', message, { key: privateKey, dsaEncoding: 'der' });
      if (der.length < 70) short++;
      const jose = derToJoseEcdsa(der);
      expect(jose).toHaveLength(64);
      expect(nodeVerify('sha256', message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(true);
    }
    expect(short).toBeGreaterThanOrEqual(3);
  });

  it('refuses malformed DER', () => {
    const good = nodeSign('sha256', Buffer.from('x'), { key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, dsaEncoding: 'der' });
    expect(() => derToJoseEcdsa(new Uint8Array([0x31, 0x00]))).toThrow(/SEQUENCE/);
    expect(() => derToJoseEcdsa(good.subarray(0, good.length - 1))).toThrow(/length|truncated/);
    expect(() => derToJoseEcdsa(Buffer.concat([good, Buffer.from([0])]))).toThrow();
    const tooBig = Buffer.from([0x30, 0x26, 0x02, 0x21, 0x01, ...new Array(32).fill(1), 0x02, 0x01, 0x01]);
    expect(() => derToJoseEcdsa(tooBig)).toThrow(/too large/);
  });

  it('round-trips base64 (standard and url-safe) and wraps SPKI as PEM', () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256);
    expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    expect(fromBase64(Buffer.from(bytes).toString('base64url'))).toEqual(bytes);
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(spkiPem(publicKey.export({ type: 'spki', format: 'der' }))).toBe(publicKey.export({ type: 'spki', format: 'pem' }));
  });
});
