import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeNet } from './net.ts';
import { createGuardedFetch } from '../../core/guards/ssrf.ts';
import { isProblem } from '../../core/problems.ts';

let server: Server;
let port: number;
const BIG = 3 * 1024 * 1024;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/big') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      let sent = 0;
      const pump = () => {
        while (sent < BIG) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
      return;
    }
    if (request.url === '/redirect-home') {
      response.writeHead(302, { location: `http://127.0.0.1:${port}/echo` });
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ host: request.headers.host, url: request.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('runtime/node: pinned connections', () => {
  it('connects to the pinned address whatever the name resolves to, keeping the Host header', async () => {
    const net = createNodeNet();
    // `pinned.invalid` resolves nowhere (RFC 6761): only the pin can have reached the local server.
    const response = await net.fetchPinned(new URL(`http://pinned.invalid:${port}/echo`), {}, { address: '127.0.0.1', family: 4 });
    expect(await response.json()).toEqual({ host: `pinned.invalid:${port}`, url: '/echo' });
  });

  it('streams a large body to the end after the agent started closing', async () => {
    const net = createNodeNet();
    const response = await net.fetchPinned(new URL(`http://pinned.invalid:${port}/big`), {}, { address: '127.0.0.1', family: 4 });
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThanOrEqual(BIG);
  });

  it('resolves localhost to loopback, which the guard then refuses', async () => {
    const net = createNodeNet();
    const addresses = await net.resolve('localhost');
    expect(addresses.length).toBeGreaterThan(0);
    const guarded = createGuardedFetch({ net, allowHosts: [], fallbackFetch: fetch });
    const error = await guarded(`http://127.0.0.1:${port}/echo`).catch((caught) => caught);
    expect(isProblem(error) && error.code).toBe('ssrf_blocked');
  });

  it('reaches a local server through the guard only when allow-listed, redirects included', async () => {
    const guarded = createGuardedFetch({ net: createNodeNet(), allowHosts: ['127.0.0.1'], fallbackFetch: fetch });
    expect(await (await guarded(`http://127.0.0.1:${port}/redirect-home`)).json()).toMatchObject({ url: '/echo' });
  });
});
