import { describe, it, expect } from 'vitest';
import { defineShim, type Shim } from './shim.ts';

const base: Shim = {
  name: 'notes',
  description: 'A notebook.',
  actions: [{ name: 'read', description: 'Read a note.', readOnly: true, parameters: { type: 'object' } }],
  initialState: () => ({ notes: [] }),
  call: (_action, _params, state) => ({ result: null, state }),
};

describe('core: defineShim', () => {
  it('keeps incidental pointers, frozen, and checks each is an RFC 6901 pointer below the view', () => {
    const shim = defineShim({ ...base, incidental: ['/notes/*/opened_at', '/a~1b'] });
    expect(shim.incidental).toEqual(['/notes/*/opened_at', '/a~1b']);
    expect(Object.isFrozen(shim.incidental)).toBe(true);
    expect(() => defineShim({ ...base, incidental: ['notes/*/opened_at'] })).toThrow('shim "notes": incidental "notes/*/opened_at" is not a JSON Pointer (RFC 6901): it must be empty or start with "/"');
    expect(() => defineShim({ ...base, incidental: ['/notes/~2'] })).toThrow(/"~" at 7 must be followed by 0 or 1/);
    expect(() => defineShim({ ...base, incidental: [''] })).toThrow('names the whole view: nothing would be compared');
    expect(() => defineShim({ ...base, incidental: '/notes' as never })).toThrow('incidental must be a list of JSON Pointers');
  });
});
