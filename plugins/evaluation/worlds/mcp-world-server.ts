/**
 * The MCP SDK's side of a task world's endpoint (plugins/evaluation/worlds/mcp-server.ts): one SDK server over one
 * world for one request, answered through the SDK's web-standard transport. A module of its own so that the SDK
 * (and zod, a third of the service's modules) loads on the first MCP request, not at every start.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { HARNESS_VERSION } from '../../../core/version.ts';
import type { TaskWorld } from './world.ts';

/**
 * The SDK validates JSON Schemas only for requests this server never sends (elicitation); its default builds an
 * Ajv instance per server, which per request would cost more than the tool call. Nothing here validates.
 */
const NO_SCHEMA_VALIDATION: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

function toolsOf(world: TaskWorld): Tool[] {
  return world.list.map((tool) => ({ name: tool.function_name, title: tool.name, description: tool.description, inputSchema: tool.parameters as Tool['inputSchema'] }));
}

/** One MCP server over one task's world, for one request. */
function worldServer(world: TaskWorld): Server {
  const server = new Server(
    { name: 'aeh-world', version: HARNESS_VERSION },
    // The scenario's instructions (a domain policy) reach an MCP agent as the server's instructions.
    { capabilities: { tools: {} }, jsonSchemaValidator: NO_SCHEMA_VALIDATION, instructions: world.instructions ?? 'The simulated world of an evaluation task: every tool call and every change it makes is recorded and judged.' },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsOf(world) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    let outcome;
    try {
      outcome = await world.call(request.params.name, request.params.arguments ?? {});
    } catch {
      outcome = { error: { code: 'internal', message: 'the shim failed on this call' } };
    }
    if ('error' in outcome) return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: outcome.error }) }] };
    const { result } = outcome;
    const structured = result && typeof result === 'object' && !Array.isArray(result) ? { structuredContent: result as Record<string, unknown> } : {};
    return { content: [{ type: 'text', text: JSON.stringify(result ?? null) }], ...structured };
  });
  return server;
}

/** Answers one JSON-RPC request (already parsed, never an empty batch) of an MCP client on `world`. */
export async function answerMcp(world: TaskWorld, request: Request, parsed: unknown): Promise<Response> {
  const server = worldServer(world);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: parsed });
  } finally {
    void server.close().catch(() => undefined);
  }
}
