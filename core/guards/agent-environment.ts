/**
 * What an agent may see of the service's environment: only the variables `AEH_AGENT_KEY_ENVS` lists, never the
 * service's own, and each only toward the destinations it is bound to (or, listed bare, only for agents of the
 * registry); and the context an adapter checks a submission with (jailed reads, the SSRF check).
 */
import type { AgentCheckContext } from '../agent-adapter.ts';
import type { Services } from '../services.ts';
import { configEnvironment, type Config } from '../config.ts';
import { readJailedFile } from './jail.ts';
import { checkSubmittedUrl } from './ssrf.ts';
import { createHostAllowList, type HostAllowList } from './address.ts';

/**
 * Variables no agent is ever given, whatever `AEH_AGENT_KEY_ENVS` lists: the service's own (`DASHBOARD_API_KEY`,
 * `AEH_*`, `PROJECT_ROOT`, `HOST`, `PORT`), its signers' credentials (`AWS_*` for KMS, `GOOGLE_*`/`GCP_*`/
 * `GCLOUD_*`/`CLOUDSDK_*`, `AZURE_*`/`ARM_*`/`MSI_*`/`IDENTITY_*` for Key Vault and managed identities), Redis's
 * (`REDIS*`), the identity provider's (`OIDC_*`), the runtime's (`NODE_*`, `NPM_*`, `DENO_*`, `BUN_*`), proxy
 * URLs (which carry credentials) and the process basics (`HOME`, `PATH`, `USER`, ...). With AWS's secret, anyone
 * could sign certificates that pass public verify.
 */
const SERVICE_VARIABLE = new RegExp(
  '^(?:DASHBOARD_API_KEY|PROJECT_ROOT|HOST|HOSTNAME|PORT|HOME|PATH|USER|LOGNAME|SHELL|PWD|TMPDIR|HTTPS?_PROXY|ALL_PROXY|NO_PROXY)$'
    + '|^(?:AEH_|AWS_|AMAZON_|GOOGLE_|GCP_|GCLOUD_|CLOUDSDK_|AZURE_|ARM_|MSI_|IDENTITY_|OIDC_|REDIS|BULLMQ|NODE_|NPM_|DENO_|BUN_)',
  'i',
);

/** True for a variable of the service, its signers, Redis, OIDC or the process, which no agent may read. */
export function isServiceVariable(name: string): boolean {
  return SERVICE_VARIABLE.test(name);
}

/** The form of a variable name an agent option may give (`api_key_env`, `header_envs`). */
export const AGENT_VARIABLE_NAME = '^[A-Z][A-Z0-9_]{0,127}$';

/**
 * `AEH_AGENT_KEY_ENVS` as policy (issue 25 item 4). `NAME@host` (host names, `*.suffix`, IP addresses or CIDR
 * blocks, each with an optional `:port`, as in `AEH_ALLOW_HOSTS`; one entry per destination) binds a variable to
 * where its value may be sent: any agent spec may name it, for those destinations only. A bare `NAME` may be
 * named only by agents of the agent registry, whose records (and so URLs) only `registry:admin` writes: a request
 * or a scenario could otherwise send it to any URL it likes.
 */
interface AgentVariablePolicy {
  /** Every listed variable that is not the service's own. */
  allowed: string[];
  /** Listed bare: registry agents only. */
  registryOnly: ReadonlySet<string>;
  /** Listed `NAME@host`: where each may go. */
  bound: ReadonlyMap<string, { hosts: HostAllowList; destinations: string[] }>;
  /** Listed variables of the service itself (never allowed: the start fails). */
  refused: string[];
  /** Entries that are not `NAME` or `NAME@host`. */
  invalid: string[];
}

/** What an agent spec's variables are checked against: the policy, where the spec came from, what it used. */
interface VariableContext {
  policy: AgentVariablePolicy;
  /** The spec is an agent registry record's (written by `registry:admin`). */
  registered: boolean;
  /** The variables checks allowed so far (submission records them: audit and task). */
  used?: Set<string>;
}

const ENTRY = /^([A-Za-z_][A-Za-z0-9_]{0,127})(?:@(.+))?$/;
/** A destination as `AEH_ALLOW_HOSTS` writes one: a name or `*.name`, an IP (IPv6 bracketed with a port) or a CIDR block, an optional port. */
const DESTINATION = /^(?:(?:\*\.)?[A-Za-z0-9.-]+(?::\d{1,5})?|\[[0-9A-Fa-f:.]+\](?::\d{1,5})?|[0-9A-Fa-f:.]+(?:\/\d{1,3})?)$/;

function parsePolicy(env: Readonly<Record<string, string | undefined>>): AgentVariablePolicy {
  const registryOnly = new Set<string>();
  const destinations = new Map<string, string[]>();
  const refused: string[] = [];
  const invalid: string[] = [];
  for (const entry of (env.AEH_AGENT_KEY_ENVS ?? '').split(',').map((item) => item.trim()).filter(Boolean)) {
    const match = ENTRY.exec(entry);
    if (!match || (match[2] !== undefined && (!DESTINATION.test(match[2]) || createHostAllowList([match[2]]).size === 0))) invalid.push(entry);
    else if (isServiceVariable(match[1])) refused.push(match[1]);
    else if (match[2] === undefined) registryOnly.add(match[1]);
    else destinations.set(match[1], [...(destinations.get(match[1]) ?? []), match[2].toLowerCase()]);
  }
  const bound = new Map([...destinations].map(([name, hosts]) => [name, { hosts: createHostAllowList(hosts), destinations: hosts }]));
  return { allowed: [...new Set([...registryOnly, ...bound.keys()])], registryOnly, bound, refused: [...new Set(refused)], invalid };
}

