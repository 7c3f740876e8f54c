/**
 * Token usage, latency and cost of agent calls (issue 17 item 6). What an agent reports about its own usage is
 * validated here and kept only when it is well-formed: usage is never invented, and a report with one bad field
 * is ignored whole (a negative, fractional, non-numeric or absurd count says the report cannot be trusted). A
 * price table turns tokens into cost for the models it names, and only those: any other call is unpriced.
 */

/** Tokens one agent call used, as the agent reported them (`total_tokens` is the sum when only the parts came). */
export interface TokenUsage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
}

/** The most tokens one call may report; more is not a usage report but garbage (or an attack on the totals). */
export const MAX_CALL_TOKENS = 100_000_000;

/** The longest model name kept from an agent's answer. */
const MAX_MODEL_LENGTH = 200;

/** `undefined` when absent, `null` when present but not a token count. */
function countOf(value: unknown): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_CALL_TOKENS ? value : null;
}

/**
 * The usage an agent reported, in the OpenAI shape (`prompt_tokens`, `completion_tokens`, `total_tokens`) or the
 * `input_tokens` / `output_tokens` shape, or `undefined` when there is none or it is malformed: a field that is
 * not an integer from 0 to `MAX_CALL_TOKENS`, or a total smaller than its parts.
 */
export function usageOf(raw: unknown): TokenUsage | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const report = raw as Record<string, unknown>;
  const input = countOf(report.input_tokens ?? report.prompt_tokens);
  const output = countOf(report.output_tokens ?? report.completion_tokens);
  const total = countOf(report.total_tokens);
  if (input === null || output === null || total === null) return undefined;
  if (input === undefined && output === undefined && total === undefined) return undefined;
  const parts = input !== undefined && output !== undefined ? input + output : undefined;
  if (total !== undefined && parts !== undefined && total < parts) return undefined;
  return {
    ...(input !== undefined ? { input_tokens: input } : {}),
    ...(output !== undefined ? { output_tokens: output } : {}),
    ...(total !== undefined ? { total_tokens: total } : parts !== undefined ? { total_tokens: parts } : {}),
  };
}

/**
 * The usage of several requests that made one call (tool rounds): a field is summed only when every request
 * reported it, since a sum over some of them would understate the call.
 */
export function sumUsage(reports: ReadonlyArray<TokenUsage | undefined>): TokenUsage | undefined {
  if (reports.length === 0 || reports.some((report) => report === undefined)) return undefined;
  const sum: TokenUsage = {};
  for (const field of ['input_tokens', 'output_tokens', 'total_tokens'] as const) {
    if (reports.every((report) => report![field] !== undefined)) sum[field] = reports.reduce((total, report) => total + report![field]!, 0);
  }
  return Object.keys(sum).length ? sum : undefined;
}

/** The model an agent says answered, when it is a short string (kept in the trace, and what prices look up). */
export function modelOf(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw.length > 0 && raw.length <= MAX_MODEL_LENGTH ? raw : undefined;
}

/** Most requests one call may claim: a tool-round limit is at most 32, so anything far past it is malformed. */
const MAX_REQUESTS_PER_CALL = 1000;

/** The requests a call says it sent, when more than one and plausible (else the call counts as one request). */
export function requestsOf(raw: unknown): number | undefined {
  return Number.isSafeInteger(raw) && (raw as number) > 1 && (raw as number) <= MAX_REQUESTS_PER_CALL ? (raw as number) : undefined;
}

/** Prices of one model, per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Model name → price; a Map, so a model named `constructor` or `__proto__` is a model like any other. */
export type PriceTable = ReadonlyMap<string, ModelPrice>;

/** The prices a service is configured with and the currency they are in (a label: nothing is converted). */
export interface Prices {
  table: PriceTable;
  currency: string;
}

const MAX_MODELS = 1000;
const MAX_PRICE = 1_000_000;

/**
 * Parses a price table, `{"<model>": {"input": <per million input tokens>, "output": <per million output
 * tokens>}}`. Throws an Error whose message starts with `setting` and names the entry that is wrong.
 */
