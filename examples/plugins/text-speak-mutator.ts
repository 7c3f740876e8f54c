/**
 * Example mutator plugin: `text_speak` rewrites task inputs the way people type on a phone ("pls", "u", "2moro"),
 * to check that an agent still understands its users when they do not write like a manual. Each word it knows is
 * replaced with probability `rate` (default 0.7), drawn from the seeded generator the engine passes in, so the
 * same seed always gives the same variant; at least one word changes whenever one can.
 *
 * Load it from `aeh.config.ts` in PROJECT_ROOT or with `AEH_PLUGINS=./examples/plugins/text-speak-mutator.ts`,
 * then ask for `{"type": "text_speak"}` from `POST /api/v1/mutate` or list it in a run's `mutations`.
 */
import type { Mutator, MutatorContext, Plugin } from '../../core/plugin-api.ts';

/** Words and how they are typed in a hurry; matched whole and case-insensitively. */
const SHORTHAND: Readonly<Record<string, string>> = {
  you: 'u', your: 'ur', are: 'r', please: 'pls', thanks: 'thx', because: 'bc', before: 'b4', tomorrow: '2moro',
  today: '2day', tonight: '2nite', message: 'msg', people: 'ppl', really: 'rly', okay: 'ok', to: '2', for: '4',
  see: 'c', why: 'y', what: 'wat', with: 'w/', without: 'w/o', about: 'abt', account: 'acct', number: 'nr',
};

/** A word of ASCII letters that is not part of a longer word (`your` inside `yourself` stays). */
const WORD = /(?<![\p{L}\p{N}])[A-Za-z]+(?![\p{L}\p{N}])/gu;

export const textSpeak: Mutator = {
  type: 'text_speak',
  description: 'Rewrites known words as phone shorthand ("please" -> "pls", "you" -> "u"), each with probability `rate`.',
  deterministic: true,
  mutate(text: string, { rng, options }: MutatorContext): string {
    const rate = typeof options.rate === 'number' ? Math.min(Math.max(options.rate, 0), 1) : 0.7;
    const known = [...text.matchAll(WORD)].filter((match) => Object.hasOwn(SHORTHAND, match[0].toLowerCase()));
    if (known.length === 0) return text;
    const chosen = new Set(known.filter(() => rng.next() < rate));
    if (chosen.size === 0) chosen.add(known[rng.int(known.length)]!);
    let result = '';
    let at = 0;
    for (const match of known) {
      if (!chosen.has(match)) continue;
      const short = SHORTHAND[match[0].toLowerCase()]!;
      // "Please" becomes "Pls": a capital stays a capital.
      const cased = match[0][0] === match[0][0]!.toUpperCase() ? short[0]!.toUpperCase() + short.slice(1) : short;
      result += text.slice(at, match.index) + cased;
      at = match.index! + match[0].length;
    }
    return result + text.slice(at);
  },
};

export default {
  name: 'example-text-speak',
  version: '1.0.0',
  setup(host) {
    host.mutators.register(textSpeak, 'example-text-speak');
  },
} satisfies Plugin;
