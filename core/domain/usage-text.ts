/**
 * One line saying what a run's (or a suite agent's) agent calls used and cost: the CLI's summaries, the
 * console's run page and the HTML report say it the same way.
 */
import type { RunUsage } from './usage.ts';

const count = (value: number) => value.toLocaleString('en-US');
const plural = (value: number, noun: string) => `${count(value)} ${noun}${value === 1 ? '' : 's'}`;
const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;

/** A cost with up to 6 decimals, without trailing zeros. */
export function formatCost(value: number, currency: string): string {
  return `${value.toFixed(6).replace(/\.?0+$/, '')} ${currency}`;
}

/**
 * `4 calls + 2 cached (2,200 tokens not spent), 4,400 tokens (4,000 in, 400 out), latency p50 410 ms, p95 980 ms, cost 0.004 USD (1 call
 * unpriced: m), 0.002 USD saved by the cache`: only what is known, never a figure the agents did not report.
 */
export function usageLine(usage: RunUsage): string {
  const cachedTokens = usage.cached_tokens.total ? ` (${count(usage.cached_tokens.total)} tokens not spent)` : '';
  // Tool rounds: a call asked the agent more than once (runs recorded before requests were counted have none).
  const requests = usage.requests !== undefined && usage.requests > usage.calls ? ` (${plural(usage.requests, 'request')}: tool rounds)` : '';
  const parts = [`${plural(usage.calls, 'call')}${requests}${usage.cached_calls ? ` + ${count(usage.cached_calls)} cached${cachedTokens}` : ''}`];
  if (usage.reported_calls > 0) {
    const silent = usage.calls - usage.reported_calls;
    parts.push(`${count(usage.tokens.total)} tokens (${count(usage.tokens.input)} in, ${count(usage.tokens.output)} out${silent > 0 ? `; ${plural(silent, 'call')} reported none` : ''})`);
  } else if (usage.calls > 0) {
    parts.push('no token usage reported');
  }
  const { p50, p95, mean } = usage.latency_ms;
  if (p50 !== null && p95 !== null) parts.push(`latency p50 ${ms(p50)}, p95 ${ms(p95)}`);
  else if (mean !== null) parts.push(`latency mean ${ms(mean)}`);
  if (usage.cost) {
    const { total, currency, unpriced_calls: unpriced, unpriced_models: models, saved_by_cache: saved } = usage.cost;
    parts.push(`cost ${formatCost(total, currency)}${unpriced ? ` (${plural(unpriced, 'call')} unpriced${models.length ? `: ${models.slice(0, 5).join(', ')}` : ''})` : ''}`);
    if (saved > 0) parts.push(`${formatCost(saved, currency)} saved by the cache`);
  }
  return parts.join(', ');
}
