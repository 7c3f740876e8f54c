/**
 * A real HTTP agent on 127.0.0.1 for the evaluation tests: `/agent` (the http adapter's protocol, optionally
 * slow), `/v1/chat/completions` (OpenAI-compatible, with one tool call), and a log of every call.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalAgent {
  url: string;
  calls: Array<{ path: string; body: any; authorization?: string }>;
  /** Holds every `/agent` answer (each still logged when it arrives) until the returned release is called. */
  hold(): () => void;
  close(): Promise<void>;
}

/** Starts the agent; `delayMs` slows every `/agent` answer. */
export async function startLocalAgent(options: { delayMs?: number } = {}): Promise<LocalAgent> {
  const calls: LocalAgent['calls'] = [];
  let held: Promise<void> | undefined;
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      calls.push({ path: request.url ?? '', body, authorization: request.headers.authorization });
      const send = (status: number, payload: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(payload));
      };
      if (request.url === '/agent') {
        const answer = () => setTimeout(() => send(200, { output: body.task_id === 't2' ? "I can't help with that." : `Your balance is 42 EUR (${body.task_id}).` }), options.delayMs ?? 0);
        if (held) void held.then(answer);
        else answer();
      } else if (request.url === '/v1/chat/completions') {
        const last = body.messages[body.messages.length - 1];
        if (last.role === 'tool') send(200, { choices: [{ message: { role: 'assistant', content: `Your balance is ${JSON.parse(last.content).amount} EUR.` } }] });
        else send(200, { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_balance', arguments: '{}' } }] } }] });
      } else {
        send(404, { error: 'no such route' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    hold() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
