/**
 * What `POST /api/v1/suites` asks for: the scenarios (ids, or a catalog query such as
 * `industry=finance&tag=pii`) and the agents (registry names, inline specs, or none: each scenario's own).
 */
import canonicalize from 'canonicalize';
import type { CatalogQuery } from '../../core/domain/catalog.ts';
import { sha3Hex } from '../../core/domain/hash.ts';
import type { AgentSpec } from '../../core/domain/scenario.ts';
import type { SuiteAgent } from '../../core/domain/suites.ts';
import type { Services } from '../../core/services.ts';
import { Problem, type FieldError } from '../../core/problems.ts';
import { verdictPolicySchema, type VerdictPolicyInput } from '../../core/domain/verdict-policy.ts';

/** The most scenarios one suite may name, and the most runs (scenarios × agents) it may have. */
export const MAX_SCENARIOS = 1000;
export const MAX_RUNS = 2000;
export const MAX_AGENTS = 10;

export interface SuiteBody {
  name?: string;
  scenarios?: string[];
  query?: string | CatalogQuery;
  agents?: Array<string | AgentSpec>;
  /** Every run answers from the response cache where it can (`"cache": true` of `POST /api/evaluate`). */
  cache?: boolean;
  /** Fields of the verdict policy every run applies over its scenario's (`verdict` of `POST /api/evaluate`). */
  verdict?: VerdictPolicyInput;
}

const FACETS = ['q', 'industry', 'use_case', 'tag', 'dimension'] as const;
const ID = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
const FACET_VALUE = { oneOf: [{ type: 'string', maxLength: 200 }, { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 200 } }] };

export const SUITE_BODY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 200 },
    scenarios: { type: 'array', minItems: 1, maxItems: MAX_SCENARIOS, items: { type: 'string', pattern: ID }, description: 'catalog scenario ids' },
    query: {
      description: 'a catalog query instead of ids: `industry=finance&tag=pii`, or the same as an object (`q`, `industry`, `use_case`, `tag`, `dimension`)',
      oneOf: [{ type: 'string', maxLength: 2000 }, { type: 'object', additionalProperties: false, properties: Object.fromEntries(FACETS.map((facet) => [facet, FACET_VALUE])) }],
    },
    agents: {
      type: 'array', minItems: 1, maxItems: MAX_AGENTS,
      description: 'registry names or inline agent specs; absent: each scenario runs with its own agent',
      items: { oneOf: [{ type: 'string', minLength: 1, maxLength: 128 }, { type: 'object', required: ['adapter'], properties: { adapter: { type: 'string', maxLength: 64 } } }] },
    },
    cache: { type: 'boolean', description: 'every run answers from the response cache where it can, as "cache": true of POST /api/evaluate' },
    verdict: { ...verdictPolicySchema, description: 'fields of the verdict policy every run applies over its scenario\'s, as "verdict" of POST /api/evaluate' },
  },
} as const;

/** Options that say how to reach or wait for an agent rather than which agent it is (as the compare plugin keys runs). */
const OPERATIONAL = new Set(['headers', 'timeout_ms', 'delay_ms', 'max_response_bytes', 'api_key_env', 'signature_key']);

/** `spec:<first 16 hex of SHA3-256 of the canonical spec without operational options>`. */
export function specKey(spec: AgentSpec): string {
  const identity = Object.fromEntries(Object.entries(spec).filter(([option]) => !OPERATIONAL.has(option)));
  return `spec:${sha3Hex(canonicalize(identity) ?? '').slice(0, 16)}`;
}

/** The suite's agents with their keys; refuses two entries that are the same agent. */
export function agentsOf(body: SuiteBody): SuiteAgent[] {
  if (!body.agents) return [{ key: 'scenario' }];
  const agents = body.agents.map((agent): SuiteAgent => (typeof agent === 'string' ? { key: `name:${agent}`, name: agent } : { key: specKey(agent), spec: agent }));
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  agents.forEach((agent, index) => {
    if (seen.has(agent.key)) errors.push({ path: `/agents/${index}`, message: `the same agent as an earlier entry (${agent.key})` });
    seen.add(agent.key);
  });
  if (errors.length) throw new Problem('validation_failed', { detail: 'an agent is listed twice', errors });
  return agents;
}

/** The catalog query of a `query` string or object; refuses facets the catalog does not have. */
export function catalogQueryOf(query: string | CatalogQuery): CatalogQuery {
  const parsed: Record<string, string | string[]> = {};
  const entries = typeof query === 'string' ? [...new URLSearchParams(query)] : Object.entries(query).flatMap(([key, value]) => (Array.isArray(value) ? value.map((item) => [key, item]) : [[key, value]]));
  for (const [key, value] of entries as Array<[string, string]>) {
    if (!(FACETS as readonly string[]).includes(key)) {
      throw new Problem('validation_failed', { detail: `unknown catalog facet "${key.slice(0, 40)}"; use ${FACETS.join(', ')}`, errors: [{ path: '/query', message: `unknown facet "${key.slice(0, 40)}"` }] });
    }
    const previous = parsed[key];
    parsed[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  if (Array.isArray(parsed.q)) parsed.q = parsed.q.join(' ');
  return parsed as CatalogQuery;
}

/** The scenario ids the body names, checked against the catalog. */
export async function scenarioIdsOf(services: Services, body: SuiteBody): Promise<{ ids: string[]; query: CatalogQuery | null }> {
  if ((body.scenarios === undefined) === (body.query === undefined)) {
    const message = body.scenarios ? 'give scenarios or query, not both' : 'scenarios (catalog ids) or query (catalog facets) is required';
    throw new Problem('validation_failed', { detail: message, errors: [{ path: '/', message }] });
  }
  const catalog = services.use('catalog');
  if (body.query !== undefined) {
    const query = catalogQueryOf(body.query);
    const found = await catalog.search({ ...query, limit: MAX_SCENARIOS + 1, offset: 0 });
    if (found.total === 0) throw new Problem('validation_failed', { detail: 'the catalog query matches no scenario', errors: [{ path: '/query', message: 'matches no scenario' }] });
    if (found.total > MAX_SCENARIOS) throw new Problem('validation_failed', { detail: `the catalog query matches ${found.total} scenarios; a suite may have ${MAX_SCENARIOS}`, errors: [{ path: '/query', message: 'matches too many scenarios' }] });
    return { ids: found.items.map((item) => item.id), query };
  }
  const ids = [...new Set(body.scenarios)];
  const known = new Set((await catalog.search({ limit: Number.MAX_SAFE_INTEGER })).items.map((item) => item.id));
  const errors = body.scenarios!.map((id, index) => (known.has(id) ? null : { path: `/scenarios/${index}`, message: `no catalog scenario has id "${id}"` })).filter((error): error is FieldError => error !== null);
  if (errors.length) throw new Problem('not_found', { detail: `${errors.length} scenario id(s) are not in the catalog: ${errors.slice(0, 3).map((error) => error.message).join('; ')}`, errors });
  return { ids, query: null };
}
