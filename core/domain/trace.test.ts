import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { createTraceWriter, parseTrace, runningSha3 } from './trace.ts';
import { nodeSha3 } from '../../runtime/node/capabilities.ts';

const sha3 = (bytes: Uint8Array) => createHash('sha3-256').update(bytes).digest('hex');

function memoryTrace(native?: typeof nodeSha3) {
  let stored = new Uint8Array();
  const writer = createTraceWriter({
    runId: 'run_1',
    now: () => Date.UTC(2026, 0, 1),
    digest: runningSha3(native),
    append: async (bytes) => {
      const joined = new Uint8Array(stored.length + bytes.length);
      joined.set(stored);
      joined.set(bytes, stored.length);
      stored = joined;
    },
  });
  return { writer, stored: () => stored };
}

describe('core: trace writer', () => {
  for (const [name, native] of [['native', nodeSha3], ['@noble/hashes', undefined]] as const) {
    it(`buffers a step, appends it in one write and keeps the SHA3-256 of the bytes (${name})`, async () => {
      const { writer, stored } = memoryTrace(native);
      expect(writer.emit('run_start', { data: { units: 1 } })).toBe(0);
      expect(writer.emit('input', { task_id: 't1', agent: 'Support', data: { input: 'hi' } })).toBe(1);
      expect(stored().length).toBe(0);
      await writer.flush();
      expect(writer.cursor()).toEqual({ seq: 2, bytes: stored().length });
      expect(writer.digest()).toBe(sha3(stored()));
      writer.emit('run_end', { data: { status: 'succeeded' } });
      await writer.flush();
      expect(writer.digest()).toBe(sha3(stored()));
      const events = parseTrace(stored());
      expect(events.map((event) => [event.seq, event.type, event.task_id, event.agent])).toEqual([
        [0, 'run_start', null, null], [1, 'input', 't1', 'Support'], [2, 'run_end', null, null],
      ]);
      expect(events[1]).toMatchObject({ run_id: 'run_1', ts: '2026-01-01T00:00:00.000Z', data: { input: 'hi' } });
    });
  }

  it('continues a stored trace from a cursor without re-reading it', async () => {
    const first = memoryTrace(nodeSha3);
    first.writer.emit('run_start', { data: {} });
    await first.writer.flush();
    const digest = runningSha3(nodeSha3);
    digest.update(first.stored());
    let tail: Uint8Array = new Uint8Array();
    const resumed = createTraceWriter({ runId: 'run_1', now: Date.now, digest, start: first.writer.cursor(), append: async (bytes) => void (tail = bytes) });
    expect(resumed.emit('input', { task_id: 't1', data: {} })).toBe(1);
    await resumed.flush();
    const whole = new Uint8Array([...first.stored(), ...tail]);
    expect(resumed.digest()).toBe(sha3(whole));
    expect(resumed.cursor()).toEqual({ seq: 2, bytes: whole.length });
  });

  it('writes each line exactly as JSON.stringify of the event (variant and awkward strings included)', async () => {
    const { writer, stored } = memoryTrace(nodeSha3);
    writer.emit('agent_output', { task_id: 't"1', agent: 'Ag\u2028ent', variant: 'typo@1#0', data: { output: 'a\nb "c" \u0000', n: 1.5, nested: [null, true] } });
    writer.emit('input', { data: { input: '' } });
    await writer.flush();
    const lines = new TextDecoder().decode(stored()).trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line));
    expect(lines).toEqual(events.map((event) => JSON.stringify(event)));
    expect(Object.keys(events[0])).toEqual(['seq', 'type', 'ts', 'run_id', 'task_id', 'agent', 'variant', 'data']);
    expect(events[0]).toMatchObject({ task_id: 't"1', variant: 'typo@1#0', data: { output: 'a\nb "c" \u0000' } });
  });

  it('skips a torn last line', () => {
    const bytes = new TextEncoder().encode('{"seq":0,"type":"run_start"}\n{"seq":1,"ty');
    expect(parseTrace(bytes).map((event) => event.seq)).toEqual([0]);
  });
});
