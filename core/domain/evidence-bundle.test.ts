import { describe, it, expect } from 'vitest';
import { BUNDLE_FORMAT, fileInBundle, packBundle, unpackBundle } from './evidence-bundle.ts';

const encoder = new TextEncoder();
const files = { 'scores.json': encoder.encode('{"index":0.5,"note":"é\\n"}'), 'failures.json': encoder.encode('[]'), 'summary.json': new Uint8Array([0, 10, 255]) };

describe('domain: evidence bundle', () => {
  it('gives back each file\'s exact bytes, newlines and non-UTF-8 bytes included', () => {
    const bundle = packBundle(files);
    const unpacked = unpackBundle(bundle)!;
    expect([...unpacked.keys()]).toEqual(['scores.json', 'failures.json', 'summary.json']);
    for (const [name, bytes] of Object.entries(files)) expect(unpacked.get(name)).toEqual(bytes);
    expect(fileInBundle(bundle, 'world.json')).toBeNull();
    expect(new TextDecoder().decode(bundle.subarray(0, bundle.indexOf(10)))).toBe(`{"format":"${BUNDLE_FORMAT}","files":[["scores.json",27],["failures.json",2],["summary.json",3]]}`);
  });

  it('an empty file and an empty bundle round-trip', () => {
    expect(unpackBundle(packBundle({ 'a.json': new Uint8Array() }))!.get('a.json')).toEqual(new Uint8Array());
    expect(unpackBundle(packBundle({}))!.size).toBe(0);
  });

  it('refuses a record whose frame does not add up: truncated, extended, or a header it did not write', () => {
    const bundle = packBundle(files);
    expect(unpackBundle(bundle.subarray(0, bundle.length - 1))).toBeNull();
    expect(unpackBundle(new Uint8Array([...bundle, 32]))).toBeNull();
    expect(fileInBundle(bundle.subarray(0, 10), 'scores.json')).toBeNull();
    expect(fileInBundle(null, 'scores.json')).toBeNull();
    const forged = (header: unknown, body = '') => encoder.encode(`${JSON.stringify(header)}\n${body}`);
    expect(unpackBundle(forged({ format: 'aeh-bundle/2', files: [] }))).toBeNull();
    expect(unpackBundle(forged({ format: BUNDLE_FORMAT, files: [['../run.json', 2]] }, '{}'))).toBeNull();
    expect(unpackBundle(forged({ format: BUNDLE_FORMAT, files: [['a.json', 1], ['a.json', 1]] }, '{}'))).toBeNull();
    expect(unpackBundle(forged({ format: BUNDLE_FORMAT, files: [['a.json', -1], ['b.json', 3]] }, '{}'))).toBeNull();
    expect(unpackBundle(forged({ format: BUNDLE_FORMAT, files: [['a.json', 1.5], ['b.json', 0.5]] }, '{}'))).toBeNull();
    expect(() => packBundle({ '../x': new Uint8Array() })).toThrow('is not a file name');
  });
});
