/**
 * A run's usage totals (issue 17 item 6), fed by its trace events like the rest of the run state
 * (run-state.ts), so a resumed run counts exactly what an uninterrupted one would: agent calls (probes and
 * failed calls included) and the requests they sent (one per tool round), answers taken from the response cache (apart: not spent), the tokens agents
 * reported, latency, and with a price table the cost of the calls whose model it names.
 */
import type { TraceEvent } from '../../../core/domain/trace.ts';
import { modelOf, requestsOf, roundCost, roundMs, usageOf, type Prices, type RunUsage, type TokenTotals, type TokenUsage } from '../../../core/domain/usage.ts';

/** Input and output tokens of the calls of one model that reported both. */
interface ModelTokens {
  input: number;
  output: number;
  calls: number;
}

/** The running counts; only the functions below change them. */
export interface UsageTally {
  calls: number;
  /** Requests the calls sent: one each, or as many as the call's tool rounds. */
  requests: number;
  cached: number;
  reported: number;
  tokens: TokenTotals;
  cachedTokens: TokenTotals;
  latencies: number[];
  /** Calls made that named their model and reported input and output tokens, by model: what prices apply to. */
  priceable: Map<string, ModelTokens>;
  /** The same for cached answers: what the cache saved. */
  cachedPriceable: Map<string, ModelTokens>;
  /** Calls made without a model or without an input/output split: never priced. */
  unsplit: number;
}

export function createUsageTally(): UsageTally {
  return { calls: 0, requests: 0, cached: 0, reported: 0, tokens: { input: 0, output: 0, total: 0 }, cachedTokens: { input: 0, output: 0, total: 0 }, latencies: [], priceable: new Map(), cachedPriceable: new Map(), unsplit: 0 };
}

function addTokens(totals: TokenTotals, usage: TokenUsage): void {
  totals.input += usage.input_tokens ?? 0;
  totals.output += usage.output_tokens ?? 0;
  totals.total += usage.total_tokens ?? 0;
}

/** Counts a call under its model when it can be priced; false when it cannot (no model, no split). */
function addPriceable(byModel: Map<string, ModelTokens>, model: string | undefined, usage: TokenUsage | undefined): boolean {
  if (!model || usage?.input_tokens === undefined || usage.output_tokens === undefined) return false;
  const entry = byModel.get(model) ?? { input: 0, output: 0, calls: 0 };
  entry.input += usage.input_tokens;
  entry.output += usage.output_tokens;
  entry.calls++;
  byModel.set(model, entry);
  return true;
}

/** Takes one trace event into account: an `agent_output` (probes included), or the `error` of a failed agent call. */
export function observeUsage(tally: UsageTally, event: TraceEvent): void {
  const data = event.data;
  if (event.type === 'error') {
    // Only agent calls carry a latency; a simulated user that failed is not one.
    if (typeof data.latency_ms !== 'number') return;
    tally.calls++;
    tally.requests++;
    tally.unsplit++;
    tally.latencies.push(data.latency_ms);
    return;
  }
  if (event.type !== 'agent_output') return;
  // The trace is the run's own, but read back after a restart: the same checks as when it was written.
  const usage = usageOf(data.usage);
  const model = modelOf(data.model);
  if (data.cached === true) {
    tally.cached++;
    if (usage) addTokens(tally.cachedTokens, usage);
    addPriceable(tally.cachedPriceable, model, usage);
    return;
  }
  tally.calls++;
  tally.requests += requestsOf(data.requests) ?? 1;
  if (typeof data.latency_ms === 'number') tally.latencies.push(data.latency_ms);
  if (usage) {
    tally.reported++;
    addTokens(tally.tokens, usage);
  }
  if (!addPriceable(tally.priceable, model, usage)) tally.unsplit++;
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: number[], fraction: number): number | null {
  return sorted.length ? sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]! : null;
}

function costOf(byModel: Map<string, ModelTokens>, prices: Prices): { total: number; priced: number; unpriced: number; models: string[] } {
  let total = 0;
  let priced = 0;
  let unpriced = 0;
  const models: string[] = [];
  for (const [model, tokens] of byModel) {
    const price = prices.table.get(model);
    if (!price) {
      unpriced += tokens.calls;
      models.push(model);
      continue;
    }
    total += (tokens.input * price.input + tokens.output * price.output) / 1_000_000;
    priced += tokens.calls;
  }
  return { total, priced, unpriced, models };
}

/** The run's totals; `cost` only with a price table, and only for the calls whose model it names. */
export function usageTotals(tally: UsageTally, prices?: Prices): RunUsage {
  const sorted = [...tally.latencies].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  const usage: RunUsage = {
    calls: tally.calls,
    requests: tally.requests,
    cached_calls: tally.cached,
    reported_calls: tally.reported,
    tokens: { ...tally.tokens },
    cached_tokens: { ...tally.cachedTokens },
    latency_ms: { sum: roundMs(sum), mean: sorted.length ? roundMs(sum / sorted.length) : null, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) },
  };
  if (!prices) return usage;
  const spent = costOf(tally.priceable, prices);
  const saved = costOf(tally.cachedPriceable, prices);
  usage.cost = {
    currency: prices.currency,
    total: roundCost(spent.total),
    priced_calls: spent.priced,
    unpriced_calls: spent.unpriced + tally.unsplit,
    unpriced_models: spent.models.sort().slice(0, 20),
    saved_by_cache: roundCost(saved.total),
  };
  return usage;
}
