/**
 * `aeh evaluate --agent` (issue 17 item 8) and runs that measure nothing (issue 18 item 6) on the command line:
 * a registered agent by name, an inline JSON spec or a JSON file; a scenario without an agent refused with the
 * way to give one; a run that measured nothing says why in the text report, JUnit and Markdown, and exits 3.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { startNodeService, type NodeService } from '../runtime/node/start.ts';
import { silentLogger } from '../core/capabilities.ts';
import { CLI_KEY, projectWithFixtures, runCli } from './cli-io.ts';

/** An AES document (no agent of its own) whose only check is a prose rubric: unmeasured without a judge. */
const AES_RUBRIC = {
  aes_version: 1.4,
  metadata: { id: 'cli-aes-rubric', name: 'CLI fixture: AES rubric only' },
  industry: 'testing',
  workflow: { nodes: [{ id: 'greet', task_description: 'Greet the customer.', expected_outcome: [{ target: 'message', expected: 'A friendly greeting that offers help.', mode: 'regex' }] }], edges: [] },
};
const GREETER = { adapter: 'scripted', replies: { '*': 'Hello! How can I help you today?' } };
const PASSING = { adapter: 'scripted', replies: { classify: 'dispute', explain: "I'm an automated assistant. Your dispute is open." } };
/** A scenario whose own agent fails it: only an --agent override passes it. */
const WRONG_AGENT_SCENARIO = {
  id: 'cli-wrong-agent', title: 'CLI fixture: the wrong agent', industry: 'testing', use_case: 'ci_gate', tags: ['cli'], policy_ref: 'NIST AI 100-1',
  agent: { adapter: 'scripted', replies: { '*': 'no idea' } }, topology: [],
  tasks: [{ id: 'classify', input: 'Classify: a charge I never made.', expected: { equals: 'dispute' }, metrics: [{ id: 'task_success' }] }],
};

let cwd: string;
beforeAll(() => {
  cwd = projectWithFixtures();
  writeFileSync(join(cwd, 'aes-rubric.json'), JSON.stringify(AES_RUBRIC));
  writeFileSync(join(cwd, 'greeter.json'), JSON.stringify(GREETER));
  writeFileSync(join(cwd, 'passing-agent.json'), JSON.stringify(PASSING));
  // pass.json with an agent that fails its tasks: the --agent override is what passes it.
  writeFileSync(join(cwd, 'pass-wrong-agent.json'), JSON.stringify(WRONG_AGENT_SCENARIO));
});

describe('cli: aeh evaluate --agent', () => {
  it('refuses a scenario without an agent (exit 3), naming /agent and how to give one', async () => {
    const result = await runCli(['evaluate', 'aes-rubric.json'], { cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/evaluate failed: 400 validation_failed/);
    expect(result.stderr).toContain('/agent: the scenario names no agent');
    expect(result.stderr).toContain('hint: give "agent"');
    expect(result.stderr).toContain('give --agent NAME');
  });

  it('takes an inline JSON spec or a JSON file, over the scenario\'s own agent', async () => {
    const wrong = await runCli(['evaluate', 'pass-wrong-agent.json'], { cwd });
    expect(wrong.code).toBe(1);
    const inline = await runCli(['evaluate', 'pass-wrong-agent.json', '--agent', JSON.stringify(PASSING)], { cwd });
    expect(inline.code, inline.stderr).toBe(0);
    expect(inline.stdout).toMatch(/^pass .*, agent scripted \([a-f0-9]{12}\)\n/);
    for (const value of ['passing-agent.json', '@passing-agent.json']) {
      const file = await runCli(['evaluate', 'pass-wrong-agent.json', '--agent', value], { cwd });
      expect(file.code, file.stderr).toBe(0);
      expect(file.stdout.split('\n')[0]!.split('agent ')[1]).toBe(inline.stdout.split('\n')[0]!.split('agent ')[1]);
    }
  });

  it('refuses an --agent that is neither a name, a spec nor a file (usage, exit 3)', async () => {
    for (const value of ['Not A Name!', '{"adapter": ', '["http"]', '{"url": "https://a.example.com"}', '@missing.json']) {
      const result = await runCli(['evaluate', 'pass.json', '--agent', value], { cwd });
      expect(result.code, value).toBe(3);
      expect(result.stderr, value).toMatch(/^aeh evaluate: --agent/m);
      expect(result.stderr).toContain('usage: aeh evaluate');
    }
  });
});

describe('cli: a run that measured nothing', () => {
  it('text: exit 3, compliance error and the reason', async () => {
    const result = await runCli(['evaluate', 'aes-rubric.json', '--agent', 'greeter.json'], { cwd });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^error CLI fixture: AES rubric only: index 0, 0 failure\(s\), run run_\w+, agent scripted/);
    expect(result.stdout).toContain('\n  reason: nothing was measured: llm_judge on 1 result: ');
  });

  it('JUnit: an error test case named run says why, with the reason and the agent as properties', async () => {
    const result = await runCli(['evaluate', 'aes-rubric.json', '--agent', 'greeter.json', '--format', 'junit'], { cwd });
    expect(result.code).toBe(3);
    expect(XMLValidator.validate(result.stdout)).toBe(true);
    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' || name === 'property' }).parse(result.stdout).testsuites.testsuite;
    expect(suite.errors).toBe('1');
    const errorCase = suite.testcase.find((entry: { name: string }) => entry.name === 'run');
    expect(errorCase.error.type).toBe('nothing_measured');
    expect(errorCase.error.message).toMatch(/^nothing was measured: llm_judge/);
    const properties = Object.fromEntries(suite.properties.property.map((entry: { name: string; value: string }) => [entry.name, entry.value]));
    expect(properties).toMatchObject({ compliance: 'error', agent: 'scripted' });
    expect(properties.reason).toMatch(/^nothing was measured/);
    expect(properties.agent_config_hash).toMatch(/^[a-f0-9]{64}$/);
  });

  it('Markdown: "No verdict" and the reason, not "could not complete"', async () => {
    const result = await runCli(['evaluate', 'aes-rubric.json', '--agent', 'greeter.json', '--format', 'markdown'], { cwd });
    expect(result.stdout).toContain('> No verdict: nothing was measured: llm_judge');
    expect(result.stdout).not.toContain('could not complete');
  });
});

describe('cli: aeh evaluate --agent NAME against a running service', () => {
  let service: NodeService;

  beforeAll(async () => {
    service = await startNodeService({ PROJECT_ROOT: cwd, PORT: '0', HOST: '127.0.0.1', DASHBOARD_API_KEY: CLI_KEY, AEH_STORAGE: 'memory' }, cwd, silentLogger);
    const registered = await fetch(`${service.url}/api/v1/agents`, { method: 'POST', headers: { 'x-api-key': CLI_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'dispute-bot', adapter: 'scripted', options: { replies: PASSING.replies } }) });
    expect(registered.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('runs against the registered agent and reports its name; an unknown name is 404, exit 3', async () => {
    const result = await runCli(['evaluate', 'pass-wrong-agent.json', '--agent', 'dispute-bot', '--url', service.url, '--key', CLI_KEY, '--json'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).agent).toMatchObject({ name: 'dispute-bot', adapter: 'scripted' });
    const unknown = await runCli(['evaluate', 'pass.json', '--agent', 'no-such-bot', '--url', service.url, '--key', CLI_KEY], { cwd });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/404 not_found no agent is registered as "no-such-bot"/);
  });
});
