/**
 * What `POST /api/v1/suites` asks for: the scenarios (ids, or a catalog query such as
 * `industry=finance&tag=pii`) and the agents (registry names, inline specs, or none: each scenario's own).
 */
import type { CatalogQuery } from '../../core/domain/catalog.ts';
import { sha3Hex } from '../../core/domain/hash.ts';
import { canonicalJson, wellFormed } from '../../core/domain/certificate.ts';
import type { AgentSpec } from '../../core/domain/scenario.ts';
import type { SuiteAgent } from '../../core/domain/suites.ts';
import type { Services } from '../../core/services.ts';
import { Problem, type FieldError } from '../../core/problems.ts';
import { loadScenarioFile } from '../../core/scenario-file.ts';
import { normalizeScenario } from '../../core/domain/scenario-load.ts';
import { checkInlineScenarioId } from '../../core/domain/scenario-identity.ts';
import type { Scenario } from '../../core/domain/scenario.ts';
import { verdictPolicySchema, type VerdictPolicyInput } from '../../core/domain/verdict-policy.ts';
import { describeErrors } from '../../core/validate.ts';

/** The most scenarios one suite may name, and the most runs (scenarios × agents) it may have. */
export const MAX_SCENARIOS = 1000;
export const MAX_RUNS = 2000;
export const MAX_AGENTS = 10;

/** A suite's scenario: a catalog id, a scenario file (a path through the file jail) or a scenario inline. */
export type SuiteScenario = string | { path: string } | { scenario: Record<string, unknown> };

export interface SuiteBody {
  name?: string;
  scenarios?: SuiteScenario[];
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
    scenarios: {
      type: 'array', minItems: 1, maxItems: MAX_SCENARIOS,
      description: 'the scenarios: catalog ids, {"path": "<scenario file under PROJECT_ROOT>"} or {"scenario": {…}} (native or AES), in any mix; a file or inline scenario is read and validated once, when the suite is created, and runs as read then',
      items: {
        oneOf: [
          { type: 'string', pattern: ID },
          { type: 'object', required: ['path'], additionalProperties: false, properties: { path: { type: 'string', minLength: 1, maxLength: 4096 } } },
          { type: 'object', required: ['scenario'], additionalProperties: false, properties: { scenario: { type: 'object' } } },
        ],
      },
    },
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
  return `spec:${sha3Hex(canonicalJson(wellFormed(identity))).slice(0, 16)}`;
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

/** The most bytes of file and inline scenarios one suite record may hold. */
export const MAX_OWN_SCENARIO_BYTES = 8 * 1024 * 1024;

/**
 * The scenarios a body gives that are not catalog ids, read (files through the jail) and validated now, by
 * scenario id; refuses two that share an id, or share one with a catalog id of the same suite.
 */
async function ownScenariosOf(services: Services, scenarios: SuiteScenario[]): Promise<{ own: Record<string, Scenario>; idAt: Map<number, string> }> {
  const own: Record<string, Scenario> = {};
  const idAt = new Map<number, string>();
  const errors: FieldError[] = [];
  const named = new Set(scenarios.filter((entry): entry is string => typeof entry === 'string'));
  let bytes = 0;
  for (const [index, entry] of scenarios.entries()) {
    if (typeof entry === 'string') continue;
    let scenario: Scenario;
    try {
      scenario = 'path' in entry ? await loadScenarioFile(services, entry.path) : normalizeScenario(entry.scenario, { formats: services.scenarioFormats.list() });
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      // The scenario's own problem, under its place in the suite.
      const place = `/scenarios/${index}/${'path' in entry ? 'path' : 'scenario'}`;
      errors.push(...(error.errors?.length && !('path' in entry) ? error.errors.map((inner) => ({ path: `${place}${inner.path === '/' ? '' : inner.path}`, message: inner.message })) : [{ path: place, message: error.detail ?? error.code }]));
      continue;
    }
    if (own[scenario.id] || named.has(scenario.id)) errors.push({ path: `/scenarios/${index}`, message: `scenario id "${scenario.id}" is already in this suite` });
    bytes += JSON.stringify(scenario).length;
    own[scenario.id] = scenario;
    idAt.set(index, scenario.id);
  }
  if (bytes > MAX_OWN_SCENARIO_BYTES) errors.push({ path: '/scenarios', message: `the file and inline scenarios hold ${bytes} bytes; a suite may hold ${MAX_OWN_SCENARIO_BYTES}` });
  if (errors.length) throw new Problem('validation_failed', { detail: `the suite's scenarios cannot run: ${describeErrors(errors)}`, errors });
  // Each runs inline (as read now): none may take the id of a catalog scenario of other content (issue 32 item 7).
  for (const [index, id] of idAt) await checkInlineScenarioId(services, own[id]!, { path: `/scenarios/${index}` });
  return { own, idAt };
}

/** The scenario ids the body names, catalog ids checked against the catalog, and the scenarios it gives itself. */
export async function scenarioIdsOf(services: Services, body: SuiteBody): Promise<{ ids: string[]; query: CatalogQuery | null; own: Record<string, Scenario> }> {
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
    return { ids: found.items.map((item) => item.id), query, own: {} };
  }
  const { own, idAt } = await ownScenariosOf(services, body.scenarios!);
  const named = body.scenarios!.filter((entry): entry is string => typeof entry === 'string');
  const known = named.length ? new Set((await catalog.search({ limit: Number.MAX_SAFE_INTEGER })).items.map((item) => item.id)) : new Set<string>();
  const errors = body.scenarios!.map((id, index) => (typeof id !== 'string' || known.has(id) ? null : { path: `/scenarios/${index}`, message: `no catalog scenario has id "${id}"` })).filter((error): error is FieldError => error !== null);
  if (errors.length) throw new Problem('not_found', { detail: `${errors.length} scenario id(s) are not in the catalog: ${errors.slice(0, 3).map((error) => error.message).join('; ')}`, errors });
  return { ids: [...new Set(body.scenarios!.map((entry, index) => (typeof entry === 'string' ? entry : idAt.get(index)!)))], query: null, own };
}
