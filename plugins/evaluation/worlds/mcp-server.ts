/**
 * Each running task's world as a Model Context Protocol server (MCP 2025-11-25, streamable HTTP transport, the
 * official TypeScript SDK's web-standard transport), so an agent built on any MCP client works in the simulated
 * world unmodified (docs/shims.md "Over MCP"). Stateless: every POST carries the run's bearer token and names
 * the world in its path; answers are JSON, never SSE streams, and GET/DELETE (streams, sessions) are 405.
 *
 * Tools are the world's actions under their function-calling names (`payments__refund`, titled
 * `payments.refund`), with the action's JSON Schema as `inputSchema`. A call answers the result as JSON text
 * (and `structuredContent` for an object); a refused call answers `isError: true` with `{error: {code, message}}`.
 * The world records every call and state change in the trace, as for any other adapter. The SDK itself is
 * loaded on the first request (mcp-world-server.ts).
 */
import type { PluginHost } from '../../../core/plugin-host.ts';
import type { AppContext } from '../../../core/routes.ts';
import { Problem } from '../../../core/problems.ts';
import { isValidRunId } from '../../../core/domain/runs.ts';
import { readLimited } from '../../../core/pipeline/json-body.ts';
import { engineOf, type EngineHolder } from '../engine.ts';
import { parseAgentJson } from '../../../core/guards/json-depth.ts';

const PATH = '/mcp/runs/:run_id/worlds/:world_id';
const BEARER = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]{1,512})[ \t]*$/i;
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** A JSON-RPC error answer, as the transport itself gives them (MCP clients read these, not problem documents). */
function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function unauthorized(requestId: string): Response {
  return new Problem('unauthorized', {
    detail: 'send the run\'s MCP token as "Authorization: Bearer <token>"; it opens only the run it was given for, while that run is running (the service\'s API keys do not)',
    headers: { 'WWW-Authenticate': 'Bearer realm="aeh-mcp"' },
  }).toResponse(requestId);
}

/**
 * Answers one MCP request. Refusals are answered, not thrown, so they are not audited one by one: an
 * unauthenticated flood must not become a flood of audit writes (like requests to a path that does not exist).
 */
async function serveWorld(c: AppContext, holder: EngineHolder): Promise<Response> {
  const requestId = c.get('requestId');
  const runId = c.req.param('run_id') ?? '';
  const worldId = c.req.param('world_id') ?? '';
  const token = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
  if (!token || !isValidRunId(runId) || worldId.length > 64) return unauthorized(requestId);
  const found = await engineOf(holder).mcp.find(runId, worldId, token);
  if ('refused' in found) {
    return found.refused === 'unauthorized'
      ? unauthorized(requestId)
      : new Problem('not_found', { detail: `no open world "${worldId}" in run ${runId}: its task is over, or it runs on another instance` }).toResponse(requestId);
  }
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE), as MCP allows (405).
  if (c.req.method !== 'POST') return rpcError(405, -32000, 'Method not allowed: this server is stateless; POST JSON-RPC messages', { allow: 'POST' });
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) return rpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  const limit = c.var.services.config.maxBodyBytes;
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    return new Problem('payload_too_large', { detail: `the body is ${declared} bytes; the limit is ${limit} (AEH_MAX_BODY_BYTES)` }).toResponse(requestId);
  }
  let parsed: unknown;
  try {
    const bytes = c.req.raw.body ? await readLimited(c.req.raw.body, limit) : new Uint8Array();
    // A call nested past the depth limit is pruned, then refused by the world as the agent's failed call.
    parsed = parseAgentJson(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    if (error instanceof Problem) return error.toResponse(requestId);
    return rpcError(400, -32700, 'Parse error: the body is not JSON');
  }
  // JSON-RPC 2.0 §6: an empty batch is an invalid request (the SDK would take it as nothing to answer).
  if (Array.isArray(parsed) && parsed.length === 0) return rpcError(400, -32600, 'Invalid Request: an empty batch');
  const { answerMcp } = await import('./mcp-world-server.ts');
  return answerMcp(found.world, c.req.raw, parsed);
}

/** Registers the MCP endpoint of task worlds: POST (JSON-RPC), GET and DELETE (405), all behind the run's token. */
export function registerMcpRoutes(host: PluginHost, holder: EngineHolder): void {
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    host.routes.register({
      method,
      path: PATH,
      // Not the service's authentication: agents are not principals. The run's bearer token is checked here.
      permission: null,
      // The token gates every request; a task's world takes at most 200 tool calls (world.ts).
      rateClass: 'none',
      summary: method === 'POST' ? 'MCP (streamable HTTP) endpoint of a running task\'s world; bearer: the run\'s MCP token' : 'MCP endpoint of a task\'s world: 405 (stateless server)',
      tags: ['mcp'],
      parameters: [
        { name: 'run_id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'world_id', in: 'path', required: true, schema: { type: 'string' }, description: 'the task\'s world, from the agent call\'s `mcp.url`' },
      ],
      responses: {
        ...(method === 'POST' ? { 200: { description: 'JSON-RPC response(s)' }, 202: { description: 'Notifications accepted' } } : { 405: { description: 'Stateless server: no stream, no session' } }),
        401: { description: 'Missing, malformed or foreign bearer token' },
        404: { description: 'The token is the run\'s, but no such world is open (the task is over)' },
      },
      handler: (c) => serveWorld(c, holder),
    }, 'evaluation');
  }
}
