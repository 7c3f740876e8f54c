/**
 * What the registry accepts, checked at save time with the same rules submission applies: the adapter exists
 * and its own options schema holds, the adapter's `check` passes (the SSRF check of `url` / `base_url`, the
 * `AEH_AGENT_KEY_ENVS` allow-list of `api_key_env` / `header_envs`), a pinned key set's URL passes the SSRF
 * check, and no option holds a secret's value: a record names the variables secrets come from, never the values.
 */
import { Problem, type FieldError } from '../../core/problems.ts';
import { check, describeErrors } from '../../core/validate.ts';
import { agentCheckContext } from '../../core/guards/agent-environment.ts';
import { agentSpecOf } from '../../core/domain/agent-target.ts';
import { scenarioSchema } from '../../core/domain/schemas/scenario.ts';
import type { Services } from '../../core/services.ts';

/** The fields a client writes (`POST /api/v1/agents`, `PUT /api/v1/agents/:name`). */
export interface AgentInput {
  adapter: string;
  options?: Record<string, unknown>;
  signature_key?: Record<string, unknown>;
  description?: string;
  owner?: string;
}

/** JSON Schema of the writable fields; `name` is added for `POST`, `version` for `PUT`. */
export const AGENT_FIELDS = {
  adapter: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,63}$', description: 'the agent adapter (GET /api/info lists the loaded ones)' },
  options: { type: 'object', maxProperties: 64, description: 'the adapter\'s options, as in a scenario\'s agent (url, model, header_envs…), without adapter and signature_key' },
  signature_key: { ...scenarioSchema.properties.agent.properties.signature_key },
  description: { type: 'string', maxLength: 2000 },
  owner: { type: 'string', minLength: 1, maxLength: 200, description: 'who answers for the agent (default: the principal that registers it)' },
} as const;

/** Headers that carry credentials: their value comes from `header_envs`, never from the record. */
const SECRET_HEADER = /^(?:authorization|proxy-authorization|cookie|x-api-key|api-key|apikey)$|token|secret|password|passwd|credential|session/i;
/** Options that would hold a secret's value (`api_key`, `token`, `client_secret`, …). */
const SECRET_OPTION = /(?:^|_)(?:api_?key|key|token|secret|password|passwd|credentials?|bearer)$/i;

const HINT = 'store the secret in an environment variable the operator lists in AEH_AGENT_KEY_ENVS (NAME, or NAME@host), and name it: api_key_env (openai) or header_envs (http)';

/** Options that hold what looks like a secret's value. */
function literalSecrets(options: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [option, value] of Object.entries(options)) {
    if (SECRET_OPTION.test(option) && typeof value === 'string' && value !== '') errors.push({ path: `/options/${option}`, message: `a secret's value has no place in the registry: ${HINT}` });
  }
  const headers = options.headers;
  if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
    for (const [header, value] of Object.entries(headers)) {
      if (SECRET_HEADER.test(header) && typeof value === 'string' && value !== '') errors.push({ path: `/options/headers/${header}`, message: `a credential header's value has no place in the registry: ${HINT}` });
    }
  }
  return errors;
}

/** `/agent/url` (the adapter's own paths) as `/options/url`, the field of the record that holds it. */
function recordPath(path: string): string {
  if (path === '/agent/signature_key' || path.startsWith('/agent/signature_key/')) return path.slice('/agent'.length);
  return path.startsWith('/agent/') ? `/options/${path.slice('/agent/'.length)}` : path;
}

function invalid(errors: FieldError[], extra?: Record<string, unknown>): Problem {
  return new Problem('validation_failed', { detail: `the agent cannot be registered: ${describeErrors(errors)}`, errors, extra });
}

/** The schema, option and secret errors of an input, before the adapter's own check. */
function inputErrors(services: Services, input: AgentInput): FieldError[] {
  const options = input.options ?? {};
  const adapter = services.agents.get(input.adapter);
  if (!adapter) return [{ path: '/adapter', message: `unknown agent adapter "${input.adapter}"; known: ${services.agents.names().join(', ')}` }];
  const errors: FieldError[] = [];
  for (const reserved of ['adapter', 'signature_key']) {
    if (Object.hasOwn(options, reserved)) errors.push({ path: `/options/${reserved}`, message: `give ${reserved} beside options, not inside` });
  }
  if (adapter.options) errors.push(...check(adapter.options, agentSpecOf({ adapter: input.adapter, options }), '/agent').map((error) => ({ ...error, path: recordPath(error.path) })));
  const timeoutMs = options.timeout_ms;
  if (typeof timeoutMs === 'number' && timeoutMs > services.config.quotas.maxAgentTimeoutMs) {
    errors.push({ path: '/options/timeout_ms', message: `must be at most ${services.config.quotas.maxAgentTimeoutMs} ms on this service (AEH_MAX_AGENT_TIMEOUT_MS)` });
  }
  return [...errors, ...literalSecrets(options)];
}

/**
 * Refuses an input that could not run here, or that holds a secret, with 400 naming each field (`/options/url`,
 * `/options/headers/authorization`, …); an address the SSRF guard forbids is 400 `ssrf_blocked`.
 */
export async function checkAgentInput(services: Services, input: AgentInput): Promise<void> {
  const errors = inputErrors(services, input);
  if (errors.length) throw invalid(errors, errors.some((error) => /secret|credential/.test(error.message)) ? { hint: HINT } : undefined);
  // A registry record may name bare AEH_AGENT_KEY_ENVS variables: only registry:admin writes its URL.
  const context = agentCheckContext(services, { registered: true });
  const jwksUrl = input.signature_key?.jwks_url;
  try {
    if (jwksUrl !== undefined) context.checkUrl(jwksUrl, '/agent/signature_key/jwks_url');
    await services.agents.get(input.adapter)!.check?.(agentSpecOf({ adapter: input.adapter, options: input.options ?? {}, signature_key: input.signature_key }), context);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const errors = error.errors?.map((entry) => ({ ...entry, path: recordPath(entry.path) }));
    throw new Problem(error.code, { detail: error.detail, errors, extra: error.extra, headers: error.headers });
  }
}
