/**
 * Named agent targets (issue 17 item 1, the spec's SUPERVISOR "full registry control"): agents stored
 * server-side under a name, so any scenario runs against any of them (`POST /api/evaluate` `agent: "<name>"`).
 * The registry plugin keeps them and offers them in the `agentTargets` service slot; the evaluation plugin
 * resolves a name to the spec it runs and records, in every run, which agent it was and a hash of its
 * configuration. Secrets are never stored: a target names the environment variables they come from.
 */
import { sha3Hex, type HexDigest, type Sha3Factory } from './hash.ts';
import { canonicalJson, wellFormed } from './certificate.ts';
import type { AgentSpec } from './scenario.ts';
import { memoizedHash } from './hash-memo.ts';

/**
 * The adapter of a scenario that names no agent of its own (an AES document has none): `{"adapter": "none"}`.
 * Such a scenario is never run as it is: submission refuses it unless the request gives `agent` (a registry
 * name or a spec), so a placeholder reply is never scored as if an agent had answered.
 */
export const NO_AGENT_ADAPTER = 'none';

/** True when the spec is the "no agent" placeholder (or missing). */
export function namesNoAgent(spec: AgentSpec | undefined): boolean {
  return !spec || spec.adapter === NO_AGENT_ADAPTER;
}

/** Names of registered agents: lower case, digits, `.`, `_`, `-`; at most 64 characters. */
export const AGENT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** One registered agent (`GET /api/v1/agents/:name`). */
export interface AgentTarget {
  name: string;
  /** The agent adapter that reaches it (`http`, `openai`, …). */
  adapter: string;
  /** The adapter's options, checked against the adapter's own schema; never a secret's value. */
  options: Record<string, unknown>;
  /** The environment variables its secrets come from (every `*_env` and `*_envs` option), for reading only. */
  secret_envs: string[];
  /** The public key its output signatures must verify against (docs/certificates.md, "Agent entries"). */
  signature_key?: Record<string, unknown>;
  description?: string;
  /** Who answers for the agent: a team or a person. */
  owner?: string;
  /** SHA3-256 of the canonical JSON (RFC 8785) of the spec it runs as (`agentConfigHash`). */
  config_hash: HexDigest;
  /** 1 when created, one more at every change. */
  version: number;
  created_at: string;
  created_by?: string;
  updated_at: string;
  updated_by?: string;
}

/** What the `agentTargets` slot offers: the registered agents, read at run time. */
export interface AgentTargets {
  /** The agent registered under `name`, or `undefined`. */
  get(name: string): Promise<AgentTarget | undefined>;
  /** Every registered agent, by name. */
  list(): Promise<AgentTarget[]>;
}

/** What a run records of the agent it evaluated (`agent` of the run record and of `summary.json`). */
export interface RunAgent {
  /** The registry name, when the agent was given by name. */
  name?: string;
  adapter: string;
  /** `agentConfigHash` of the spec the run used. */
  config_hash: HexDigest;
}

/** The agent spec a target runs as: its adapter, its options and its pinned key. */
export function agentSpecOf(target: Pick<AgentTarget, 'adapter' | 'options' | 'signature_key'>): AgentSpec {
  return { ...target.options, adapter: target.adapter, ...(target.signature_key ? { signature_key: target.signature_key } : {}) };
}

/**
 * SHA3-256 (hex) of the RFC 8785 canonical JSON of an agent spec: the same configuration always hashes the same,
 * whatever the order of its members. Secrets are named, not held, so the hash covers no secret's value.
 */
export function agentConfigHash(spec: AgentSpec, factory?: Sha3Factory): HexDigest {
  return sha3Hex(canonicalJson(wellFormed(spec)), factory);
}

/** `agentConfigHash`, remembered by the spec's JSON text (hash-memo.ts): a submission's agent is often the last one's. */
export function memoizedConfigHash(spec: AgentSpec, factory?: Sha3Factory): HexDigest {
  return memoizedHash('agent-config', spec, (value) => agentConfigHash(value, factory));
}


/**
 * The environment variables an agent's options name for its secrets, by the adapters' convention: a string
 * option ending in `_env` (`api_key_env`) or a map ending in `_envs` (`header_envs: {header: VARIABLE}`).
 */
export function secretVariablesOf(options: Record<string, unknown>): string[] {
  const names = new Set<string>();
  for (const [option, value] of Object.entries(options)) {
    if (option.endsWith('_env') && typeof value === 'string') names.add(value);
    if (option.endsWith('_envs') && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const variable of Object.values(value)) if (typeof variable === 'string') names.add(variable);
    }
  }
  return [...names].sort();
}
