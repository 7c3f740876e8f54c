/**
 * The network and call context the agent adapter suite gives an adapter: the engine's own SSRF guard
 * (`createGuardedFetch`, core/guards/ssrf.ts) over a resolver that knows three names, so the agent under test
 * is an in-process handler and no byte leaves the machine. An adapter that reaches for the global `fetch`
 * instead of `context.fetch` fails to resolve these names and fails the suite.
 */
import type { AgentCallContext, AgentTurn } from '../core/agent-adapter.ts';
import type { GuardedFetch, NetAccess, ResolvedAddress } from '../core/capabilities.ts';
import type { AgentSpec, Scenario, ScenarioTask } from '../core/domain/scenario.ts';
import { createGuardedFetch } from '../core/guards/ssrf.ts';
import { Problem } from '../core/problems.ts';

/** Where the suite's agent listens: a public name as far as the guard can tell. */
export const CONFORMANCE_AGENT_URL = 'http://agent.conformance.test/v1/agent';
/** A name that resolves to a private address: the guard must refuse it. */
export const CONFORMANCE_INTERNAL_URL = 'http://internal.conformance.test/admin';
/** The only variable in the call context's `env`; a spec that needs a key names it (`api_key_env`). */
export const CONFORMANCE_AGENT_KEY_ENV = 'CONFORMANCE_AGENT_KEY';
/** Its value: a secret that must never appear in an adapter's errors. */
export const CONFORMANCE_AGENT_SECRET = 'sk-conformance-0b7e41d9c2a85f36';

const ADDRESSES: Record<string, ResolvedAddress[]> = {
  'agent.conformance.test': [{ address: '93.184.215.14', family: 4 }],
  'internal.conformance.test': [{ address: '10.0.0.7', family: 4 }],
};

/** An in-process agent: answers the request the adapter sent. */
export type AgentHandler = (request: Request) => Response | Promise<Response>;

/** The suite's network: the guarded fetch, the agent behind it, and what reached the agent. */
export interface AgentNetwork {
  fetch: GuardedFetch;
  /** Replaces the agent for the next calls. */
  serve(handler: AgentHandler): void;
  /** How many requests reached the agent, any address. */
  readonly received: number;
}

/** Builds a fresh network; the agent answers 503 until `serve` is called. */
export function agentNetwork(): AgentNetwork {
  let handler: AgentHandler = () => new Response('no agent', { status: 503 });
  let received = 0;
  const net: NetAccess = {
    async resolve(hostname) {
      const addresses = ADDRESSES[hostname];
      if (!addresses) throw new TypeError(`getaddrinfo ENOTFOUND ${hostname}`);
      return addresses;
    },
    async fetchPinned(url, init) {
      received++;
      // `duplex` is what Node's Request needs for a streamed body; harmless for any other.
      return handler(new Request(url, { ...init, duplex: 'half' } as RequestInit));
    },
  };
  const noPlainFetch = (async () => {
    throw new TypeError('the conformance network has no plain fetch');
  }) as unknown as typeof fetch;
  return {
    fetch: createGuardedFetch({ net, allowHosts: [], fallbackFetch: noPlainFetch }),
    serve(next) {
      handler = next;
    },
    get received() {
      return received;
    },
  };
}

const HISTORY: readonly AgentTurn[] = Object.freeze([
  Object.freeze({ role: 'user' as const, content: 'Hello, I have a question about my account.', task_id: 't0' }),
  Object.freeze({ role: 'assistant' as const, content: 'Of course. What would you like to know?', task_id: 't0' }),
]);

/** What a call context is built from. */
export interface CallContextOptions {
  spec: AgentSpec;
  input: string;
  network: AgentNetwork;
  signal?: AbortSignal;
  /** Files `readFile` serves by path (a recording); any other path is 404. */
  files?: Record<string, string | Uint8Array>;
}

/** A call context as the engine builds it: a one-task scenario, two turns of history, the guarded fetch. */
export function agentCallContext({ spec, input, network, signal, files = {} }: CallContextOptions): AgentCallContext {
  const task: ScenarioTask = { id: 't1', input, metrics: [] };
  const scenario: Scenario = {
    id: 'conformance-agent', title: 'Agent adapter conformance', industry: 'test', use_case: 'test', tags: [], policy_ref: 'NIST AI 100-1',
    agent: spec, topology: [], tasks: [task],
  };
  return {
    run_id: 'run_conformance',
    scenario,
    task,
    spec,
    history: HISTORY,
    fetch: network.fetch,
    env: Object.freeze({ [CONFORMANCE_AGENT_KEY_ENV]: CONFORMANCE_AGENT_SECRET }),
    signal: signal ?? new AbortController().signal,
    async readFile(path) {
      const content = files[path];
      if (content === undefined) throw new Problem('not_found', { detail: `file "${path}" not found` });
      return typeof content === 'string' ? new TextEncoder().encode(content) : content;
    },
  };
}
