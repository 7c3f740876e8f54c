import { describe, it, expect } from 'vitest';
import { MAX_CALL_TOKENS, modelOf, parsePriceTable, sumRunUsage, sumUsage, usageOf, type RunUsage } from './usage.ts';

describe('domain: usage', () => {
  it('reads the OpenAI and the input/output shapes, deriving only the total of two reported parts', () => {
    expect(usageOf({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 })).toEqual({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    expect(usageOf({ input_tokens: 10, output_tokens: 5 })).toEqual({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    expect(usageOf({ total_tokens: 7 })).toEqual({ total_tokens: 7 });
    expect(usageOf({ input_tokens: 3 })).toEqual({ input_tokens: 3 });
    // A total above its parts is kept as reported (reasoning or cached tokens some providers add).
    expect(usageOf({ input_tokens: 1, output_tokens: 1, total_tokens: 9 })).toEqual({ input_tokens: 1, output_tokens: 1, total_tokens: 9 });
    expect(usageOf({ input_tokens: 0, output_tokens: 0 })).toEqual({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
  });

  it('ignores a malformed report whole', () => {
    for (const raw of [
      undefined, null, 'usage', 42, [], [1, 2], {}, { foo: 1 },
      { input_tokens: -1, output_tokens: 1 }, { input_tokens: 1.5 }, { input_tokens: Number.NaN }, { input_tokens: Infinity },
      { input_tokens: '12' }, { output_tokens: true }, { total_tokens: MAX_CALL_TOKENS + 1 }, { prompt_tokens: 2 ** 60 },
      { input_tokens: 5, output_tokens: 5, total_tokens: 9 }, { input_tokens: { valueOf: () => 3 } },
    ]) expect(usageOf(raw), JSON.stringify(raw) ?? String(raw)).toBeUndefined();
  });

  it('sums tool rounds field by field, only over fields every round reported', () => {
    expect(sumUsage([{ input_tokens: 1, output_tokens: 2, total_tokens: 3 }, { input_tokens: 4, output_tokens: 5, total_tokens: 9 }])).toEqual({ input_tokens: 5, output_tokens: 7, total_tokens: 12 });
    expect(sumUsage([{ input_tokens: 1, total_tokens: 3 }, { input_tokens: 4, output_tokens: 5, total_tokens: 9 }])).toEqual({ input_tokens: 5, total_tokens: 12 });
    expect(sumUsage([{ input_tokens: 1 }, undefined])).toBeUndefined();
    expect(sumUsage([{ input_tokens: 1 }, { output_tokens: 1 }])).toBeUndefined();
    expect(sumUsage([])).toBeUndefined();
  });

  it('keeps short model names only', () => {
    expect(modelOf('gpt-4o')).toBe('gpt-4o');
    for (const raw of ['', 'x'.repeat(201), 3, ['gpt'], { name: 'gpt' }]) expect(modelOf(raw)).toBeUndefined();
  });

  it('parses a price table into a map where __proto__ and constructor are models like others', () => {
    const table = parsePriceTable('{"gpt-4o": {"input": 2.5, "output": 10}, "__proto__": {"input": 1, "output": 1}, "constructor": {"input": 0, "output": 0}}', 'AEH_PRICES');
    expect(table.get('gpt-4o')).toEqual({ input: 2.5, output: 10 });
    expect(table.get('__proto__')).toEqual({ input: 1, output: 1 });
    expect(table.get('constructor')).toEqual({ input: 0, output: 0 });
    expect(table.get('toString')).toBeUndefined();
    expect(parsePriceTable('{}', 'AEH_PRICES').size).toBe(0);
  });

  it('refuses a malformed price table naming the setting and the entry', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /^AEH_PRICES is not JSON/],
      ['null', /^AEH_PRICES must be a JSON object/],
      ['"gpt"', /^AEH_PRICES must be a JSON object/],
      ['{"": {"input": 1, "output": 1}}', /^AEH_PRICES: model names are 1 to 200/],
      ['{"m": [1, 2]}', /^AEH_PRICES: "m" must be/],
      ['{"m": {"input": 1e7, "output": 1}}', /"m"\.input must be a number from 0 to 1000000/],
      ['{"m": {"input": 1, "output": null}}', /"m"\.output must be a number/],
      ['{"m": {"input": 1, "output": 1, "currency": "USD"}}', /"m" has "currency"/],
      [JSON.stringify(Object.fromEntries(Array.from({ length: 1001 }, (_, index) => [`m${index}`, { input: 1, output: 1 }]))), /names 1001 models; at most 1000/],
    ];
    for (const [text, message] of cases) expect(() => parsePriceTable(text, 'AEH_PRICES'), text.slice(0, 40)).toThrow(message);
  });

  it('sums runs for a suite agent: percentiles left out, runs without prices counted unpriced', () => {
    const run = (calls: number, cost?: RunUsage['cost']): RunUsage => ({
      calls, requests: 2 * calls, cached_calls: 1, reported_calls: calls, tokens: { input: 10 * calls, output: calls, total: 11 * calls }, cached_tokens: { input: 5, output: 1, total: 6 },
      latency_ms: { sum: 100 * calls, mean: 100, p50: 100, p95: 100 }, ...(cost ? { cost } : {}),
    });
    const priced = { currency: 'USD', total: 0.5, priced_calls: 2, unpriced_calls: 1, unpriced_models: ['b'], saved_by_cache: 0.1 };
    const sum = sumRunUsage([run(3, priced), run(2, { ...priced, unpriced_models: ['a'] }), run(4)])!;
    expect(sum).toMatchObject({ calls: 9, requests: 18, cached_calls: 3, reported_calls: 9, tokens: { input: 90, output: 9, total: 99 }, cached_tokens: { input: 15, output: 3, total: 18 }, latency_ms: { sum: 900, mean: 100, p50: null, p95: null } });
    expect(sum.cost).toEqual({ currency: 'USD', total: 1, priced_calls: 4, unpriced_calls: 6, unpriced_models: ['a', 'b'], saved_by_cache: 0.2 });
    expect(sumRunUsage([run(1)])!.cost).toBeUndefined();
    // A run recorded before requests were counted made one request per call.
    const { requests: _requests, ...older } = run(5);
    expect(sumRunUsage([older as RunUsage, run(1)])!.requests).toBe(7);
    expect(sumRunUsage([])).toBeNull();
  });
});
