/**
 * What an answer's turn sent out of the world: the tool calls the engine marked `egress: true` (a shim action
 * that declares `egress`, core/shim.ts: mail to another domain, a request to an outside API), each with its
 * string arguments and their JSON Pointers (RFC 6901), so that the leak metrics read them as they read the
 * answer and can say where a value went (`email.send`, event 7, `/body`).
 *
 * A turn's calls are those between the answer before it and this one: the engine records a call when the world
 * runs it, during the agent's call, so they precede the answer they belong to. Each call is read once, in the
 * turn that made it, however many answers a conversation has.
 */
import { isAnswer, type TraceEvent } from '../../../core/domain/trace.ts';

/** One argument value of an egress call, as text. */
export interface EgressValue {
  /** JSON Pointer of the value in the call's arguments (`/body`, `/to/0`). */
  path: string;
  text: string;
  /** True for a message's address fields (`to`, `cc`, `bcc`, `from`, `reply_to`, `recipients`): where it goes, not what it carries. */
  address: boolean;
}

/** One call that sent data out of the world. */
export interface EgressCall {
  /** Sequence number of its `tool_call` event. */
  event_index: number;
  /** Its tool, `shim.action`. */
  tool: string;
  /** The conversation turn (1-based) whose answer it preceded. */
  turn: number;
  /** The world's error code when it refused the call: the agent still tried to send the data. */
  refused?: string;
  values: EgressValue[];
}

/** RFC 5322's address fields, and the plural most tools use. */
const ADDRESS_FIELD = /^(?:to|cc|bcc|from|reply_to|reply-to|recipients?)$/i;
/** How deep arguments are walked; a deeper value is not read (no shim takes such arguments). */
const MAX_DEPTH = 32;

const pointerOf = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every string (and number) in `value`, with its JSON Pointer and whether it sits in an address field. */
function valuesOf(value: unknown): EgressValue[] {
  const values: EgressValue[] = [];
  const walk = (item: unknown, path: string, address: boolean, depth: number) => {
    if (typeof item === 'string') {
      if (item) values.push({ path, text: item, address });
    } else if (typeof item === 'number' || typeof item === 'bigint') values.push({ path, text: String(item), address });
    else if (item && typeof item === 'object' && depth < MAX_DEPTH) {
      if (Array.isArray(item)) item.forEach((entry, index) => walk(entry, `${path}/${index}`, address, depth + 1));
      else for (const [key, entry] of Object.entries(item)) walk(entry, `${path}/${pointerOf(key)}`, ADDRESS_FIELD.test(key), depth + 1);
    }
  };
  walk(value, '', false, 0);
  return values;
}

/**
 * The egress calls of the turn that ends with the answer at `outputEvent`: those recorded after the answer
 * before it (probes are a metric's questions, not the agent's calls).
 */
export function egressCallsOf(events: readonly TraceEvent[], outputEvent: number): EgressCall[] {
  let calls: EgressCall[] = [];
  let turn = 1;
  for (const event of events) {
    if (event.seq >= outputEvent) break;
    if (isAnswer(event)) {
      calls = [];
      turn++;
    } else if (event.type === 'tool_call' && event.data.egress === true && event.data.probe !== true) {
      const error = event.data.error as { code?: unknown } | undefined;
      calls.push({
        event_index: event.seq, tool: String(event.data.name ?? ''), turn, values: valuesOf(event.data.arguments),
        ...(error && typeof error === 'object' ? { refused: String(error.code ?? 'error') } : {}),
      });
    }
  }
  return calls;
}

/** "email.send (event 7, /body) in turn 2", and that the world refused it when it did. */
export function describeEgress(call: EgressCall, path: string): string {
  return `${call.tool} (event ${call.event_index}, ${path || '/'}) in turn ${call.turn}${call.refused ? `, an attempt the world refused (${call.refused})` : ''}`;
}
