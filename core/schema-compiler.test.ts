import { describe, it, expect } from 'vitest';
import { ajvLoaded, createAjv } from './schema-compiler.ts';

describe('schema compiler', () => {
  it('loads ajv on the first compile, with the formats', () => {
    // (Whether ajv is loaded before depends on the test files that ran earlier in this worker.)
    const validate = createAjv({ allErrors: true }).compile({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } } });
    expect(ajvLoaded()).toBe(true);
    expect(validate({ at: '2026-11-28T14:00:00Z' })).toBe(true);
    expect(validate({ at: 'yesterday' })).toBe(false);
  });
});
