/**
 * The opt-in response cache (issue 17 item 6). With `"cache": true` on an evaluation (or a suite), an agent's
 * answer is kept under the SHA-256 of the agent's configuration hash and everything the call shows the agent —
 * the task id, the variant, the trial, the input and the conversation so far — and a later call with the same
 * key is answered from the store without calling the agent, so metrics can be iterated on without paying for
 * the same calls again. A cached answer is marked in the trace (`cached: true`, `cache_key`), its usage is
 * counted apart from what the run spent, and the run's certificate says how many answers were cached.
 *
 * Never cached: failures and timeouts; in-process adapters (`idempotent`: scripted, replay), which cost nothing
 * to ask again; calls that offer world tools, because the agent's tool calls change the task's world and a
 * replayed answer would leave it unchanged. An agent's signature is not kept: a replayed answer attests nothing
 * about this run. The key is a digest (the configuration enters it only as its hash) and the value holds only
 * what the agent answered: no header, key variable or option.
 */
import type { AgentCallContext, AgentReply, AgentTurn } from '../../../core/agent-adapter.ts';
import { agentConfigHash } from '../../../core/domain/agent-target.ts';
import { toHex } from '../../../core/domain/hash.ts';
import { modelOf, usageOf } from '../../../core/domain/usage.ts';
import type { ScheduledJob } from '../../../core/services.ts';
import type { Store } from '../../../core/storage.ts';
import { callAgent, type CallOptions, type CallResult } from './call-agent.ts';
import type { RunContext } from '../running/run-context.ts';

/** Where cached answers live: `agent-cache/<sha-256 hex>.json`. */
export const CACHE_PREFIX = 'agent-cache';
const cachePath = (digest: string) => `${CACHE_PREFIX}/${digest}.json`;

/** One cached answer as stored. */
interface CachedAnswer {
  v: 1;
  reply: Pick<AgentReply, 'output' | 'tool_calls' | 'handoffs' | 'end_conversation' | 'usage' | 'model'>;
  /** The latency of the call that was cached: metrics that read latency score the answer as first given. */
  latency_ms: number;
  created_at: string;
  expires_at: string;
}

/** What the cache key covers besides the agent's configuration. */
export interface CacheKeyInput {
  task_id: string;
  variant?: string;
  trial?: number;
  input: string;
  history: readonly AgentTurn[];
  /** The scenario's instructions the agent is told (a changed policy must not be answered from the cache). */
  instructions?: string;
}

const encoder = new TextEncoder();

/**
 * The cache key: SHA-256 (hex) of the configuration hash and the call, as a JSON array in a fixed order (any
 * string, lone surrogates included, has one JSON form). The run id is left out: it changes every run.
 */
export async function cacheDigest(configHash: string, call: CacheKeyInput): Promise<string> {
  const material = JSON.stringify([1, configHash, call.task_id, call.variant ?? null, call.trial ?? null, call.input, call.history.map((turn) => [turn.role, turn.content, turn.task_id ?? null]), ...(call.instructions ? [call.instructions] : [])]);
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(material))));
}

/** A stored answer still valid at `now`, or `null` (missing, expired, or not an answer). */
async function readAnswer(store: Store, digest: string, now: number): Promise<CachedAnswer | null> {
  const stored = await store.getJson<CachedAnswer>(cachePath(digest)).catch(() => null);
  if (!stored || stored.v !== 1 || typeof stored.reply?.output !== 'string' || typeof stored.latency_ms !== 'number') return null;
  if (!(Date.parse(stored.expires_at) > now)) {
    await store.remove(cachePath(digest)).catch(() => undefined);
    return null;
  }
  const usage = usageOf(stored.reply.usage);
  const model = modelOf(stored.reply.model);
  const { usage: _usage, model: _model, ...reply } = stored.reply;
  return { ...stored, reply: { ...reply, ...(usage ? { usage } : {}), ...(model ? { model } : {}) } };
}

function answerOf(reply: AgentReply, latencyMs: number, now: number, ttlSeconds: number): CachedAnswer {
  const { output, tool_calls, handoffs, end_conversation, usage, model } = reply;
  return {
    v: 1,
    reply: { output, ...(tool_calls ? { tool_calls } : {}), ...(handoffs ? { handoffs } : {}), ...(end_conversation ? { end_conversation } : {}), ...(usage ? { usage } : {}), ...(model ? { model } : {}) },
    latency_ms: latencyMs,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + ttlSeconds * 1000).toISOString(),
  };
}

/** A call's result, and the cache key when the answer came from the cache. */
export interface CachedCall {
  result: CallResult;
  cacheKey?: string;
}

/**
 * Calls the agent, through the cache when the run asked for it and the call may be cached. A store that cannot
 * be read or written costs the cache, never the run: the agent is asked, and the failure is logged.
 */
export async function callThroughCache(run: RunContext, input: string, context: Omit<AgentCallContext, 'signal'>, options: CallOptions, trial?: number): Promise<CachedCall> {
  const { engine, plan, adapter } = run;
  if (!(plan.cache === true && engine.cacheTtlSeconds > 0 && !adapter.idempotent && !context.tools && !context.mcp)) return { result: await callAgent(adapter, input, context, options) };
  const { store, logger } = engine.services;
  const configHash = plan.agent?.config_hash ?? agentConfigHash(plan.scenario.agent, engine.sha3);
  const digest = await cacheDigest(configHash, { task_id: context.task.id, variant: context.variant, trial, input, history: context.history, ...(context.scenario.instructions ? { instructions: context.scenario.instructions } : {}) });
  const cached = await readAnswer(store, digest, engine.services.now());
  if (cached) return { result: { reply: cached.reply, latency_ms: cached.latency_ms }, cacheKey: digest };
  const result = await callAgent(adapter, input, context, options);
  if ('reply' in result) {
    await store.setJson(cachePath(digest), answerOf(result.reply, result.latency_ms, engine.services.now(), engine.cacheTtlSeconds))
      .catch((error) => logger.warn('agent cache: an answer could not be stored; the run goes on', { run_id: plan.run_id, error: (error as Error)?.message }));
  }
  return { result };
}

/** What an `agent_output` event records of a call besides the output: the reported usage and model, and a cache hit. */
export function callFacts(reply: AgentReply, cacheKey: string | undefined): Record<string, unknown> {
  return { ...(reply.usage ? { usage: reply.usage } : {}), ...(reply.model ? { model: reply.model } : {}), ...(reply.requests ? { requests: reply.requests } : {}), ...(cacheKey ? { cached: true, cache_key: cacheKey } : {}) };
}

/** Daily: removes cached answers past their expiry (reads remove them too; this bounds what is never read again). */
export const cacheSweep: ScheduledJob = {
  name: 'agent-cache.sweep',
  cron: '41 3 * * *',
  async run(services) {
    let removed = 0;
    for (const key of await services.store.keys(CACHE_PREFIX)) {
      const stored = await services.store.getJson<{ expires_at?: unknown }>(key).catch(() => null);
      if (stored && Date.parse(String(stored.expires_at)) > services.now()) continue;
      await services.store.remove(key);
      removed++;
    }
    if (removed) services.logger.info(`agent cache: removed ${removed} expired answer(s)`);
  },
};