const policies = new WeakMap<object, AgentVariablePolicy>();
function policyOf(env: Readonly<Record<string, string | undefined>>): AgentVariablePolicy {
  let policy = policies.get(env);
  if (!policy) policies.set(env, (policy = parsePolicy(env)));
  return policy;
}

/** The context of an environment handed to adapters (absent for one built by hand: then only listing counts). */
const contexts = new WeakMap<object, VariableContext>();

function destinationRefusal(context: VariableContext, name: string, destination: unknown): string | null {
  if (context.registered && context.policy.registryOnly.has(name)) return null;
  const bound = context.policy.bound.get(name);
  if (!bound) return 'is listed in AEH_AGENT_KEY_ENVS without a destination, so only agents of the registry (registry:admin) may use it; list it as NAME@host to send it from a request or a scenario';
  const where = bound.destinations.join(', ');
  let url: URL;
  try {
    url = new URL(String(destination));
  } catch {
    return `may be sent only to ${where} (AEH_AGENT_KEY_ENVS), and the agent names no URL it goes to`;
  }
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return bound.hosts.allowsHost(url.hostname, port) ? null : `may be sent only to ${where} (AEH_AGENT_KEY_ENVS), not to ${url.host}`;
}

/**
 * Why an agent may not be given the variable `name`, or `null`. `env` holds only what `AEH_AGENT_KEY_ENVS`
 * allows (none by default, never the service's own variables): the value goes to a URL a scenario chose, so
 * `destination` (the URL the adapter sends it to) must be one the variable is bound to, unless the variable is
 * listed bare and the agent is a registry record's. With `requireSet`, a listed variable that is unset (or
 * empty) is refused too.
 */
export function agentVariableRefusal(name: string, env: Readonly<Record<string, string | undefined>>, requireSet = false, destination?: unknown): string | null {
  if (isServiceVariable(name)) return 'names a variable of the service, its signers, Redis or OIDC, which agents never receive';
  const context = contexts.get(env);
  if (!Object.hasOwn(env, name)) {
    if (context?.policy.registryOnly.has(name)) return destinationRefusal(context, name, destination);
    return 'is not listed in AEH_AGENT_KEY_ENVS (agents may use no variable unless the operator lists it)';
  }
  const refusal = context ? destinationRefusal(context, name, destination) : null;
  if (refusal) return refusal;
  if (requireSet && !env[name]) return 'is not set in the service\'s environment';
  context?.used?.add(name);
  return null;
}

/**
 * `AEH_AGENT_KEY_ENVS` split: the names agents may use, the listed ones refused as the service's own, and the
 * entries that are neither `NAME` nor `NAME@host`.
 */
export function agentKeyVariables(env: Record<string, string | undefined>): { allowed: string[]; refused: string[]; invalid: string[] } {
  const { allowed, refused, invalid } = policyOf(env);
  return { allowed, refused, invalid };
}

/** Where an agent spec comes from: an agent registry record (`registered`) or a request or scenario. */
export interface AgentSource {
  registered?: boolean;
}

const agentEnvironments = new WeakMap<object, Readonly<Record<string, string | undefined>>[]>();

/** A fresh environment for `source`: the variables it may name, with its context attached. */
function environmentFor(env: Readonly<Record<string, string | undefined>>, registered: boolean, used?: Set<string>): Readonly<Record<string, string | undefined>> {
  const policy = policyOf(env);
  const record: Record<string, string | undefined> = Object.create(null);
  for (const name of policy.allowed) if (registered || policy.bound.has(name)) record[name] = env[name] || undefined;
  const frozen = Object.freeze(record);
  contexts.set(frozen, { policy, registered, ...(used ? { used } : {}) });
  return frozen;
}

/**
 * What adapters get as `env`: the variables `AEH_AGENT_KEY_ENVS` names (none by default) that the agent may use
 * — bound ones always, bare ones only for a registry agent — minus the service's own (`isServiceVariable`).
 * Built once per environment record and source, and frozen.
 */
export function agentEnvironment(env: Record<string, string | undefined>, { registered = false }: AgentSource = {}): Readonly<Record<string, string | undefined>> {
  let built = agentEnvironments.get(env);
  if (!built) agentEnvironments.set(env, (built = [environmentFor(env, false), environmentFor(env, true)]));
  return built[registered ? 1 : 0]!;
}

/** `AEH_AGENT_KEY_ENVS` of a configuration: the variables agents may use, and those refused or malformed. */
export function agentKeyVariablesOf(config: Config): { allowed: string[]; refused: string[]; invalid: string[] } {
  return agentKeyVariables(configEnvironment(config));
}

/** The variables an agent adapter of this configuration gets as `env` (`agentEnvironment`). */
export function agentEnvironmentOf(config: Config, source: AgentSource = {}): Readonly<Record<string, string | undefined>> {
  return agentEnvironment(configEnvironment(config), source);
}

/** The variables the checks of a context from `agentCheckContext` allowed, in the order first checked. */
export function variablesUsed(context: Pick<AgentCheckContext, 'env'>): string[] {
  return [...(contexts.get(context.env)?.used ?? [])];
}

/**
 * The context `AgentAdapter.check` gets at submission: jailed reads, the variables the agent may use (a fresh
 * environment that notes which ones the checks allowed: `variablesUsed`), the URL check.
 */
export function agentCheckContext(services: Pick<Services, 'config' | 'capabilities'>, { registered = false }: AgentSource = {}): AgentCheckContext {
  const { config } = services;
  return {
    readFile: (path) => readJailedFile(services, path),
    env: environmentFor(configEnvironment(config), registered, new Set()),
    checkUrl: (url, field) => checkSubmittedUrl(url, field, { allowHosts: config.allowHosts, servicePort: config.port, serviceHost: config.host }),
  };
}
