/**
 * The jsonrpc example passes the agent adapter conformance suite, and evaluates a real JSON-RPC agent (a local
 * HTTP server) when loaded the way a user loads it (`AEH_PLUGINS`).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testAgentAdapter } from '../../testing/index.ts';
import { buildNodeApp } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { TEST_KEY } from '../../test/helpers.ts';
import { jsonRpcAdapter } from './jsonrpc-agent-adapter.ts';

/** The agent's side of the protocol: `agent.respond` answers `answer(input)`; other methods are JSON-RPC errors. */
async function rpcAgent(body: { id?: unknown; method?: unknown; params?: { input?: unknown } }, answer: (input: string) => string) {
  if (body.method !== 'agent.respond') return { jsonrpc: '2.0', id: body.id ?? null, error: { code: -32601, message: 'Method not found' } };
  return { jsonrpc: '2.0', id: body.id, result: { output: answer(String(body.params?.input ?? '')) } };
}

testAgentAdapter(jsonRpcAdapter, {
  spec: (url) => ({ adapter: 'jsonrpc', url }),
  agent: async (request, reply) => Response.json(await rpcAgent(await request.json(), reply)),
});

describe('example plugin: jsonrpc agent adapter', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', async () => {
        const answer = await rpcAgent(JSON.parse(text), (input) => (input.includes('balance') ? 'Your balance is 42 EUR.' : 'I can help with your account.'));
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/rpc`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  async function start() {
    const root = mkdtempSync(join(tmpdir(), 'aeh-example-agent-'));
    const plugin = join(fileURLToPath(new URL('.', import.meta.url)), 'jsonrpc-agent-adapter.ts');
    // The agent listens on loopback, which the SSRF guard refuses unless the operator lists it.
    const env = { DASHBOARD_API_KEY: TEST_KEY, AEH_STORAGE: 'memory', PROJECT_ROOT: root, AEH_PLUGINS: plugin, AEH_ALLOW_HOSTS: new URL(url).host };
    const { app } = await buildNodeApp(env, root, silentLogger);
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await app.request(path, { method, headers: { 'X-API-Key': TEST_KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as any };
    };
    return { app, call };
  }

  const scenario = (agentUrl: string) => ({
    id: 'jsonrpc-support', title: 'Support over JSON-RPC', industry: 'Fintech', use_case: 'Customer support', tags: ['example'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'jsonrpc', url: agentUrl },
    topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
    tasks: [{ id: 't1', input: 'What is my balance?', expected: { contains: '42 EUR' }, metrics: [{ id: 'task_success' }] }],
  });

  it('evaluates a JSON-RPC agent: the run passes on its answer', async () => {
    const { app, call } = await start();
    const accepted = await call('POST', '/api/evaluate', { scenario: scenario(url) });
    expect(accepted.status).toBe(202);
    let task: any;
    for (let polls = 0; polls < 500; polls++) {
      task = (await call('GET', accepted.body.status_url)).body;
      if (task.status === 'succeeded' || task.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(task.status).toBe('succeeded');
    const run = (await call('GET', `/api/v1/runs/${accepted.body.run_id}`)).body;
    expect(run.compliance.status).toBe('pass');
    await app.close();
  });

  it('refuses at submission an agent URL that no connection may reach', async () => {
    const { app, call } = await start();
    const refused = await call('POST', '/api/evaluate', { scenario: scenario('http://169.254.169.254/latest/meta-data/') });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('ssrf_blocked');
    await app.close();
  });
});
