#!/usr/bin/env node
// A small HTTP agent that works in the harness's simulated world over MCP (docs/shims.md "Over MCP"). For each
// task the harness POSTs {run_id, task_id, input, history, tools, mcp: {url, token}}; the agent connects an
// ordinary MCP client (the official SDK, streamable HTTP) to `mcp.url` with the token as a bearer, lists the
// tools, acts, and answers {output}. The harness records every call and every change of the world.
// Its planning is a few rules so that it runs offline; a real agent hands `tools` and the input to its model.
// Usage: node examples/mcp-agent/agent.mjs [port]      (listens on 127.0.0.1, default port 8788)
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** JSON of a tool result (the harness answers JSON text; a refused call has isError and {error: {code, message}}). */
function parsed(result) {
  return JSON.parse(result.content.find((part) => part.type === 'text')?.text ?? 'null');
}

/** Works on one task: the harness's request body in, the agent's answer out. */
export async function work(task) {
  if (!task.mcp) return { output: 'This task gives me no world to work in.' };
  const client = new Client({ name: 'example-mcp-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(task.mcp.url), {
    requestInit: { headers: { Authorization: `Bearer ${task.mcp.token}` } },
  }));
  try {
    const { tools } = await client.listTools();
    const names = new Set(tools.map((tool) => tool.name));
    const chargeId = /\bch_\w+/.exec(task.input)?.[0];
    if (!chargeId || !names.has('payments__refund')) return { output: `I can use: ${[...names].join(', ')}.` };
    const charge = await client.callTool({ name: 'payments__get_charge', arguments: { charge_id: chargeId } });
    if (charge.isError) return { output: `I could not find ${chargeId}: ${parsed(charge).error.message}` };
    // One idempotency key per task: a retried request cannot refund twice.
    const refund = await client.callTool({ name: 'payments__refund', arguments: { charge_id: chargeId, idempotency_key: `${task.run_id}-${task.task_id}` } });
    if (refund.isError) return { output: `The refund of ${chargeId} was refused: ${parsed(refund).error.message}` };
    return { output: `Refunded ${parsed(refund).amount} ${parsed(charge).currency} on ${chargeId}.` };
  } finally {
    await client.close();
  }
}

/** Serves `POST /agent` on 127.0.0.1:`port`; resolves with the listening server. */
export function startAgent(port = 8788) {
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      let answer;
      try {
        answer = await work(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: String(error?.message ?? error) }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startAgent(Number(process.argv[2] ?? 8788));
  console.log(`example MCP agent on http://127.0.0.1:${server.address().port}/agent`);
}
