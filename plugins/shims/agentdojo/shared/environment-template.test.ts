/**
 * The parsed-once environment against the whole text parsed again: for each suite's environment and injections
 * that fold, escape, break lines and sit at line ends, the loaded state is the same, or both refuse alike.
 */
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { environmentText, injectEnvironment, loadEnvironment, pyFormat, vectorsOf } from './environment.ts';
import { environmentTemplate, injectTemplate } from './environment-template.ts';
import { readAgentDojoSuite } from './data.ts';
import { AGENTDOJO_DATA } from '../testing/gt-agent.ts';

const OPTIONS = { version: '1.1', maxAliasCount: -1, uniqueKeys: false, intAsBigInt: false } as const;
/** The whole formatted text parsed, as loading did before templates. */
const whole = (text: string, injections: Record<string, string>) => parse(injectEnvironment(text, injections), OPTIONS);

const INJECTIONS = [
  (name: string) => `plain text for ${name}`,
  () => '\n\n\n<INFORMATION>\n\nThis is an important message from me, Emma Johnson.\n\n</INFORMATION>\n\n\n',
  () => '  leading and trailing spaces  ',
  () => 'a backslash \\t escape, a \\\nbroken line and a tab\there',
  () => '',
  () => 'ünïcödé ✓ 🙂 and a # and a: colon',
];

describe('agentdojo: the environment parsed once', () => {
  for (const suite of ['banking', 'slack', 'travel', 'workspace']) {
    it(`${suite}: gives the state the whole text gives, for injections that fold, escape and break lines`, async () => {
      const data = await readAgentDojoSuite(AGENTDOJO_DATA, suite, (path) => readFile(path));
      const vectors = Object.keys(vectorsOf(data.vectorsYaml));
      const text = environmentText(data.environmentYaml, vectors, data.includes);
      const template = environmentTemplate(text, pyFormat, OPTIONS);
      expect(template, 'the suite\'s environment has a template').toBeDefined();
      for (const injection of INJECTIONS) {
        const injections = Object.fromEntries(vectors.map((name) => [name, injection(name)]));
        expect(injectTemplate(template!, injections), JSON.stringify(injection(vectors[0]!))).toEqual(whole(text, injections));
      }
    });
  }

  it('leaves to the whole parse what it cannot be sure of: a quote, a missing field, a marker outside a quoted string', () => {
    const text = '"a":\n  "text": "before {inj} after"\n  "n": 1\n';
    const template = environmentTemplate(text, pyFormat, OPTIONS)!;
    expect(injectTemplate(template, { inj: 'x", "y' })).toBeUndefined();
    expect(injectTemplate(template, {})).toBeUndefined();
    // `\ ` is YAML's escaped space, read alike either way; before the closing quote a backslash escapes it.
    expect(injectTemplate(template, { inj: 'a backslash \\' })).toEqual(whole(text, { inj: 'a backslash \\' }));
    expect(injectTemplate(environmentTemplate('"a": "before {inj}"\n"b": "x"\n', pyFormat, OPTIONS)!, { inj: 'a backslash \\' })).toBeUndefined();
    expect(injectTemplate(template, { inj: 'fine' })).toEqual({ a: { text: 'before fine after', n: 1 } });
    expect(environmentTemplate('"a": {inj}\n', pyFormat, OPTIONS)).toBeUndefined();
    expect(environmentTemplate('"{inj}": "x"\n', pyFormat, OPTIONS)).toBeUndefined();
    expect(environmentTemplate('"a": &x "{inj}"\n"b": *x\n', pyFormat, OPTIONS)).toBeUndefined();
  });

  it('loads as before where the template steps aside, errors included', () => {
    const text = '"a":\n  "text": "before {inj} after"\n';
    expect(() => loadEnvironment(text, { inj: 'x\n--- y' }, 'dict' as never)).toThrow(/document separator/);
    expect(() => loadEnvironment(text, {}, 'dict' as never)).toThrow(/KeyError: 'inj'/);
  });
});
