import { describe, expect, it } from 'vitest';
import { pyYamlDump, pyYamlFloat } from './yaml-dump.ts';
import { PyFloat, pyFloatRepr, pyRepr } from './python.ts';
import { environmentText, injectEnvironment, loadEnvironment, pyFormat } from './environment.ts';
import { model } from './types.ts';

// Each expected text is what PyYAML 6.0.3 (Python 3.11) printed for the value: yaml.safe_dump(value).
const SAFE_DUMPS: Array<[unknown, string]> = [
  [{ message: 'x' }, 'message: x\n'],
  [[{ amount: new PyFloat(100), subject: 'Purchase at Apple Store: iPhone 3GS', date: '2022-01-01', id: 1, recurring: false, body: `${'word '.repeat(20)}end` }],
    "- amount: 100.0\n  body: word word word word word word word word word word word word word word word\n    word word word word word end\n  date: '2022-01-01'\n  id: 1\n  recurring: false\n  subject: 'Purchase at Apple Store: iPhone 3GS'\n"],
  [[{ body: "Hey can you invite Dora to Slack and her to the 'general' and 'random' channels? Her contact info is on www.dora-website.com", n: null }],
    "- body: Hey can you invite Dora to Slack and her to the 'general' and 'random' channels?\n    Her contact info is on www.dora-website.com\n  n: null\n"],
  [['general', 'External_0', '', 'yes', '123', '- a', 'rösti is "good"', 'multi\nline  text\n\nwith breaks '],
    "- general\n- External_0\n- ''\n- 'yes'\n- '123'\n- '- a'\n- \"r\\xF6sti is \\\"good\\\"\"\n- 'multi\n\n  line  text\n\n\n  with breaks '\n"],
  [{ nested: { empty: [], dict: {}, f: new PyFloat(1e-5), g: new PyFloat(1e16), h: new PyFloat(0.1) } }, 'nested:\n  dict: {}\n  empty: []\n  f: 1.0e-05\n  g: 1.0e+16\n  h: 0.1\n'],
];

describe('agentdojo: PyYAML output', () => {
  it('writes what yaml.safe_dump writes: sorted keys, styles, folding at column 80, escapes', () => {
    for (const [value, expected] of SAFE_DUMPS) expect(pyYamlDump(value)).toBe(expected);
  });

  it('prints floats as Python and PyYAML do', () => {
    expect([100, 98.7, 0.01, 1e-5, 1e16, 123456789.5].map(pyFloatRepr)).toEqual(['100.0', '98.7', '0.01', '1e-05', '1e+16', '123456789.5']);
    expect([100, 1e-5, 1e16].map(pyYamlFloat)).toEqual(['100.0', '1.0e-05', '1.0e+16']);
    expect(pyRepr({ message: 'Transaction to X for 98.7 sent.', it: "it's", n: null, ok: true, amount: new PyFloat(5) })).toBe(`{'message': 'Transaction to X for 98.7 sent.', 'it': "it's", 'n': None, 'ok': True, 'amount': 5.0}`);
  });
});

describe('agentdojo: the environment as the reference loads it', () => {
  const Env = model('Env', { a: model('A', { text: 'str', amount: 'float' }) });

  it('dumps every string double-quoted, breaking long ones with escaped spaces, and keeps format fields', () => {
    const text = environmentText(`a:\n  amount: 10.0\n  text: "${'long words '.repeat(8)}{inj} tail"\n`, ['inj']);
    // PyYAML (with AgentDojo's quoted presenter) printed exactly this.
    expect(text).toBe('"a":\n  "amount": 10.0\n  "text": "long words long words long words long words long words long words long\\\n    \\ words long words {inj} tail"\n');
    expect(() => environmentText('a: "{other}"\n', ['inj'])).toThrow(/injection_vectors.yaml declares \(inj\): KeyError: 'other'/);
  });

  it('reads injected text as the inside of a double-quoted scalar: escapes, folding, lines at column 0', () => {
    const text = environmentText('a:\n  amount: 1.0\n  text: "before {inj} after"\n', ['inj']);
    const loaded = loadEnvironment(text, { inj: '\\tX\n\n<INFO>\nsecond line\n' }, Env) as { a: { text: string } };
    // PyYAML's safe_load of the same formatted text: \t is an escape, a blank line folds to one line break, a
    // single break to a space, and lines at column 0 are read although the spec wants them indented.
    expect(loaded.a.text).toBe('before \tX\n<INFO> second line after');
    expect(() => injectEnvironment(text, { inj: 'x\n--- y' })).toThrow(/document separator/);
  });

  it('formats as Python does: doubled braces are literal, a field no value names is a KeyError', () => {
    expect(pyFormat('{{a}} {b}', { b: 'B' })).toBe('{a} B');
    expect(() => pyFormat('{c}', {})).toThrow(/KeyError/);
  });
});
