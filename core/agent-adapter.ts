/**
 * The agent adapter extension point: how the engine talks to the agent under evaluation.
 * Built-ins (`scripted`, `http`, `openai`, `replay`) are plugins; teams add their own the same way.
 */
import { concatBytes } from '@noble/hashes/utils.js';
import type { AgentSpec, Scenario, ScenarioTask } from './domain/scenario.ts';
import type { GuardedFetch } from './capabilities.ts';
import type { FileAccess } from './capabilities.ts';
import type { Services } from './services.ts';
import { configEnvironment, type Config } from './config.ts';
import { readJailedFile } from './guards/jail.ts';
import { checkSubmittedUrl } from './guards/ssrf.ts';

export interface AgentTurn {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  task_id?: string;
}

export interface ToolCall {
  name: string;
  arguments?: unknown;
  result?: unknown;
}

/** A tool the engine offers the agent: an action of a world shim the scenario enables (core/shim.ts). */
export interface AgentTool {
  /** `shim.action`, the name scenarios and traces use. */
  name: string;
  /** `shim__action`: the same tool under a name function-calling APIs accept (`^[a-zA-Z0-9_-]{1,64}$`). */
  function_name: string;
  description: string;
  /** JSON Schema (type `object`) of the arguments. */
  parameters: Record<string, unknown>;
}

/** What a tool call answered: its result, or the error the agent must handle. */
export type ToolOutcome = { result: unknown } | { error: { code: string; message: string } };

/**
 * The run's world as tools: calls run against the task's shims, and the engine records each call and each
 * state change in the trace as it happens, so an adapter only relays what the agent asks.
 */
export interface AgentTools {
  list: AgentTool[];
  /** True when `name` (either form) is one of `list`. */
  has(name: string): boolean;
  call(name: string, args: unknown): Promise<ToolOutcome>;
}

/** What the agent answered for one task. */
export interface AgentReply {
  output: string;
  tool_calls?: ToolCall[];
  /** Messages the agent passed to other topology agents. */
  handoffs?: Array<{ from: string; to: string; channel?: string; content: string }>;
  /** The agent's own signature over its output (becomes an `Agent` provenance entry). */
  signature?: { identity: string; jws: string };
  /** Latency the adapter knows better than the engine's clock (a replayed trace's recorded latency). */
  latency_ms?: number;
  /** The agent ends a multi-turn conversation with this answer. */
  end_conversation?: boolean;
}

/** Everything an adapter may use for one call. */
export interface AgentCallContext {
  run_id: string;
  scenario: Scenario;
  task: ScenarioTask;
  spec: AgentSpec;
  /** The run's earlier turns (inputs and answers) of this scenario or variant; read it during the call, not after. */
  history: readonly AgentTurn[];
  /** Outbound HTTP through the SSRF guard. */
  fetch: GuardedFetch;
  /** File reads through the jail (absent on runtimes without a file system). */
  files?: FileAccess;
  /**
   * The variables named in `AEH_AGENT_KEY_ENVS` (for `api_key_env` lookups), and nothing else: never the
   * service's environment (`agentEnvironment`). A listed variable that is unset is present as `undefined`.
   */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborts at the per-call timeout or when the task is cancelled. */
  signal: AbortSignal;
  /** Reads a file named by the scenario through the file jail (`core/guards/jail.ts`). */
  readFile(path: string): Promise<Uint8Array>;
  /** The mutated variant this call belongs to, when not the original scenario. */
  variant?: string;
  /** The world's tools, when the scenario enables shims; adapters offer them and relay the agent's calls. */
  tools?: AgentTools;
  /**
   * The same world as a Model Context Protocol server (streamable HTTP), when the scenario enables shims: the
   * task's absolute endpoint and the run's bearer token, valid while the task runs (docs/shims.md "Over MCP").
   */
  mcp?: { url: string; token: string };
}

/** What `AgentAdapter.check` may use to refuse a spec at submission (before a run is queued). */
export interface AgentCheckContext {
  readFile(path: string): Promise<Uint8Array>;
  /** The allowed variables only, as in `AgentCallContext.env`. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Refuses an agent URL that no connection could ever be allowed to reach (400 `ssrf_blocked`, `errors[0].path`
   * is `field`): another scheme, credentials in the URL, a forbidden IP literal in any spelling, this service's
   * own port. Names are left to the connection-time guard, which resolves them.
   */
  checkUrl(url: unknown, field: string): void;
}

export interface AgentAdapter {
  /** The `agent.adapter` value that selects it. */
  name: string;
  description: string;
  /** JSON Schema of the adapter's options in `agent`. */
  options?: Record<string, unknown>;
  /**
   * In-process, deterministic and side-effect free: calling it again after a crash changes nothing, so the
   * engine may checkpoint after a batch of tasks instead of after every call.
   */
  idempotent?: boolean;
  /** Answers from a recording rather than a live agent: the engine offers metrics no `probe`. */
  recorded?: boolean;
  /** Refuses a spec at submission with a `Problem` (a missing file, an unset key variable). */
  check?(spec: AgentSpec, context: AgentCheckContext): Promise<void>;
  call(input: string, context: AgentCallContext): Promise<AgentReply>;
}

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

/** An agent that answered, but not usefully (an error status, a body that is not the expected JSON). */
export class AgentError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'AgentError';
  }
}

/**
 * Reads an agent's JSON answer, refusing error statuses and bodies over `maxBytes` (a hostile agent cannot
 * exhaust memory). Throws `AgentError`.
 */
export async function readAgentJson(response: Response, what: string, maxBytes = 4 * 1024 * 1024): Promise<unknown> {
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new AgentError(`${what} answered HTTP ${response.status}`, response.status);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > maxBytes) throw new AgentError(`${what} answered more than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  }
  const bytes = concatBytes(...chunks);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new AgentError(`${what} answered with a body that is not JSON`);
  }
}