export function parsePriceTable(text: string, setting: string): PriceTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${setting} is not JSON: give {"<model>": {"input": <price per million input tokens>, "output": <price per million output tokens>}}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${setting} must be a JSON object of models: {"<model>": {"input": …, "output": …}}`);
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_MODELS) throw new Error(`${setting} names ${entries.length} models; at most ${MAX_MODELS}`);
  const table = new Map<string, ModelPrice>();
  for (const [model, price] of entries) {
    const name = JSON.stringify(model.slice(0, 80));
    if (!modelOf(model)) throw new Error(`${setting}: model names are 1 to ${MAX_MODEL_LENGTH} characters`);
    if (!price || typeof price !== 'object' || Array.isArray(price)) throw new Error(`${setting}: ${name} must be {"input": …, "output": …}`);
    const fields = Object.keys(price);
    const extra = fields.filter((field) => field !== 'input' && field !== 'output');
    if (extra.length) throw new Error(`${setting}: ${name} has ${JSON.stringify(extra[0]!.slice(0, 40))}; a price has only "input" and "output" (per million tokens)`);
    for (const field of ['input', 'output'] as const) {
      const value = (price as Record<string, unknown>)[field];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_PRICE) throw new Error(`${setting}: ${name}.${field} must be a number from 0 to ${MAX_PRICE} (price per million tokens)`);
    }
    table.set(model, { input: (price as ModelPrice).input, output: (price as ModelPrice).output });
  }
  return table;
}

/** Input, output and total tokens summed over calls. */
export interface TokenTotals {
  input: number;
  output: number;
  total: number;
}

/** What a run's (or a suite agent's) calls cost, with a price table configured. */
export interface UsageCost {
  currency: string;
  /** Cost of the calls made (priced calls only), rounded to 6 decimals. */
  total: number;
  priced_calls: number;
  /** Calls made that could not be priced: their model is not in the table, or they reported no input/output split. */
  unpriced_calls: number;
  /** The models of unpriced calls that are not in the table (at most 20). */
  unpriced_models: string[];
  /** What the cached answers would have cost had they been asked again: not spent. */
  saved_by_cache: number;
}

/** Totals of a run's agent calls (`usage` of the run record and of `summary.json`). */
export interface RunUsage {
  /**
   * Calls made to the agent: one per turn, probe and failed call, however many tool rounds it took; cached
   * answers are not calls made.
   */
  calls: number;
  /** The requests those calls sent to the agent: a call with tool rounds sends one per round. */
  requests: number;
  /** Answers taken from the response cache instead of the agent. */
  cached_calls: number;
  /** Calls made whose agent reported its usage. */
  reported_calls: number;
  /** Tokens of the calls made, summed over what was reported. */
  tokens: TokenTotals;
  /** Tokens the cached answers had used when they were first asked: counted apart, not spent by this run. */
  cached_tokens: TokenTotals;
  /** Latency of the calls made: sum and mean; p50 and p95 per run (`null` across a suite's runs). */
  latency_ms: { sum: number; mean: number | null; p50: number | null; p95: number | null };
  cost?: UsageCost;
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** Rounds a cost to 6 decimals (a millionth of the currency). */
export const roundCost = (value: number) => round(value, 6);

/** Latencies are kept to the microsecond, as the trace records them. */
export const roundMs = (value: number) => round(value, 3);

function addTokens(into: TokenTotals, from: TokenTotals): void {
  into.input += from.input;
  into.output += from.output;
  into.total += from.total;
}

/** A suite agent's totals over its runs' totals; percentiles do not add up across runs, so they are `null`. */
export function sumRunUsage(runs: ReadonlyArray<RunUsage>): RunUsage | null {
  if (runs.length === 0) return null;
  const sum: RunUsage = { calls: 0, requests: 0, cached_calls: 0, reported_calls: 0, tokens: { input: 0, output: 0, total: 0 }, cached_tokens: { input: 0, output: 0, total: 0 }, latency_ms: { sum: 0, mean: null, p50: null, p95: null } };
  const priced = runs.filter((run) => run.cost && run.cost.currency === runs.find((other) => other.cost)?.cost?.currency);
  for (const run of runs) {
    sum.calls += run.calls;
    // Runs recorded before requests were counted made one request per call.
    sum.requests += run.requests ?? run.calls;
    sum.cached_calls += run.cached_calls;
    sum.reported_calls += run.reported_calls;
    addTokens(sum.tokens, run.tokens);
    addTokens(sum.cached_tokens, run.cached_tokens);
    sum.latency_ms.sum += run.latency_ms.sum;
  }
  sum.latency_ms.sum = roundMs(sum.latency_ms.sum);
  sum.latency_ms.mean = sum.calls ? roundMs(sum.latency_ms.sum / sum.calls) : null;
  if (priced.length) {
    // A run without prices (or in another currency) is unpriced as a whole: its calls are counted, never guessed.
    const unpricedRuns = runs.filter((run) => !priced.includes(run));
    const models = new Set(priced.flatMap((run) => run.cost!.unpriced_models));
    sum.cost = {
      currency: priced[0]!.cost!.currency,
      total: roundCost(priced.reduce((total, run) => total + run.cost!.total, 0)),
      priced_calls: priced.reduce((total, run) => total + run.cost!.priced_calls, 0),
      unpriced_calls: priced.reduce((total, run) => total + run.cost!.unpriced_calls, 0) + unpricedRuns.reduce((total, run) => total + run.calls, 0),
      unpriced_models: [...models].sort().slice(0, 20),
      saved_by_cache: roundCost(priced.reduce((total, run) => total + run.cost!.saved_by_cache, 0)),
    };
  }
  return sum;
}
