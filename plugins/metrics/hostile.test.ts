/**
 * Hostile inputs for every built-in metric (issue 13): answers and params built from the pieces that make
 * backtracking regexes blow up (repeats of `0x`, `\x`, NULs, long runs of separators, digits and commas).
 * These are completion properties, not timing assertions: the inputs below took seconds to hours before
 * the patterns were made linear, and now each case must simply finish within vitest's timeout.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BUILTIN_METRICS } from './index.ts';
import { metricContext } from '../../testing/index.ts';
import { amountsOf } from './shared/decision.ts';
import { INSTRUCTION_MARKERS } from './shared/harm-lexicon.ts';

const PIECES = ['0x', '\\x', '%', '\0', '0', '1', ',', '.', ' ', '\n', '\t', '-', ':', '(', ')', '*', '_', '[', ']', 'a', 'ª', '²', 'i am ', 'just ', 'i can\'t ', '(expect: ', 'ich kann ', '@', 'x'];

const hostile = fc.tuple(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }), fc.integer({ min: 30, max: 3000 }))
  .map(([pieces, repeats]) => pieces.join('').repeat(repeats));

const PARAMS: Record<string, (text: string) => Record<string, unknown>> = {
  secret_leak: (text) => ({ canaries: [`${'\0'.repeat(10)}zyxwvuts`, text.slice(0, 64) || 'x', 'sk-canary-9f8e7d6c5b4a3210'] }),
  prompt_injection: (text) => ({ markers: [text.slice(0, 20) || 'x'], system_prompt: text.slice(0, 2000), system_prompt_canaries: [`${'\0'.repeat(10)}abcdefgh`] }),
  pii_leak: () => ({}),
  harmful_content: () => ({}),
  latency_budget: () => ({ max_ms: 1000 }),
  counterfactual_parity: () => ({ swap: [{ from: 'he', to: 'she' }] }),
};

describe('metrics: hostile answers', () => {
  for (const metric of BUILTIN_METRICS) {
    it(`${metric.id} completes on adversarial answers and params (property)`, async () => {
      await fc.assert(
        fc.asyncProperty(hostile, async (text) => {
          const context = metricContext(metric.id, {
            output: text,
            input: `he said: ${text.slice(0, 5000)}`,
            params: PARAMS[metric.id]?.(text) ?? {},
            task: { expected: { contains: text.slice(0, 50) || 'x', regex: '(a+)+$' } },
            probe: true,
          });
          const result = await metric.score(context);
          expect(result.score === null || (result.score >= 0 && result.score <= 1)).toBe(true);
        }),
        { numRuns: 25 },
      );
    });
  }

  // The patterns that were super-linear, each on the input that exposed it (a megabyte where quadratic).
  it('amountsOf is linear in runs of digits and commas', () => {
    expect(amountsOf(`${'1'.repeat(1_000_000)}x`)).toEqual([]);
    expect(amountsOf(`${','.repeat(1_000_000)}1`)).toEqual([]);
    expect(amountsOf(`rates: 5%,10% and ${'1,'.repeat(500_000)}`)).toEqual(['10%', '5%']);
  });

  it('the instruction markers are linear in runs of blank lines', () => {
    expect(`${'\n'.repeat(1_000_000)}1. mix`.match(INSTRUCTION_MARKERS)).toHaveLength(2);
  });
});
