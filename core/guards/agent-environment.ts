/**
 * What an agent may see of the service's environment: only the variables `AEH_AGENT_KEY_ENVS` lists, never the
 * service's own; and the context an adapter checks a submission with (jailed reads, the SSRF check).
 */
import type { AgentCheckContext } from '../agent-adapter.ts';
import type { Services } from '../services.ts';
import { configEnvironment, type Config } from '../config.ts';
import { readJailedFile } from './jail.ts';
import { checkSubmittedUrl } from './ssrf.ts';

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
 * Why an agent may not be given the variable `name`, or `null`. `env` holds only what `AEH_AGENT_KEY_ENVS`
 * allows (none by default, never the service's own variables): the value goes to a URL a scenario chose.
 * With `requireSet`, a listed variable that is unset (or empty) is refused too.
 */
export function agentVariableRefusal(name: string, env: Readonly<Record<string, string | undefined>>, requireSet = false): string | null {
  if (isServiceVariable(name)) return 'names a variable of the service, its signers, Redis or OIDC, which agents never receive';
  if (!Object.hasOwn(env, name)) return 'is not listed in AEH_AGENT_KEY_ENVS (agents may use no variable unless the operator lists it)';
  if (requireSet && !env[name]) return 'is not set in the service\'s environment';
  return null;
}

/** `AEH_AGENT_KEY_ENVS` split: the names agents may use, and the listed ones refused as the service's own. */
export function agentKeyVariables(env: Record<string, string | undefined>): { allowed: string[]; refused: string[] } {
  const listed = (env.AEH_AGENT_KEY_ENVS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  return { allowed: listed.filter((name) => !isServiceVariable(name)), refused: listed.filter(isServiceVariable) };
}

const agentEnvironments = new WeakMap<object, Readonly<Record<string, string | undefined>>>();

/**
 * What adapters get as `env`: only the variables `AEH_AGENT_KEY_ENVS` names (none by default), minus the
 * service's own (`isServiceVariable`). Built once per environment record and frozen.
 */
export function agentEnvironment(env: Record<string, string | undefined>): Readonly<Record<string, string | undefined>> {
  let filtered = agentEnvironments.get(env);
  if (!filtered) {
    const record: Record<string, string | undefined> = Object.create(null);
    for (const name of agentKeyVariables(env).allowed) record[name] = env[name] || undefined;
    filtered = Object.freeze(record);
    agentEnvironments.set(env, filtered);
  }
  return filtered;
}

/** `AEH_AGENT_KEY_ENVS` of a configuration: the variables agents may use, and those refused as the service's own. */
export function agentKeyVariablesOf(config: Config): { allowed: string[]; refused: string[] } {
  return agentKeyVariables(configEnvironment(config));
}

/** The variables an agent adapter of this configuration gets as `env` (`agentEnvironment`). */
export function agentEnvironmentOf(config: Config): Readonly<Record<string, string | undefined>> {
  return agentEnvironment(configEnvironment(config));
}

/** The context `AgentAdapter.check` gets at submission: jailed reads, the allowed variables, the URL check. */
export function agentCheckContext(services: Pick<Services, 'config' | 'capabilities'>): AgentCheckContext {
  const { config } = services;
  return {
    readFile: (path) => readJailedFile(services, path),
    env: agentEnvironmentOf(config),
    checkUrl: (url, field) => checkSubmittedUrl(url, field, { allowHosts: config.allowHosts, servicePort: config.port, serviceHost: config.host }),
  };
}
