/**
 * `aeh evaluate --agent`: which agent the scenario runs against, over its own (issue 17 item 8). The value is
 * the name of a registered agent (`GET /api/v1/agents`), an inline JSON spec (`'{"adapter": "http", "url": …}'`)
 * or a JSON file holding one (`@file.json`, or its path); the service checks either as it checks a scenario's
 * own agent.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseBoundedJson } from '../../core/guards/json.ts';
import { AGENT_NAME } from '../../core/domain/agent-target.ts';

/** The `agent` member of the evaluate request, or why the value is none of the three forms. */
export type AgentOption = { agent?: string | Record<string, unknown>; problem?: undefined } | { agent?: undefined; problem: string };

function specFrom(text: string, what: string): AgentOption {
  let value: unknown;
  try {
    value = parseBoundedJson(text);
  } catch (error) {
    return { problem: `--agent: ${what} is not JSON (${(error as Error).message})` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) || typeof (value as { adapter?: unknown }).adapter !== 'string') {
    return { problem: `--agent: ${what} must be an object with "adapter" (an agent spec)` };
  }
  return { agent: value as Record<string, unknown> };
}

/** Reads `--agent` (`undefined`: the scenario's own agent). */
export function agentOption(value: string | undefined, cwd: string): AgentOption {
  if (value === undefined) return {};
  const text = value.trim();
  if (text.startsWith('{')) return specFrom(text, 'the inline spec');
  // `@file.json`, as `aeh suite run --agent` takes it, or a plain path to a file.
  const file = text.startsWith('@') ? text.slice(1) : text;
  const path = resolve(cwd, file);
  if (existsSync(path) && statSync(path).isFile()) return specFrom(readFileSync(path, 'utf8'), `the file ${file}`);
  if (text.startsWith('@')) return { problem: `--agent: no file ${file.slice(0, 200)}` };
  if (AGENT_NAME.test(text)) return { agent: text };
  return { problem: `--agent "${text.slice(0, 80)}" is neither a registered agent's name, a JSON spec nor a JSON file` };
}
