/**
 * One local server that plays every benchmark behaviour (cases.ts) over the three ways an agent reaches the
 * world, so that the same behaviour can be judged over each:
 * - `POST /http/<case>`: the `http` adapter's tool loop (answer `tool_calls`, get `tool_results`, then `output`);
 * - `POST /openai/<case>/chat/completions`: an OpenAI-compatible endpoint the `openai` adapter calls;
 * - `POST /mcp/<case>`: an `http` agent that makes its calls itself over the task's MCP server (official SDK).
 * Attempts are counted per case, adapter and run, so a behaviour that misbehaves in some attempts does so the
 * same number of times over every adapter.
 */
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CASES, type TurnPlan, type VerdictCase } from './cases.ts';

export type AdapterKind = 'http' | 'openai' | 'mcp';
export const ADAPTERS: AdapterKind[] = ['http', 'openai', 'mcp'];

/** How the function-calling APIs (and MCP) spell `shim.action`. */
const functionName = (tool: string) => tool.replace('.', '__');

interface Message { role: string; content?: string | null; tool_calls?: unknown[] }

export interface BenchAgents {
  url: string;
  /** The agent spec of a case over an adapter. */
  spec(kind: AdapterKind, caseId: string, runKey: string): Record<string, unknown>;
  close(): Promise<void>;
}

/** Counts attempts: a new attempt starts at its first turn's first request. */
function attemptCounter() {
  const counts = new Map<string, number>();
  return (key: string, firstRequest: boolean): number => {
    const current = counts.get(key) ?? -1;
    const next = firstRequest ? current + 1 : Math.max(current, 0);
    counts.set(key, next);
    return next;
  };
}

/** A `tools/call` whose arguments are sent as written (the SDK would have to print them first). */
async function rawToolCall(mcp: { url: string; token: string }, name: string, rawArguments: string): Promise<void> {
  const body = `{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${rawArguments}}}`;
  const response = await fetch(mcp.url, { method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${mcp.token}` } });
  await response.text();
}

/** Serialises a reply whose `arguments` may stand for raw JSON text (`RAW_ARGUMENTS` placeholders, in order). */
function serialise(reply: unknown, raws: string[]): string {
  let index = 0;
  return JSON.stringify(reply).replaceAll(JSON.stringify(RAW_ARGUMENTS), () => raws[index++] ?? 'null');
}

/** What stands in a reply for raw arguments until `serialise` puts them in. */
const RAW_ARGUMENTS = '<raw arguments of the verdict benchmark>';

async function viaMcp(plan: TurnPlan, mcp: { url: string; token: string }): Promise<void> {
  const client = new Client({ name: 'verdict-bench-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${mcp.token}` } } }));
  try {
    // One at a time, as the http and openai adapters run them; a refused call is the agent's to handle.
    for (const call of plan.calls) {
      if (call.raw === undefined) await client.callTool({ name: functionName(call.tool), arguments: call.args });
      else await rawToolCall(mcp, functionName(call.tool), call.raw);
    }
  } finally {
    await client.close();
  }
}

async function answer(path: string, body: Record<string, unknown>, attemptOf: ReturnType<typeof attemptCounter>): Promise<unknown> {
  const [, kind, caseId, runKey] = path.split('/');
  const found: VerdictCase | undefined = CASES.find((candidate) => candidate.id === caseId);
  if (!found) throw new Error(`no case ${caseId}`);
  if (kind === 'openai') {
    const messages = (body.messages ?? []) as Message[];
    const turn = messages.filter((message) => message.role === 'user').length;
    const last = messages[messages.length - 1];
    const attempt = attemptOf(`${path}|${body.model}`, turn === 1 && last?.role === 'user');
    const plan = found.behave(turn, attempt);
    if (last?.role === 'user' && plan.calls.length) {
      return { choices: [{ message: { role: 'assistant', content: null, tool_calls: plan.calls.map((call, index) => ({ id: `call_${turn}_${index}`, type: 'function', function: { name: functionName(call.tool), arguments: call.raw ?? JSON.stringify(call.args) } })) } }] };
    }
    return { choices: [{ message: { role: 'assistant', content: plan.say } }] };
  }
  const history = (body.history ?? []) as Message[];
  const turn = history.filter((message) => message.role === 'user').length + 1;
  const round = Number(body.round ?? 0);
  const attempt = attemptOf(`${kind}/${caseId}/${runKey}/${String(body.trial ?? '')}`, turn === 1 && round === 0);
  const plan = found.behave(turn, body.trial === undefined ? attempt : Number(body.trial));
  if (kind === 'mcp') {
    await viaMcp(plan, body.mcp as { url: string; token: string });
    return { output: plan.say };
  }
  if (round === 0 && plan.calls.length) {
    const raws = plan.calls.flatMap((call) => (call.raw === undefined ? [] : [call.raw]));
    const reply = { tool_calls: plan.calls.map((call, index) => ({ id: `call_${turn}_${index}`, name: call.tool, arguments: call.raw === undefined ? call.args : RAW_ARGUMENTS })) };
    return raws.length ? { text: serialise(reply, raws) } : reply;
  }
  return { output: plan.say };
}

/** Starts the agents on 127.0.0.1 (a free port). */
export async function startBenchAgents(): Promise<BenchAgents> {
  const attemptOf = attemptCounter();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
          const path = (request.url ?? '/').replace(/\/chat\/completions$/, '');
          const reply = await answer(path, body, attemptOf);
          response.writeHead(200, { 'content-type': 'application/json' });
          // A reply with raw arguments comes already written (`serialise`).
          response.end(reply && typeof reply === 'object' && 'text' in reply ? String((reply as { text: string }).text) : JSON.stringify(reply));
        } catch (error) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: String((error as Error)?.message ?? error) }));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    spec(kind, caseId, runKey) {
      if (kind === 'openai') return { adapter: 'openai', base_url: `${url}/openai/${caseId}/${runKey}`, model: `bench-${caseId}` };
      if (kind === 'mcp') return { adapter: 'http', url: `${url}/mcp/${caseId}/${runKey}`, max_tool_rounds: 0 };
      return { adapter: 'http', url: `${url}/http/${caseId}/${runKey}` };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export { CASES };
