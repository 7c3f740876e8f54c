/**
 * Every bundled agent adapter runs the agent adapter conformance suite (testing/agent-adapter.ts): the two that
 * call an agent over HTTP against an in-process agent speaking their protocol, the two that call no one with the
 * output their spec gives.
 */
import { testAgentAdapter, CONFORMANCE_AGENT_KEY_ENV, CONFORMANCE_AGENT_SECRET } from '../../testing/index.ts';
import { scriptedAdapter } from './scripted.ts';
import { replayAdapter } from './replay.ts';
import { httpAdapter } from './http.ts';
import { openaiAdapter } from './openai.ts';

testAgentAdapter(scriptedAdapter, {
  spec: () => ({ adapter: 'scripted', replies: { '*': 'Your balance is 42 EUR.' } }),
  output: 'Your balance is 42 EUR.',
  slowSpec: { adapter: 'scripted', replies: { '*': 'Too late.' }, delay_ms: 600_000 },
});

testAgentAdapter(replayAdapter, {
  spec: () => ({ adapter: 'replay', trace_path: 'recordings/support.jsonl' }),
  files: {
    'recordings/support.jsonl': [
      { seq: 0, type: 'run_start', task_id: null, data: {} },
      { seq: 1, type: 'agent_output', task_id: 't1', data: { output: 'Recorded: your balance is 42 EUR.', latency_ms: 80 } },
    ].map((event) => JSON.stringify(event)).join('\n'),
  },
  output: 'Recorded: your balance is 42 EUR.',
});

testAgentAdapter(httpAdapter, {
  spec: (url) => ({ adapter: 'http', url, headers: { 'x-team': 'support' } }),
  async agent(request, reply) {
    const body = (await request.json()) as { run_id: string; task_id: string; input: string };
    if (request.headers.get('x-team') !== 'support' || body.task_id !== 't1') return new Response('unexpected request', { status: 400 });
    return Response.json({ output: reply(body.input) });
  },
});

testAgentAdapter(openaiAdapter, {
  spec: (url) => ({ adapter: 'openai', base_url: url, model: 'conformance-model', api_key_env: CONFORMANCE_AGENT_KEY_ENV }),
  async agent(request, reply) {
    if (request.headers.get('authorization') !== `Bearer ${CONFORMANCE_AGENT_SECRET}`) return Response.json({ error: { message: 'invalid key' } }, { status: 401 });
    if (!request.url.endsWith('/chat/completions')) return new Response('not found', { status: 404 });
    const { messages } = (await request.json()) as { messages: Array<{ role: string; content: string }> };
    const question = messages.findLast((message) => message.role === 'user')!.content;
    return Response.json({ choices: [{ index: 0, message: { role: 'assistant', content: reply(question) }, finish_reason: 'stop' }] });
  },
});
