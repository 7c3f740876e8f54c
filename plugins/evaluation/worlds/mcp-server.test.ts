/**
 * The MCP endpoint of task worlds under attack: tokens that are wrong, another run's, the service's own API key
 * or stale; a world id of another run; bodies too large or not JSON-RPC; methods a stateless server refuses.
 * Two runs are held open (their agent waits) so that their worlds are live while the requests arrive.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { AgentAdapter } from '../../../core/agent-adapter.ts';
import type { Plugin } from '../../../core/plugin.ts';
import { TEST_KEY, testApp, type TestApp } from '../../../test/helpers.ts';
import { waitForTask } from '../../../test/evaluation-fixtures.ts';
import { mcpBaseUrl } from './mcp-worlds.ts';

interface Held { run_id: string; url: string; token: string; release(): void }

/** An agent that reports its MCP access, then waits until the test releases it. */
function holdingAgent(held: (entry: Held) => void): Plugin {
  const adapter: AgentAdapter = {
    name: 'holding',
    description: 'test: waits while its world is probed',
    call: (_input, { run_id, mcp }) => new Promise((resolve) => {
      held({ run_id, url: mcp!.url, token: mcp!.token, release: () => resolve({ output: 'released' }) });
    }),
  };
  return { name: 'test-holding-agent', setup(host) { host.agents.register(adapter, 'test-holding-agent'); } };
}

const SCENARIO = {
  id: 'mcp-hostile', title: 'Hostile MCP', industry: 'Fintech', use_case: 'Support', tags: ['mcp'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'holding' }, topology: [{ agent: 'Support', writes: ['reply'], reads: ['ticket'] }],
  enabled_shims: ['payments'],
  initial_state: { payments: { currency: 'EUR', balances: { alice: 100 }, charges: [{ id: 'ch_1', customer: 'alice', amount: 40 }] } },
  tasks: [{ id: 'refund', input: 'Refund ch_1.', metrics: [{ id: 'state_match' }] }],
};

const RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('evaluation: the MCP endpoint of task worlds, hostile inputs', () => {
  let t: TestApp;
  const runs: Held[] = [];
  const waiting: Array<() => void> = [];
  let tasks: string[] = [];

  function post(url: string, token: string | null, body: BodyInit = LIST, headers: Record<string, string> = {}): Promise<Response> {
    return Promise.resolve(t.app.fetch(new Request(url, { method: 'POST', headers: { ...RPC_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, body })));
  }

  beforeAll(async () => {
    t = await testApp({ plugins: [holdingAgent((entry) => { runs.push(entry); waiting.shift()?.(); })] });
    for (let index = 0; index < 2; index++) {
      const opened = new Promise<void>((resolve) => waiting.push(resolve));
      tasks.push((await t.json('POST', '/api/evaluate', { body: { scenario: SCENARIO } })).body.task_id);
      await opened;
    }
  });
  afterAll(async () => {
    for (const run of runs) run.release();
    await Promise.all(tasks.map((task) => waitForTask(t, task)));
    tasks = [];
  });

  it('answers a right token with the world\'s tools', async () => {
    const response = await post(runs[0].url, runs[0].token);
    expect(response.status).toBe(200);
    const { result } = await response.json();
    expect(result.tools.map((tool: any) => tool.name)).toContain('payments__refund');
  });

  it('refuses a missing, malformed or wrong token with 401 problem+json and a Bearer challenge', async () => {
    for (const authorization of [null, 'Basic abc', 'Bearer', `Bearer ${runs[0].token}x`, `Bearer ${runs[0].token.slice(0, -1)}${runs[0].token.endsWith('A') ? 'B' : 'A'}`, `Bearer ${'a'.repeat(600)}`]) {
      const response = await post(runs[0].url, null, LIST, authorization ? { authorization } : {});
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect((await response.json()).code).toBe('unauthorized');
    }
  });

  it('never lets the service\'s API key in, as a header, a bearer or a query key', async () => {
    expect((await post(runs[0].url, null, LIST, { 'x-api-key': TEST_KEY })).status).toBe(401);
    expect((await post(runs[0].url, TEST_KEY)).status).toBe(401);
    expect((await post(`${runs[0].url}?apiKey=${TEST_KEY}`, null)).status).toBe(401);
  });

  it('keeps each run\'s token to its own worlds', async () => {
    const [a, b] = runs;
    expect(a.token).not.toBe(b.token);
    expect((await post(b.url, a.token)).status).toBe(401);
    expect((await post(a.url, b.token)).status).toBe(401);
    // Run A's token on run A's path with run B's world id: no such world in run A.
    const worldOfB = b.url.slice(b.url.lastIndexOf('/') + 1);
    const crossed = await post(`${a.url.slice(0, a.url.lastIndexOf('/') + 1)}${worldOfB}`, a.token);
    expect(crossed.status).toBe(404);
    expect((await crossed.json()).code).toBe('not_found');
    // A path naming no valid run is refused before any lookup.
    expect((await post(a.url.replace(`/runs/${a.run_id}/`, '/runs/..%2F/'), a.token)).status).toBe(401);
  });

  it('refuses bodies over AEH_MAX_BODY_BYTES with 413, declared or streamed', async () => {
    const { maxBodyBytes } = t.config;
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'payments__get_charge', arguments: { charge_id: 'x'.repeat(maxBodyBytes) } } });
    const declared = await post(runs[0].url, runs[0].token, huge);
    expect(declared.status).toBe(413);
    expect(declared.headers.get('content-type')).toBe('application/problem+json');
    const bytes = new TextEncoder().encode(huge);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 65536) controller.enqueue(bytes.subarray(offset, offset + 65536));
        controller.close();
      },
    });
    const streamed = await Promise.resolve(t.app.fetch(new Request(runs[0].url, { method: 'POST', headers: { ...RPC_HEADERS, authorization: `Bearer ${runs[0].token}` }, body: stream, duplex: 'half' } as RequestInit)));
    expect(streamed.status).toBe(413);
  });

  it('answers malformed JSON-RPC with JSON-RPC errors, never a 500', async () => {
    const cases: Array<[BodyInit, number, number]> = [
      ['{"jsonrpc":', 400, -32700],
      [new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 400, -32700],
      ['{"hello":"world"}', 400, -32700],
      ['[]', 400, -32600],
      [JSON.stringify(Array.from({ length: 500 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }))), 400, -32600],
    ];
    for (const [body, status, code] of cases) {
      const response = await post(runs[0].url, runs[0].token, body);
      expect(response.status, String(body).slice(0, 40)).toBe(status);
      expect((await response.json()).error.code).toBe(code);
    }
    const unknownMethod = await (await post(runs[0].url, runs[0].token, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/list' }))).json();
    expect(unknownMethod.error.code).toBe(-32601);
    const wrongType = await post(runs[0].url, runs[0].token, LIST, { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
  });

  it('turns bad tool calls into tool errors the agent sees, recorded like any call', async () => {
    const call = (params: unknown) => post(runs[0].url, runs[0].token, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params })).then((response) => response.json());
    const unknown = await call({ name: 'payments__drain', arguments: {} });
    expect(unknown.result.isError).toBe(true);
    expect(JSON.parse(unknown.result.content[0].text).error.code).toBe('not_found');
    const invalid = await call({ name: 'payments__refund', arguments: { charge_id: 42 } });
    expect(JSON.parse(invalid.result.content[0].text).error.code).toBe('invalid');
    const notAnObject = await call({ name: 'payments__refund', arguments: 'ch_1' });
    expect(notAnObject.error.code, notAnObject.error.message).toBeLessThan(-32000);
  });

  it('answers 405 to GET and DELETE (a stateless server has no stream and no session), after the token check', async () => {
    for (const method of ['GET', 'DELETE']) {
      const refused = await t.app.fetch(new Request(runs[0].url, { method, headers: { accept: 'text/event-stream' } }));
      expect(refused.status, method).toBe(401);
      const response = await t.app.fetch(new Request(runs[0].url, { method, headers: { accept: 'text/event-stream', authorization: `Bearer ${runs[0].token}` } }));
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('opens nothing once the run is over: the right token then finds no world (404)', async () => {
    const [a] = runs;
    a.release();
    await waitForTask(t, tasks[0]);
    const response = await post(a.url, a.token);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const trace = await (await t.request('GET', `/api/v1/runs/${a.run_id}/trace`)).text();
    const calls = trace.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((event) => event.type === 'tool_call');
    expect(calls.map((event) => [event.data.name, event.data.error?.code])).toEqual([['payments.drain', 'not_found'], ['payments.refund', 'invalid']]);
    expect(trace).not.toContain(a.token);
  });
});

describe('evaluation: the MCP base URL', () => {
  it('is AEH_PUBLIC_URL, else the listening address with a wildcard host read as loopback', () => {
    expect(mcpBaseUrl({ host: '0.0.0.0', port: 8787, env: {} })).toBe('http://127.0.0.1:8787');
    expect(mcpBaseUrl({ host: '::', port: 9000, env: {} })).toBe('http://[::1]:9000');
    expect(mcpBaseUrl({ host: 'fd00::1', port: 9000, env: {} })).toBe('http://[fd00::1]:9000');
    expect(mcpBaseUrl({ host: '0.0.0.0', port: 8787, env: { AEH_PUBLIC_URL: 'https://aeh.example.com/eval/' } })).toBe('https://aeh.example.com/eval');
    for (const bad of ['ftp://x', 'https://user:pw@x', 'https://x/?a=1', 'https://x/#f', 'not a url']) {
      expect(() => mcpBaseUrl({ host: '0.0.0.0', port: 8787, env: { AEH_PUBLIC_URL: bad } }), bad).toThrow(/AEH_PUBLIC_URL/);
    }
  });

  it('fails the start when AEH_PUBLIC_URL is not a URL', async () => {
    await expect(testApp({ env: { AEH_PUBLIC_URL: 'javascript:alert(1)' } })).rejects.toThrow(/AEH_PUBLIC_URL/);
  });
});
