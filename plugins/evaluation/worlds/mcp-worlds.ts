/**
 * The task worlds this instance has open, reachable over the Model Context Protocol (docs/shims.md "Over MCP").
 * While a task runs, its world is registered under its run with an unguessable id and offered to the agent as
 * `{url, token}`: `<public url>/mcp/runs/<run_id>/worlds/<world_id>` and the run's bearer token.
 *
 * The token is per run, derived from the engine's handoff key (HMAC-SHA256 over a domain-separated run id), so
 * it opens that run's worlds and no other's, needs no storage, costs one comparison per request once the run is
 * open, and is the same after the run resumes on another instance. It opens nothing once the run's tasks are
 * over: a world is registered only while its task runs.
 */
import * as base64url from 'jose/base64url';
import { ConfigError, type Config } from '../../../core/config.ts';
import { secretMatcher } from '../../../core/guards/secrets.ts';
import type { TaskWorld } from './world.ts';

/** How an agent reaches its task's world over MCP: the streamable HTTP endpoint and the run's bearer token. */
export interface McpAccess {
  url: string;
  token: string;
}

/** A registered world: what the agent is told, and the way to unregister it when the task is over. */
export interface OpenWorld {
  access: McpAccess;
  close(): void;
}

/** What a request to a world finds: the world, `unauthorized` (a token that is not the run's), or nothing open. */
export type WorldLookup = { world: TaskWorld } | { refused: 'unauthorized' | 'not_found' };

export interface McpWorlds {
  /** Registers a task's world until `close()` or until `signal` aborts (a cancelled or stopped run). */
  open(runId: string, world: TaskWorld, signal?: AbortSignal): Promise<OpenWorld>;
  /** Finds world `worldId` of run `runId` for a request bearing `token`. */
  find(runId: string, worldId: string, token: string): Promise<WorldLookup>;
  /** Worlds open now (for tests and the doctor). */
  size(): number;
}

/** Prefix of every MCP token: says what it is in a log or a secret scanner's report. */
export const MCP_TOKEN_PREFIX = 'aeh_mcp_';

/** Tokens of recent runs kept, so that a run's tasks, one after another, cost one MAC between them. */
const TOKEN_CACHE = 256;

interface RunWorlds {
  matches(candidate: string): boolean;
  worlds: Map<string, TaskWorld>;
  /** Drops the run's entry; one abort listener per run, however many of its tasks are in flight. */
  drop(): void;
}

/**
 * The absolute base of the MCP URLs: `AEH_PUBLIC_URL` (an http(s) URL, optionally with a path prefix for a
 * reverse proxy) or else `http://<HOST>:<PORT>` with a wildcard host read as loopback. Throws a `ConfigError`
 * naming the variable when it is not such a URL.
 */
export function mcpBaseUrl(config: Pick<Config, 'host' | 'port'> & { env: Readonly<Record<string, string | undefined>> }): string {
  const configured = config.env.AEH_PUBLIC_URL?.trim();
  if (configured) {
    let url: URL | undefined;
    try {
      url = new URL(configured);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
      throw new ConfigError(`AEH_PUBLIC_URL must be an http(s) URL without credentials, query or fragment (the address agents reach this instance at), got "${configured}"`);
    }
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  }
  const host = config.host === '0.0.0.0' || config.host === '' ? '127.0.0.1' : config.host === '::' ? '[::1]' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

function randomId(bytes: number): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * The registry of one engine.
 * @param key the engine's handoff key (HMAC-SHA256); MCP tokens sign `aeh-mcp-token\0<run id>`, which, holding a
 *   NUL byte, can never be a JWS signing input, so a token is never a handoff signature nor the reverse
 * @param baseUrl from `mcpBaseUrl`
 */
export function createMcpWorlds(key: CryptoKey, baseUrl: string): McpWorlds {
  const runs = new Map<string, RunWorlds>();
  const tokens = new Map<string, string>();
  const encoder = new TextEncoder();

  async function macOf(runId: string): Promise<string> {
    const signature = await crypto.subtle.sign('HMAC', key, encoder.encode(`aeh-mcp-token\0${runId}`));
    return MCP_TOKEN_PREFIX + base64url.encode(new Uint8Array(signature));
  }

  /** The token of a run this instance runs, from the cache when one of its tasks ran lately. */
  async function tokenOf(runId: string): Promise<string> {
    const cached = tokens.get(runId);
    if (cached) return cached;
    const token = await macOf(runId);
    if (tokens.size >= TOKEN_CACHE) tokens.delete(tokens.keys().next().value!);
    tokens.set(runId, token);
    return token;
  }

  return {
    async open(runId, world, signal) {
      const token = await tokenOf(runId);
      let run = runs.get(runId);
      if (!run) {
        const entry: RunWorlds = {
          matches: secretMatcher(token),
          worlds: new Map(),
          drop() {
            signal?.removeEventListener('abort', entry.drop);
            if (runs.get(runId) === entry) runs.delete(runId);
          },
        };
        // A cancelled or stopped run may leave before its tasks close their worlds.
        signal?.addEventListener('abort', entry.drop, { once: true });
        runs.set(runId, entry);
        run = entry;
      }
      const worldId = randomId(16);
      run.worlds.set(worldId, world);
      const entry = run;
      const close = () => {
        entry.worlds.delete(worldId);
        if (entry.worlds.size === 0) entry.drop();
      };
      return { access: { url: `${baseUrl}/mcp/runs/${encodeURIComponent(runId)}/worlds/${worldId}`, token }, close };
    },
    async find(runId, worldId, token) {
      const run = runs.get(runId);
      // A run with nothing open here still tells a right token (404) from a wrong one (401), at the cost of a MAC
      // (read from the cache, never added to it: any caller may name any run id).
      const valid = run ? run.matches(token) : secretMatcher(tokens.get(runId) ?? (await macOf(runId)))(token);
      if (!valid) return { refused: 'unauthorized' };
      const world = run?.worlds.get(worldId);
      return world ? { world } : { refused: 'not_found' };
    },
    size() {
      let open = 0;
      for (const run of runs.values()) open += run.worlds.size;
      return open;
    },
  };
}
