/**
 * Agents for tests that need runs to wait: a gated agent that answers when the test releases it, and a stalled
 * one that answers only when its task is stopped (runs then stay outstanding, as for quota tests).
 */
import type { Plugin } from '../core/plugin.ts';

/** Rejects when `signal` aborts: a cancelled or stopped task stops waiting. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}

/** The `gated` adapter: each call waits until `release(<scenario id>)`; `started` lists the scenarios called. */
export function gatedAgent() {
  const started: string[] = [];
  const waiting = new Map<string, () => void>();
  const plugin: Plugin = {
    name: 'gated-agent',
    setup(host) {
      host.agents.register({
        name: 'gated',
        description: 'test: answers when released',
        async call(_input, context) {
          const id = String((context.scenario as { id: string }).id);
          started.push(id);
          await Promise.race([new Promise<void>((resolve) => waiting.set(id, resolve)), untilAborted(context.signal)]);
          return { output: 'Your balance is 42 EUR.' };
        },
      }, 'gated-agent');
    },
  };
  return { plugin, started, release: (id: string) => waiting.get(id)?.() };
}

/** The `stalled` adapter: never answers; its calls end when their task is stopped or cancelled. */
export const stalledAgent: Plugin = {
  name: 'stalled-agent',
  setup(host) {
    host.agents.register({ name: 'stalled', description: 'test: answers only when stopped', call: (_input, context) => untilAborted(context.signal) }, 'stalled-agent');
  },
};
