/**
 * Walks back from the failing trace event through the scenario topology: the failing task's own events
 * (input, tool calls and the world changes they made, output), then every event by which an upstream agent could have influenced the
 * failing agent — handoffs to it, and outputs of agents that write a channel it reads, transitively.
 */
import type { TraceEvent } from '../../core/domain/trace.ts';
import type { TopologyNode } from '../../core/domain/scenario.ts';

export interface ChainLink {
  event_index: number;
  type: string;
  task_id?: string | null;
  agent?: string | null;
  variant?: string;
  /** One line saying what happened. */
  summary: string;
  /** Why the event is on the chain. */
  reason: string;
}

/** The longest summary, in characters. */
export const MAX_SUMMARY = 160;

/**
 * Makes the one-line excerpt of a summary: the redactor's (core/redactor.ts), which masks canaries, secrets
 * and personal data before it cuts at MAX_SUMMARY, so a summary never shows a secret, whole or in part.
 */
export type SummaryExcerpt = (text: string) => string;

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** A one-line summary of an event, whatever fields its producer used, made by `clip`. */
export function summarise(event: TraceEvent, clip: SummaryExcerpt): string {
  const data = event.data ?? {};
  const who = event.agent ? `${event.agent}` : 'agent';
  switch (event.type) {
    case 'input':
      return clip(`input to ${who}${event.task_id ? ` (task ${event.task_id})` : ''}: ${text(data.input ?? data.content ?? data.text)}`);
    case 'agent_output':
      return clip(`${who} answered: ${text(data.output ?? data.content ?? data.text)}`);
    case 'tool_call': {
      const outcome = data.error ? ` → error ${text((data.error as { code?: unknown }).code ?? data.error)}` : data.result !== undefined ? ` → ${text(data.result)}` : '';
      return clip(`${who} called tool ${text(data.name ?? data.tool)}(${text(data.arguments ?? data.args)})${outcome}`);
    }
    case 'state_change': {
      const patch = Array.isArray(data.patch) ? (data.patch as Array<{ op?: unknown; path?: unknown }>) : [];
      return clip(`${text(data.shim)} changed: ${patch.map((op) => `${text(op.op)} ${text(op.path)}`).join(', ') || 'no detail'}`);
    }
    case 'handoff':
      return clip(`handoff ${text(data.from ?? event.agent)} → ${text(data.to)}${data.channel ? ` via ${text(data.channel)}` : ''}: ${text(data.content ?? data.message)}`);
    case 'metric_result':
      return clip(`metric ${text(data.metric ?? data.id)} scored ${text(data.score)}`);
    case 'error':
      return clip(`error: ${text(data.message ?? data.code)}`);
    default:
      return clip(`${event.type}${event.task_id ? ` (task ${event.task_id})` : ''}`);
  }
}

/** Upstream agents of `agent`: those writing a channel it reads, with the channel. */
function writersInto(agent: string, topology: TopologyNode[]): Array<{ agent: string; channel: string }> {
  const reader = topology.find((node) => node.agent === agent);
  if (!reader) return [];
  const found: Array<{ agent: string; channel: string }> = [];
  for (const node of topology) {
    if (node.agent === agent) continue;
    for (const channel of node.writes) if (reader.reads.includes(channel)) found.push({ agent: node.agent, channel });
  }
  return found;
}

/**
 * Builds the causal chain ending at `trigger`, in trace order.
 * @param events the run's trace, sorted by seq
 * @param trigger the failing event
 * @param clip makes each link's summary (redacted, then cut)
 */
export function causalChain(events: TraceEvent[], trigger: TraceEvent, topology: TopologyNode[], clip: SummaryExcerpt): ChainLink[] {
  const links = new Map<number, ChainLink>();
  const add = (event: TraceEvent, reason: string) => {
    if (!links.has(event.seq)) links.set(event.seq, { event_index: event.seq, type: event.type, task_id: event.task_id, agent: event.agent, variant: event.variant, summary: summarise(event, clip), reason });
  };
  const before = events.filter((event) => event.seq <= trigger.seq && event.variant === trigger.variant && event.trial === trigger.trial);

  add(trigger, 'the failing event');
  for (const event of before) {
    if (event.task_id !== trigger.task_id || event.seq === trigger.seq) continue;
    if (event.type === 'input') add(event, 'the input of the failing task');
    else if (event.type === 'tool_call') add(event, 'a tool call the failing agent made in this task');
    else if (event.type === 'state_change') add(event, `a change the agent's tool call made to the ${text(event.data?.shim)} world`);
    else if (event.type === 'handoff') add(event, 'a handoff within the failing task');
  }

  const failingAgent = trigger.agent;
  if (failingAgent) {
    const visited = new Set<string>([failingAgent]);
    const queue: Array<{ agent: string; limit: number }> = [{ agent: failingAgent, limit: trigger.seq }];
    while (queue.length) {
      const { agent, limit } = queue.shift()!;
      for (const event of before) {
        if (event.seq >= limit || event.type !== 'handoff') continue;
        if (String(event.data?.to ?? '') === agent) add(event, `a handoff into ${agent}`);
      }
      for (const { agent: writer, channel } of writersInto(agent, topology)) {
        const outputs = before.filter((event) => event.seq < limit && event.agent === writer && (event.type === 'agent_output' || event.type === 'tool_call' || event.type === 'handoff'));
        for (const event of outputs) add(event, `${writer} writes to [${channel}], which ${agent} reads`);
        if (!visited.has(writer) && outputs.length) {
          visited.add(writer);
          queue.push({ agent: writer, limit: outputs[outputs.length - 1].seq });
        }
      }
    }
  }
  return [...links.values()].sort((a, b) => a.event_index - b.event_index);
}
