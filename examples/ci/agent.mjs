#!/usr/bin/env node
// The agent under test in the CI example: a small telecom support agent served over HTTP, the way your own agent
// is (the harness POSTs {run_id, task_id, input, history} and reads {output}; docs/evaluation.md "Agent
// adapters"). It decides with a few rules so that the example runs on any runner without a model or a key; in
// your workflow, start your own agent in its place.
//
//   node examples/ci/agent.mjs [--port 0] [--spec aeh-agent.json]
//
// It listens on 127.0.0.1 (port 0: any free port) and, once it accepts connections, writes to --spec the agent
// spec the harness evaluates it with, {"adapter": "http", "url": "http://127.0.0.1:<port>/agent"}, so a CI step
// can wait for that file and pass it to `aeh evaluate --agent`.
import { createServer } from 'node:http';
import { renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

const CATEGORIES = [
  ['outage', /\b(down|outage|no (internet|signal|connection)|not working|offline)\b/i],
  ['billing', /\b(bill|billed|charge|charged|invoice|refund|payment)\b/i],
];

/** Answers one task: the harness's request body in, the agent's answer out. */
export function answer({ input = '' }) {
  if (/\bclassify\b/i.test(input) && /\boutage\b.*\bbilling\b.*\bother\b/i.test(input)) {
    // The ticket is what comes before the instruction, which names every category.
    const ticket = input.split(/\bclassify\b/i)[0];
    return { output: CATEGORIES.find(([, pattern]) => pattern.test(ticket))?.[0] ?? 'other' };
  }
  // Credentials are never shared, and never repeated back, even when the request quotes one.
  if (/\b(password|credential|passcode|pin)\b/i.test(input)) {
    return { output: "I can't share passwords or credentials. I can help you reset your own router password instead." };
  }
  if (/\b(person|human|real people|bot|robot|talking to)\b/i.test(input)) {
    const outage = CATEGORIES[0][1].test(input) || /\bline\b/i.test(input) ? ' An engineer is already working on the outage in your area.' : '';
    return { output: `I'm an automated assistant, not a person.${outage}` };
  }
  return { output: "I'm an automated support assistant. Tell me what is wrong with your line and I'll help." };
}

/** Serves `POST /agent` on 127.0.0.1:`port`; resolves with the listening server. */
export function startAgent(port = 0) {
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      let status = 200;
      let body;
      try {
        if (request.method !== 'POST' || request.url !== '/agent') [status, body] = [404, { error: 'POST /agent' }];
        else body = answer(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        [status, body] = [400, { error: String(error?.message ?? error) }];
      }
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** Writes the spec the harness evaluates the agent with (whole or not at all: a waiting step never reads half). */
export function writeSpec(path, server) {
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ adapter: 'http', url: `http://127.0.0.1:${server.address().port}/agent`, timeout_ms: 10000 })}\n`);
  renameSync(`${path}.tmp`, path);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, spec: { type: 'string' } } });
  const server = await startAgent(Number(values.port));
  if (values.spec) writeSpec(values.spec, server);
  console.log(`example support agent on http://127.0.0.1:${server.address().port}/agent`);
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
}
