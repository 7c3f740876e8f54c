/**
 * The agent adapter conformance suite: every adapter, bundled or from a plugin, runs it. It pins what the engine
 * relies on (core/agent-adapter.ts, plugins/evaluation/units/call-agent.ts): a valid definition whose options schema
 * accepts the spec; a string `output` for ordinary and hostile inputs (empty, 1 MB, unicode, control
 * characters); `AgentError` for an agent that answers badly (error status, not JSON, another shape, a body
 * without end), never a secret in an error; every request through `context.fetch`, so the SSRF guard refuses
 * private addresses and redirects to them, and `check` refuses such URLs at submission; the call stops when its
 * signal aborts; an `idempotent` adapter is deterministic and calls no one.
 */
import { describe, it, expect } from 'vitest';
import type { AgentAdapter, AgentCheckContext, AgentReply } from '../core/agent-adapter.ts';
import type { AgentSpec } from '../core/domain/scenario.ts';
import { checkSubmittedUrl } from '../core/guards/ssrf.ts';
import { isProblem } from '../core/problems.ts';
import { check } from '../core/validate.ts';
import {
  agentCallContext, agentNetwork, CONFORMANCE_AGENT_KEY_ENV, CONFORMANCE_AGENT_SECRET, CONFORMANCE_AGENT_URL, CONFORMANCE_INTERNAL_URL,
  type AgentHandler, type AgentNetwork,
} from './agent-network.ts';

/** Options of `testAgentAdapter`. */
export interface AgentAdapterConformanceOptions {
  /**
   * The spec (`scenario.agent`) to call the adapter with. `url` is where the suite's agent listens; a spec that
   * needs a key names `CONFORMANCE_AGENT_KEY_ENV` (the only variable in the call's `env`).
   */
  spec(url: string): AgentSpec;
  /**
   * The agent's side of the adapter's protocol, for adapters that call an agent over HTTP: read the request and
   * answer `reply(input)` the way your agent would. The suite checks the adapter returns exactly that.
   */
  agent?(request: Request, reply: (input: string) => string): Response | Promise<Response>;
  /** For adapters that call no agent (a script, a recording): the output `spec` gives for the task `t1`. */
  output?: string;
  /** Files `context.readFile` serves, by path (a recording). */
  files?: Record<string, string | Uint8Array>;
  /** For adapters that call no agent: a spec under which a call waits until its signal aborts. */
  slowSpec?: AgentSpec;
}

/** What the suite's agent answers for an input. */
const reply = (input: string) => `You said: ${input}`;

const INPUTS: Array<[string, string]> = [
  ['an ordinary question', 'What is the balance of my savings account?'],
  ['empty', ''],
  ['whitespace only', ' \n\t '],
  ['unicode: emoji, RTL, CJK, combining marks', '👩‍💻 مرحبا بالعالم 你好 e\u0301\u0301 \u202Eevil\u202C'],
  ['control characters and a lone surrogate', '\u0000\u0007\u001B[31mred\u001B[0m \uD800 end'],
  ['JSON and HTML', '{"output":"injected","result":{}} <script>alert(1)</script>'],
  ['1 MB', 'lorem ipsum dolor sit amet, '.repeat(37_500)],
];

/** Agents that answer, but not usefully: each must make the call reject with `AgentError`. */
const BAD_ANSWERS: Array<[string, AgentHandler]> = [
  ['an error status whose body repeats the request', async (request) => new Response(`refused ${JSON.stringify([...request.headers])} ${await request.text()}`, { status: 500 })],
  ['a body that is not JSON', () => new Response('<html>Bad gateway</html>', { headers: { 'content-type': 'text/html' } })],
  ['truncated JSON', () => new Response('{"output": "You sa', { headers: { 'content-type': 'application/json' } })],
  ['JSON of another shape', () => Response.json({ unexpected: true })],
  ['JSON null', () => Response.json(null)],
  ['a JSON array', () => Response.json([])],
];

const problemCode = (error: unknown) => (isProblem(error) ? error.code : undefined);

/** Awaits the call's failure and checks it carries no secret anywhere the engine could log or record. */
async function failureOf(call: Promise<AgentReply>): Promise<Error> {
  const error = await call.then(
    (answered) => expect.unreachable(`the call should fail, it answered ${JSON.stringify(answered).slice(0, 200)}`),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  const shown = `${(error as Error).message} ${JSON.stringify(error)} ${String((error as { cause?: unknown }).cause ?? '')}`;
  expect(shown, 'the error repeats the agent key').not.toContain(CONFORMANCE_AGENT_SECRET);
  return error as Error;
}

function expectConformingReply(answer: AgentReply): void {
  expect(typeof answer.output, 'output is a string').toBe('string');
  if (answer.tool_calls !== undefined) for (const call of answer.tool_calls) expect(typeof call.name).toBe('string');
  if (answer.handoffs !== undefined) expect(Array.isArray(answer.handoffs)).toBe(true);
  if (answer.latency_ms !== undefined) expect(answer.latency_ms).toBeGreaterThanOrEqual(0);
  expect(() => JSON.stringify(answer)).not.toThrow();
}

/** Runs the conformance suite against an agent adapter. */
export function testAgentAdapter(adapter: AgentAdapter, options: AgentAdapterConformanceOptions): void {
  const networked = options.agent !== undefined;
  const setup = (handler?: AgentHandler) => {
    const network = agentNetwork();
    network.serve(handler ?? ((request) => options.agent!(request, reply)));
    return network;
  };
  const call = (network: AgentNetwork, input: string, spec = options.spec(CONFORMANCE_AGENT_URL), signal?: AbortSignal) =>
    adapter.call(input, agentCallContext({ spec, input, network, signal, files: options.files }));

  describe(`agent adapter conformance: ${adapter.name}`, () => {
    definitionCases(adapter, options, networked);
    it.each(INPUTS)('answers a string output for %s input', async (_name, input) => {
      const network = setup();
      const answer = await call(network, input);
      expectConformingReply(answer);
      expect(answer.output).toBe(networked ? reply(input) : options.output);
    });
    it.runIf(adapter.idempotent === true)('is deterministic and calls no one, as `idempotent` promises', async () => {
      const network = setup();
      expect(await call(network, 'Same question twice?')).toEqual(await call(network, 'Same question twice?'));
      expect(network.received).toBe(0);
    });
    if (networked) {
      badAnswerCases(setup, call);
      guardCases(setup, call, options);
    }
    it.runIf(networked || options.slowSpec !== undefined)('stops when its signal aborts (cancellation, the per-call timeout)', async () => {
      let reached!: () => void;
      const arrived = new Promise<void>((resolve) => (reached = resolve));
      const network = setup((request) => {
        reached();
        return new Promise<Response>((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }));
      });
      const controller = new AbortController();
      const pending = call(network, 'Are you there?', networked ? undefined : options.slowSpec, controller.signal);
      await (networked ? arrived : Promise.resolve());
      controller.abort(new DOMException('the task was cancelled', 'AbortError'));
      await expect(pending).rejects.toBeDefined();
    }, 10_000);
  });
}

