/**
 * Which agent a run evaluated, as a key baselines and `latest` are matched on, the same keys suites aggregate by
 * (core/domain/suites.ts). A run of a registered agent (its record's `agent.name`) is keyed by that name; a run
 * of an inline spec by a hash of the spec as run, without the options that say how to reach or wait for the
 * agent rather than which agent it is (so a new timeout or a rotated header does not make a new agent).
 */
import { sha3Hex } from '../../core/domain/hash.ts';
import { canonicalJson, wellFormed } from '../../core/domain/certificate.ts';
import type { RunRecord } from '../../core/domain/runs.ts';
import type { AgentSpec } from '../../core/domain/scenario.ts';

/** Options that change between calls of one agent (credentials, timeouts), left out of its spec hash. */
const OPERATIONAL = new Set(['headers', 'timeout_ms', 'delay_ms', 'max_response_bytes', 'api_key_env', 'signature_key']);

/** The agent of a run: `key` is what baselines are stored under (`name:<name>` or `spec:<hash>`). */
export interface AgentKey {
  key: string;
  /** The registry's name of the agent, when the run record carries one. */
  name?: string;
  /** The first 16 hex digits of SHA3-256 over the canonical (RFC 8785) agent spec, when the spec is known. */
  spec_hash?: string;
  /** The adapter that answered (`scripted`, `http`, …), when known. */
  adapter?: string;
  /** The run record's `agent.config_hash`: SHA3-256 of the whole spec as run, operational options included. */
  config_hash?: string;
}

function nameOf(agent: unknown): string | undefined {
  if (typeof agent === 'string' && agent.trim()) return agent.trim();
  if (agent && typeof agent === 'object') {
    const name = (agent as { name?: unknown }).name;
    if (typeof name === 'string' && name.trim()) return name.trim();
  }
  return undefined;
}

/** The hash of an agent spec without its operational options. */
export function specHash(spec: AgentSpec): string {
  const identity = Object.fromEntries(Object.entries(spec).filter(([option]) => !OPERATIONAL.has(option)));
  return sha3Hex(canonicalJson(wellFormed(identity))).slice(0, 16);
}

/** The agent key of a run from its record and the agent spec of its stored plan. */
export function agentKeyOf(run: RunRecord, spec: AgentSpec | undefined): AgentKey {
  const recorded = (run as { agent?: unknown }).agent;
  const name = nameOf(recorded);
  const spec_hash = spec && typeof spec === 'object' ? specHash(spec) : undefined;
  const fromRecord = recorded && typeof recorded === 'object' ? (recorded as { adapter?: unknown; config_hash?: unknown }) : {};
  const adapter = typeof fromRecord.adapter === 'string' ? fromRecord.adapter : typeof spec?.adapter === 'string' ? spec.adapter : undefined;
  const config_hash = typeof fromRecord.config_hash === 'string' ? fromRecord.config_hash : undefined;
  const key = name ? `name:${name}` : `spec:${spec_hash ?? config_hash?.slice(0, 16) ?? 'unknown'}`;
  return { key, ...(name ? { name } : {}), ...(spec_hash ? { spec_hash } : {}), ...(adapter ? { adapter } : {}), ...(config_hash ? { config_hash } : {}) };
}
