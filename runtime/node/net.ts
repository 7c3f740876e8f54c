/**
 * Node's network primitives for the SSRF guard: DNS resolution of every address, and fetches pinned to an
 * address the guard already checked (an undici Agent whose `connect.lookup` answers only that address), so a
 * second DNS answer cannot redirect the connection.
 */
import { lookup } from 'node:dns/promises';
import { Agent, fetch as undiciFetch } from 'undici';
import type { NetAccess, ResolvedAddress } from '../../core/runtime.ts';

export function createNodeNet(): NetAccess {
  return {
    async resolve(hostname) {
      const answers = await lookup(hostname, { all: true, verbatim: true });
      return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
    },
    async fetchPinned(url: URL, init: RequestInit, address: ResolvedAddress) {
      const dispatcher = new Agent({
        connect: {
          lookup(_hostname, options, callback) {
            const wantsAll = typeof options === 'object' && (options as { all?: boolean }).all;
            if (wantsAll) (callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [{ address: address.address, family: address.family }]);
            else callback(null, address.address, address.family);
          },
        },
      });
      try {
        const response = await undiciFetch(url, { ...(init as object), dispatcher, redirect: 'manual' } as Parameters<typeof undiciFetch>[1]);
        return response as unknown as Response;
      } finally {
        void dispatcher.close().catch(() => undefined);
      }
    },
  };
}
