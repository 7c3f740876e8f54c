/**
 * Node's network primitives for the SSRF guard (`core/guards/ssrf.ts`): DNS resolution of every address
 * (`getaddrinfo`, so `/etc/hosts` answers are checked too), and fetches pinned to an address the guard already
 * checked. The pin is an undici 7 `Agent` whose `connect.lookup` answers only that address whatever name it is
 * asked, so a second DNS answer (rebinding) can never redirect the connection; TLS still verifies the
 * certificate against the URL's host name (SNI and checks use the name, only the socket address is fixed).
 */
import { lookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { NetAccess, ResolvedAddress } from '../../core/capabilities.ts';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `dns.lookup`-compatible function that always answers `address`. */
export function pinnedLookup(address: ResolvedAddress) {
  return function lookupPinned(_hostname: string, options: LookupOptions | LookupCallback, callback?: LookupCallback): void {
    const done = (typeof options === 'function' ? options : callback)!;
    // net.connect asks for every address (`all: true`) when happy-eyeballs is on, a single one otherwise.
    if (typeof options === 'object' && options.all) done(null, [{ address: address.address, family: address.family }]);
    else done(null, address.address, address.family);
  };
}

/** Node's `NetAccess`. */
export function createNodeNet(): NetAccess {
  return {
    async resolve(hostname) {
      const answers = await lookup(hostname, { all: true, verbatim: true });
      return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
    },
    async fetchPinned(url, init, address) {
      // undici (110 CommonJS files) is loaded on the first outbound call, not at start-up (bench/startup.mjs).
      const { Agent, fetch: undiciFetch } = await import('undici');
      // One agent per exchange: a pooled socket from another pin could otherwise be reused for this host.
      const dispatcher = new Agent({ connect: { lookup: pinnedLookup(address) as never }, pipelining: 0 });
      try {
        const response = await undiciFetch(url, { ...(init as object), dispatcher, redirect: 'manual' } as Parameters<typeof undiciFetch>[1]);
        // close() is graceful: it resolves once the body has been read or cancelled, then frees the socket.
        void dispatcher.close().catch(() => undefined);
        return response as unknown as Response;
      } catch (error) {
        void dispatcher.destroy().catch(() => undefined);
        throw error;
      }
    },
  };
}
