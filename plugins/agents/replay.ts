/**
 * The `replay` agent adapter (api-contract.md "Built-in agent adapters"): scores a recorded `.jsonl` trace
 * without calling any agent. `trace_path` is read through the file jail. Each task gets the first recorded
 * `agent_output` of the same task id (and variant), with its tool calls and recorded latency. Lines of the
 * plain form `{"task_id", "output"}` are accepted too, for recordings made by other tools.
 *
 * A recorded call that names a tool of the task's world runs on that world again, in the recorded order, and
 * the world's answer replaces the recorded one (as for `scripted`): the world then holds what the recorded agent
 * did, so gold worlds and state checks judge the recording (a published trajectory's reward reproduced,
 * bench/tau/trajectories.mjs). Other recorded calls, and those recorded `executed: false`, are kept as recorded.
 */
import type { Plugin } from '../../core/plugin.ts';
import { Problem } from '../../core/problems.ts';
import { AgentError, type AgentAdapter, type AgentReply, type AgentTools, type ToolCall } from '../../core/agent-adapter.ts';
import type { TraceEvent } from '../../core/domain/trace.ts';
import { parseAgentJson } from '../../core/guards/json-depth.ts';

const OPTIONS = {
  type: 'object',
  required: ['trace_path'],
  properties: { trace_path: { type: 'string', minLength: 1, maxLength: 4096 } },
};

type Recording = Map<string, AgentReply>;

const MAX_CACHED = 32;
const cache = new Map<string, Promise<Recording>>();

const keyOf = (taskId: string, variant?: string) => `${variant ?? ''}\u0000${taskId}`;

/**
 * Indexes a recorded trace by task id and variant. Tool calls belong to the output they follow (our traces) or,
 * in recordings that log them first, to the output they precede.
 */
export function indexRecording(bytes: Uint8Array): Recording {
  const recording: Recording = new Map();
  const pending = new Map<string, ToolCall[]>();
  let open: string | undefined;
  for (const line of new TextDecoder().decode(bytes).split('\n')) {
    if (!line.trim()) continue;
    let event: Partial<TraceEvent> & { output?: unknown; latency_ms?: unknown };
    try {
      event = parseAgentJson(line) as typeof event;
    } catch {
      continue;
    }
    if (!event || typeof event !== 'object' || typeof event.task_id !== 'string') continue;
    const key = keyOf(event.task_id, event.variant);
    const data = (event.data ?? {}) as Record<string, unknown>;
    if (event.type === 'tool_call') {
      const call: ToolCall = { name: String(data.name ?? ''), arguments: data.arguments, result: data.result, ...(data.executed === false ? { executed: false } : {}) };
      if (open === key) (recording.get(key)!.tool_calls ??= []).push(call);
      else if (!recording.has(key)) pending.set(key, [...(pending.get(key) ?? []), call]);
      continue;
    }
    if (event.type !== 'handoff') open = undefined;
    const plain = event.type === undefined && typeof event.output === 'string';
    const output = event.type === 'agent_output' && !data.probe ? data.output : plain ? event.output : undefined;
    if (typeof output !== 'string' || recording.has(key)) continue;
    const latency = plain ? event.latency_ms : data.latency_ms;
    recording.set(key, {
      output,
      ...(pending.has(key) ? { tool_calls: pending.get(key) } : {}),
      ...(typeof latency === 'number' && latency >= 0 ? { latency_ms: latency } : {}),
    });
    open = key;
  }
  return recording;
}

async function load(path: string, readFile: (path: string) => Promise<Uint8Array>, cacheKey: string): Promise<Recording> {
  let recording = cache.get(cacheKey);
  if (!recording) {
    recording = readFile(path).then(indexRecording);
    recording.catch(() => cache.delete(cacheKey));
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(cacheKey, recording);
  }
  return recording;
}

/**
 * The recorded calls, those naming a tool of the world run on it in order (the world records each). A call the
 * recording marks `executed: false` (the recorded agent asked for it, its run never ran it: AgentDojo's tool loop
 * stopping at its iteration limit) stays unrun, and is recorded as not executed.
 */
async function replayCalls(calls: readonly ToolCall[], tools: AgentTools): Promise<ToolCall[]> {
  const replayed: ToolCall[] = [];
  for (const call of calls) {
    if (!tools.has(call.name) || call.executed === false) {
      replayed.push(call);
      continue;
    }
    const outcome = await tools.call(call.name, call.arguments ?? {});
    replayed.push({ name: call.name, arguments: call.arguments ?? {}, result: 'error' in outcome ? { error: outcome.error } : outcome.result, executed: true });
  }
  return replayed;
}

/** The replay adapter. */
export const replayAdapter: AgentAdapter = {
  name: 'replay',
  description: 'Scores a recorded .jsonl trace without calling any agent.',
  options: OPTIONS,
  idempotent: true,
  recorded: true,
  async check(spec, { readFile }) {
    const recording = indexRecording(await readFile(String(spec.trace_path)));
    if (recording.size === 0) {
      throw new Problem('validation_failed', { detail: 'the recorded trace holds no agent output', errors: [{ path: '/agent/trace_path', message: 'holds no agent_output events' }] });
    }
  },
  async call(_input, { run_id, spec, task, readFile, variant, tools }) {
    const path = String(spec.trace_path);
    const recording = await load(path, readFile, `${run_id}\u0000${path}`);
    const reply = recording.get(keyOf(task.id, variant)) ?? (variant ? recording.get(keyOf(task.id)) : undefined);
    if (!reply) throw new AgentError(`the recorded trace has no output for task "${task.id}"${variant ? ` (variant ${variant})` : ''}`);
    // The recording is shared by every task and trial that replays it: the replayed calls are a new list.
    return reply.tool_calls && tools ? { ...reply, tool_calls: await replayCalls(reply.tool_calls, tools) } : reply;
  },
};

export default {
  name: 'agent-replay',
  setup(host) {
    host.agents.register(replayAdapter, 'agent-replay');
  },
} satisfies Plugin;