function definitionCases(adapter: AgentAdapter, options: AgentAdapterConformanceOptions, networked: boolean): void {
  const checkContext: AgentCheckContext = {
    readFile: async (path) => {
      const content = options.files?.[path];
      if (content === undefined) throw new Error(`file "${path}" not found`);
      return typeof content === 'string' ? new TextEncoder().encode(content) : content;
    },
    env: Object.freeze({ [CONFORMANCE_AGENT_KEY_ENV]: CONFORMANCE_AGENT_SECRET }),
    checkUrl: (url, field) => checkSubmittedUrl(url, field, { allowHosts: [] }),
  };

  it('has a valid definition: a name scenarios can select, a description, an options schema that accepts the spec', () => {
    expect(adapter.name).toMatch(/^[a-z][a-z0-9_-]{0,63}$/);
    expect(typeof adapter.description).toBe('string');
    expect(adapter.description.length).toBeGreaterThan(10);
    const spec = options.spec(CONFORMANCE_AGENT_URL);
    expect(spec.adapter, 'the spec selects this adapter').toBe(adapter.name);
    if (adapter.options) {
      expect(adapter.options.type).toBe('object');
      expect(check(adapter.options, spec, '/agent')).toEqual([]);
    }
    expect(networked || options.output !== undefined, 'give `agent` (an adapter that calls an agent) or `output` (one that does not)').toBe(true);
  });

  it.runIf(adapter.check !== undefined)('accepts the spec at submission (check)', async () => {
    await expect(adapter.check!(options.spec(CONFORMANCE_AGENT_URL), checkContext)).resolves.toBeUndefined();
  });

  it.runIf(networked)('refuses at submission a URL no connection may reach (check with context.checkUrl)', async () => {
    expect(adapter.check, 'an adapter that calls a URL from the scenario checks it in `check`').toBeTypeOf('function');
    const refusal = await adapter.check!(options.spec('http://169.254.169.254/latest/meta-data/'), checkContext).then(() => undefined, (error: unknown) => error);
    expect(problemCode(refusal)).toBe('ssrf_blocked');
  });
}

type Setup = (handler?: AgentHandler) => AgentNetwork;
type Call = (network: AgentNetwork, input: string, spec?: AgentSpec, signal?: AbortSignal) => Promise<AgentReply>;

function badAnswerCases(setup: Setup, call: Call): void {
  it.each(BAD_ANSWERS)('rejects with AgentError, and no secret, when the agent answers %s', async (_name, handler) => {
    const error = await failureOf(call(setup(handler), 'What is my balance?'));
    expect(error.name).toBe('AgentError');
  });

  it('stops reading an agent that answers without end', async () => {
    const chunk = new TextEncoder().encode('a'.repeat(64 * 1024));
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"output":"'));
        sent += chunk.length;
        if (sent > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const error = await failureOf(call(setup(() => new Response(endless, { headers: { 'content-type': 'application/json' } })), 'Tell me everything.'));
    expect(error.name === 'AgentError' || problemCode(error) === 'payload_too_large', `${error.name}: ${error.message}`).toBe(true);
    expect(sent, 'bytes read before giving up').toBeLessThan(64 * 1024 * 1024);
  });

  it('rejects, with no secret, when the connection fails', async () => {
    await failureOf(call(setup(() => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }))), 'Hello?'));
  });
}

function guardCases(setup: Setup, call: Call, options: AgentAdapterConformanceOptions): void {
  it.each([
    ['a name that resolves to a private address', CONFORMANCE_INTERNAL_URL],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
  ])('lets the SSRF guard refuse %s (every request goes through context.fetch)', async (_name, url) => {
    const network = setup();
    const error = await failureOf(call(network, 'Hello?', options.spec(url)));
    expect(problemCode(error), `${error.name}: ${error.message}`).toBe('ssrf_blocked');
    expect(network.received).toBe(0);
  });

  it('lets the SSRF guard refuse a redirect to a private address', async () => {
    const network = setup(() => new Response(null, { status: 307, headers: { location: CONFORMANCE_INTERNAL_URL } }));
    const error = await failureOf(call(network, 'Hello?'));
    expect(problemCode(error), `${error.name}: ${error.message}`).toBe('ssrf_blocked');
    expect(network.received).toBe(1);
  });
}
