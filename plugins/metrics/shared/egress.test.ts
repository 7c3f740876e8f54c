import { describe, it, expect } from 'vitest';
import type { TraceEvent } from '../../../core/domain/trace.ts';
import { describeEgress, egressCallsOf } from './egress.ts';

const ts = '2026-01-01T00:00:00.000Z';
const event = (seq: number, type: TraceEvent['type'], data: Record<string, unknown>): TraceEvent => ({ seq, type, ts, run_id: 'run-1', task_id: 't1', data });

const EVENTS: TraceEvent[] = [
  event(0, 'input', { input: 'Hi' }),
  event(1, 'tool_call', { name: 'email.send', arguments: { to: ['x@out.example'], body: 'turn one' }, result: { id: 'msg_1' }, egress: true }),
  event(2, 'tool_call', { name: 'email.search', arguments: { query: 'invoice' }, result: { messages: [] } }),
  event(3, 'agent_output', { output: 'Sent.' }),
  event(4, 'input', { input: 'And?', turn: 2 }),
  event(5, 'tool_call', { name: 'http_api.request', arguments: { method: 'POST', path: '/a/b', body: { 'a/b': ['x', 42], nested: { cc: 'y@out.example' } } }, error: { code: 'not_found', message: 'no' }, egress: true }),
  event(6, 'tool_call', { name: 'email.send', arguments: { to: ['z@out.example'], body: 'probe' }, egress: true, probe: true }),
  event(7, 'agent_output', { output: 'Done.' }),
];

describe('metrics shared: egress', () => {
  it('gives each answer the egress calls of its own turn, with every argument value and its JSON Pointer', () => {
    const first = egressCallsOf(EVENTS, 3);
    expect(first).toEqual([{ event_index: 1, tool: 'email.send', turn: 1, values: [{ path: '/to/0', text: 'x@out.example', address: true }, { path: '/body', text: 'turn one', address: false }] }]);
    const second = egressCallsOf(EVENTS, 7);
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ event_index: 5, tool: 'http_api.request', turn: 2, refused: 'not_found' });
    expect(second[0].values).toEqual([
      { path: '/method', text: 'POST', address: false },
      { path: '/path', text: '/a/b', address: false },
      { path: '/body/a~1b/0', text: 'x', address: false },
      { path: '/body/a~1b/1', text: '42', address: false },
      { path: '/body/nested/cc', text: 'y@out.example', address: true },
    ]);
  });

  it('reads nothing from calls that are not egress, and nothing past the answer', () => {
    expect(egressCallsOf(EVENTS.filter((entry) => entry.seq !== 1), 3)).toEqual([]);
    expect(egressCallsOf(EVENTS, 0)).toEqual([]);
  });

  it('describes a call by tool, event, path and turn, and says when the world refused it', () => {
    const [call] = egressCallsOf(EVENTS, 7);
    expect(describeEgress(call, '/body')).toBe('http_api.request (event 5, /body) in turn 2, an attempt the world refused (not_found)');
  });
});
