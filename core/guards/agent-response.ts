/** Reading an agent's answer without trusting its size or its form. */
import { concatBytes } from '@noble/hashes/utils.js';
import { AgentError } from '../agent-adapter.ts';
import { parseAgentJson } from './json-depth.ts';

/**
 * Reads an agent's JSON answer, refusing error statuses and bodies over `maxBytes` (a hostile agent cannot
 * exhaust memory). Throws `AgentError`.
 */
export async function readAgentJson(response: Response, what: string, maxBytes = 4 * 1024 * 1024): Promise<unknown> {
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new AgentError(`${what} answered HTTP ${response.status}`, response.status);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > maxBytes) throw new AgentError(`${what} answered more than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  }
  const bytes = concatBytes(...chunks);
  try {
    // An answer nested past the depth limit keeps its shape down to it: still judged, never a stack overflow later.
    return parseAgentJson(new TextDecoder().decode(bytes));
  } catch {
    throw new AgentError(`${what} answered with a body that is not JSON`);
  }
}
