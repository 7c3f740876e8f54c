import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { createGuardedFetch } from './ssrf.ts';
import { isProblem } from '../problems.ts';
import type { NetAccess, ResolvedAddress } from '../capabilities.ts';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** A resolver with fixed answers that records what it was asked and where connections were pinned. */
function fakeNet(answers: Record<string, string[]>) {
  const pinnedTo: Array<{ url: string; address: string; headers: Headers; method: string }> = [];
  const net: NetAccess = {
    async resolve(hostname) {
      const found = answers[hostname];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as ResolvedAddress);
    },
    async fetchPinned(url, init, address) {
      pinnedTo.push({ url: url.href, address: address.address, headers: new Headers(init.headers), method: init.method ?? 'GET' });
      // Stands in for the pinned socket: msw answers by URL.
      return fetch(url, init);
    },
  };
  return { net, pinnedTo };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status: number; detail: string }> {
  try {
    await promise;
  } catch (error) {
    if (isProblem(error)) return { code: error.code, status: error.status, detail: error.detail };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('core: SSRF guard', () => {
  it('resolves, checks and pins to the checked address', async () => {
    server.use(http.get('http://agent.example/ask', () => HttpResponse.json({ ok: true })));
    const { net, pinnedTo } = fakeNet({ 'agent.example': ['93.184.215.14'] });
    const guarded = createGuardedFetch({ net, allowHosts: [], fallbackFetch: fetch });
    const response = await guarded('http://agent.example/ask');
    expect(await response.json()).toEqual({ ok: true });
    expect(pinnedTo).toEqual([expect.objectContaining({ url: 'http://agent.example/ask', address: '93.184.215.14' })]);
  });

  it('refuses a name when any resolved address is forbidden (rebinding with mixed answers)', async () => {
    const { net, pinnedTo } = fakeNet({ 'rebind.example': ['93.184.215.14', '127.0.0.1'], 'meta.example': ['169.254.169.254'], 'v6.example': ['::ffff:10.0.0.1'] });
    const guarded = createGuardedFetch({ net, allowHosts: [], fallbackFetch: fetch });
    expect(await refusal(guarded('http://rebind.example/'))).toMatchObject({ code: 'ssrf_blocked', status: 400, detail: expect.stringContaining('loopback') });
    expect((await refusal(guarded('https://meta.example/'))).detail).toContain('cloud metadata');
    expect((await refusal(guarded('https://v6.example/'))).detail).toContain('IPv4-mapped private');
    expect(pinnedTo).toHaveLength(0);
  });

  it('classifies IP literals itself, in every spelling, without resolving', async () => {
    const { net } = fakeNet({});
    const guarded = createGuardedFetch({ net, allowHosts: [], fallbackFetch: fetch });
    for (const url of ['http://127.0.0.1/', 'http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://127.1/', 'http://１２７．０．０．１/',
      'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::7f00:1]/', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/',
      'http://100.100.100.200/', 'http://168.63.129.16/', 'http://0.0.0.0/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:a9fe:a9fe::]/']) {
      expect(await refusal(guarded(url)), url).toMatchObject({ code: 'ssrf_blocked' });
    }
  });

  it('refuses other schemes, embedded credentials, localhost and metadata names', async () => {
    const guarded = createGuardedFetch({ net: fakeNet({ localhost: ['127.0.0.1'] }).net, allowHosts: [], fallbackFetch: fetch });
    for (const url of ['file:///etc/passwd', 'gopher://example.com/', 'ftp://example.com/', 'data:text/plain,hi', 'http://user:pw@example.com/',
      'http://localhost/', 'http://LOCALHOST./', 'http://metadata.google.internal/computeMetadata/v1/', 'not a url']) {
      expect(await refusal(guarded(url)), url).toMatchObject({ code: 'ssrf_blocked' });
    }
  });

  it('without net, refuses names that are not allow-listed and fetches listed ones plainly', async () => {
    server.use(http.get('http://agent.test/ok', () => HttpResponse.text('hi')), http.get('http://93.184.215.14/ok', () => HttpResponse.text('literal')));
    const guarded = createGuardedFetch({ allowHosts: ['agent.test'], fallbackFetch: fetch });
    expect(await (await guarded('http://agent.test/ok')).text()).toBe('hi');
    expect(await (await guarded('http://93.184.215.14/ok')).text()).toBe('literal');
    expect((await refusal(guarded('http://other.test/ok'))).detail).toContain('AEH_ALLOW_HOSTS');
  });

  it('allow-lists IP literals and names, exempting them from classification', async () => {
    server.use(http.get('http://127.0.0.1:9/x', () => HttpResponse.text('local')), http.get('http://localhost:9/x', () => HttpResponse.text('named')));
    const guarded = createGuardedFetch({ net: fakeNet({}).net, allowHosts: ['127.0.0.1', 'localhost'], fallbackFetch: fetch });
    expect(await (await guarded('http://127.0.0.1:9/x')).text()).toBe('local');
    expect(await (await guarded('http://127.1:9/x')).text()).toBe('local');
    expect(await (await guarded('http://localhost:9/x')).text()).toBe('named');
  });

  it('never opens the service\'s own port on a local address, whatever the allow list says (issue 13 item 10)', async () => {
    const { net } = fakeNet({ 'self.test': ['127.0.0.1'], 'agent.test': ['10.0.0.7'] });
    const guarded = createGuardedFetch({ net, allowHosts: ['127.0.0.1', 'localhost', 'self.test', 'agent.test', '::1'], servicePort: 8787, serviceHost: '127.0.0.1', fallbackFetch: fetch });
    for (const url of ['http://127.0.0.1:8787/api/info', 'http://localhost:8787/', 'http://self.test:8787/', 'http://[::1]:8787/', 'http://0x7f.1:8787/']) {
      expect(await refusal(guarded(url)), url).toMatchObject({ code: 'ssrf_blocked', detail: expect.stringContaining('own listening port') });
    }
    server.use(http.get('http://agent.test:8787/ok', () => HttpResponse.text('remote')), http.get('http://127.0.0.1:8788/ok', () => HttpResponse.text('other port')));
    expect(await (await guarded('http://agent.test:8787/ok')).text()).toBe('remote');
    expect(await (await guarded('http://127.0.0.1:8788/ok')).text()).toBe('other port');
  });

  it('honours host:port allow entries for that port only', async () => {
    server.use(http.get('http://127.0.0.1:9000/x', () => HttpResponse.text('listed')));
    const guarded = createGuardedFetch({ net: fakeNet({}).net, allowHosts: ['127.0.0.1:9000'], fallbackFetch: fetch });
    expect(await (await guarded('http://127.0.0.1:9000/x')).text()).toBe('listed');
    expect(await refusal(guarded('http://127.0.0.1:9001/x'))).toMatchObject({ code: 'ssrf_blocked', detail: expect.stringContaining('loopback') });
  });

  it('follows redirects by hand, re-checking every hop', async () => {
    server.use(
      http.get('http://agent.test/hop', () => new HttpResponse(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } })),
      http.get('http://agent.test/v6', () => new HttpResponse(null, { status: 301, headers: { location: 'http://[::1]:8080/' } })),
      http.get('http://agent.test/file', () => new HttpResponse(null, { status: 307, headers: { location: 'file:///etc/passwd' } })),
      http.get('http://agent.test/loop/:n', ({ params }) => new HttpResponse(null, { status: 302, headers: { location: `/loop/${Number(params.n) + 1}` } })),
    );
    const guarded = createGuardedFetch({ allowHosts: ['agent.test'], fallbackFetch: fetch });
    expect((await refusal(guarded('http://agent.test/hop'))).detail).toContain('cloud metadata');
    expect((await refusal(guarded('http://agent.test/v6'))).detail).toContain('loopback');
    expect((await refusal(guarded('http://agent.test/file'))).detail).toContain('scheme');
    expect((await refusal(guarded('http://agent.test/loop/0'))).detail).toContain('more than 5 redirects');
  });

  it('follows up to 5 redirects and honours manual and error modes', async () => {
    server.use(
      http.get('http://agent.test/chain/:n', ({ params }) => Number(params.n) < 5
        ? new HttpResponse(null, { status: 302, headers: { location: `/chain/${Number(params.n) + 1}` } })
        : HttpResponse.text('arrived')),
    );
    const guarded = createGuardedFetch({ allowHosts: ['agent.test'], fallbackFetch: fetch });
    expect(await (await guarded('http://agent.test/chain/0')).text()).toBe('arrived');
    const manual = await guarded('http://agent.test/chain/0', { redirect: 'manual' });
    expect(manual.status).toBe(302);
    await expect(guarded('http://agent.test/chain/0', { redirect: 'error' })).rejects.toThrow(TypeError);
  });

  it('drops credentials when the origin changes, keeps them on the same origin', async () => {
    const seen: Record<string, Record<string, string | null>> = {};
    const record = (name: string, request: Request) => {
      seen[name] = { authorization: request.headers.get('authorization'), key: request.headers.get('x-api-key'), cookie: request.headers.get('cookie'), type: request.headers.get('content-type') };
    };
    server.use(
      http.post('http://a.test/start', () => new HttpResponse(null, { status: 307, headers: { location: '/same' } })),
      http.post('http://a.test/same', ({ request }) => {
        record('same', request);
        return new HttpResponse(null, { status: 307, headers: { location: 'http://user:pw@b.test/other' } });
      }),
      http.post('http://b.test/other', async ({ request }) => {
        record('other', request);
        return HttpResponse.json({ body: await request.text(), url: request.url });
      }),
    );
    const guarded = createGuardedFetch({ allowHosts: ['a.test', 'b.test'], fallbackFetch: fetch });
    const response = await guarded('http://a.test/start', {
      method: 'POST', body: '{"q":1}',
      headers: { authorization: 'Bearer secret', 'x-api-key': 'k', cookie: 'c=1', 'content-type': 'application/json' },
    });
    expect(await response.json()).toEqual({ body: '{"q":1}', url: 'http://b.test/other' });
    expect(seen.same).toEqual({ authorization: 'Bearer secret', key: 'k', cookie: 'c=1', type: 'application/json' });
    expect(seen.other).toEqual({ authorization: null, key: null, cookie: null, type: 'application/json' });
  });

  it('turns POST into GET on 303 and drops the body', async () => {
    server.use(
      http.post('http://a.test/submit', () => new HttpResponse(null, { status: 303, headers: { location: '/result' } })),
      http.get('http://a.test/result', ({ request }) => HttpResponse.text(request.method)),
    );
    const guarded = createGuardedFetch({ allowHosts: ['a.test'], fallbackFetch: fetch });
    expect(await (await guarded('http://a.test/submit', { method: 'POST', body: 'x' })).text()).toBe('GET');
  });

  it('caps the response size, declared or streamed', async () => {
    server.use(
      http.get('http://a.test/declared', () => new HttpResponse('x'.repeat(2000), { headers: { 'content-length': '2000' } })),
      http.get('http://a.test/streamed', () => new HttpResponse(new ReadableStream({
        start(controller) {
          for (let index = 0; index < 10; index++) controller.enqueue(new TextEncoder().encode('y'.repeat(300)));
          controller.close();
        },
      }))),
      http.get('http://a.test/small', () => HttpResponse.text('ok')),
    );
    const guarded = createGuardedFetch({ allowHosts: ['a.test'], fallbackFetch: fetch, maxBytes: 1000 });
    expect(await refusal(guarded('http://a.test/declared'))).toMatchObject({ code: 'payload_too_large' });
    const streamed = await guarded('http://a.test/streamed');
    expect(await refusal(streamed.text())).toMatchObject({ code: 'payload_too_large' });
    expect(await (await guarded('http://a.test/small')).text()).toBe('ok');
  });

  it('gives up at the deadline', async () => {
    server.use(http.get('http://a.test/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return HttpResponse.text('late');
    }));
    const guarded = createGuardedFetch({ allowHosts: ['a.test'], fallbackFetch: fetch });
    await expect(guarded('http://a.test/slow', { timeoutMs: 50 })).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('reports a name that does not resolve as a network error, not a refusal', async () => {
    const guarded = createGuardedFetch({ net: fakeNet({}).net, allowHosts: [], fallbackFetch: fetch });
    await expect(guarded('http://nowhere.example/')).rejects.toThrow(TypeError);
  });
});
