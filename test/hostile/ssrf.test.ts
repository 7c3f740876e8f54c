import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testApp, type TestApp } from '../helpers.ts';
import type { NetAccess } from '../../core/capabilities.ts';
import { probePlugin } from './kit.ts';

const msw = setupServer();
let local: Server;
let port: number;

beforeAll(async () => {
  msw.listen({ onUnhandledRequest: 'bypass' });
  local = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`local:${request.url}`);
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  port = (local.address() as AddressInfo).port;
});
afterEach(() => msw.resetHandlers());
afterAll(async () => {
  msw.close();
  await new Promise<void>((resolve) => local.close(() => resolve()));
});

async function probe(t: TestApp, url: string) {
  return t.json('POST', '/test/fetch', { body: { url } });
}

async function expectBlocked(t: TestApp, url: string, reason?: RegExp) {
  const response = await probe(t, url);
  expect(response.status, url).toBe(400);
  expect(response.body.code, url).toBe('ssrf_blocked');
  if (reason) expect(response.body.detail, url).toMatch(reason);
}

describe('hostile: SSRF over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ env: { AEH_ALLOW_HOSTS: 'agent.test' }, plugins: [probePlugin] });
  });

  it.each([
    ['http://127.0.0.1/', /loopback/], ['http://127.0.0.1:8787/api/info', /loopback/], ['http://2130706433/', /loopback/],
    ['http://0x7f000001/', /loopback/], ['http://0177.0.0.1/', /loopback/], ['http://017700000001/', /loopback/], ['http://127.1/', /loopback/],
    ['http://0x7f.1/', /loopback/], ['http://１２７．０．０．１/', /loopback/], ['http://%31%32%37.0.0.1/', /loopback/], ['http://0.0.0.0/', /unspecified/],
    ['http://0/', /unspecified/], ['http://[::1]/', /loopback/], ['http://[::]/', /unspecified/], ['http://[::ffff:127.0.0.1]/', /IPv4-mapped loopback/],
    ['http://[::ffff:7f00:1]/', /IPv4-mapped loopback/], ['http://[::7f00:1]/', /IPv4-compatible/], ['http://[::ffff:0:7f00:1]/', /IPv4-translated/],
    ['http://[64:ff9b::7f00:1]/', /NAT64/], ['http://[2002:7f00:1::]/', /6to4/], ['http://[2001::7f00:1]/', /Teredo/],
    ['http://10.0.0.1/', /private/], ['http://172.16.0.1/', /private/], ['http://172.31.255.254/', /private/], ['http://192.168.0.1/', /private/],
    ['http://100.64.0.1/', /carrier-grade NAT/], ['http://169.254.1.1/', /link-local/], ['http://[fe80::1]/', /link-local/],
    ['http://[fc00::1]/', /unique-local/], ['http://[fd12::1]/', /unique-local/],
    ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', /cloud metadata/], ['http://169.254.170.2/v2/credentials', /cloud metadata/],
    ['http://[fd00:ec2::254]/latest/meta-data/', /cloud metadata/], ['http://100.100.100.200/latest/meta-data/', /cloud metadata/],
    ['http://168.63.129.16/machine', /cloud metadata/], ['http://[::ffff:169.254.169.254]/', /cloud metadata/], ['http://0xa9fea9fe/', /cloud metadata/],
    ['http://metadata.google.internal/computeMetadata/v1/', /metadata/], ['http://METADATA.google.internal./', /metadata/],
    ['http://localhost/', /localhost/], ['http://localhost.:8787/', /localhost/], ['http://admin.localhost/', /localhost/],
    ['file:///etc/passwd', /scheme/], ['gopher://127.0.0.1:6379/_INFO', /scheme/], ['ftp://example.com/', /scheme/], ['dict://127.0.0.1:11211/', /scheme/],
    ['data:text/plain,hello', /scheme/], ['javascript:alert(1)', /scheme/], ['http://user:pass@agent.test/', /credentials/], ['//agent.test/', /absolute/],
  ])('%s → 400 ssrf_blocked', async (url, reason) => {
    await expectBlocked(t, url, reason);
  });

  it('refuses a local server unless AEH_ALLOW_HOSTS lists it, by address or by name', async () => {
    await expectBlocked(t, `http://127.0.0.1:${port}/agent`, /loopback/);
    await expectBlocked(t, `http://localhost:${port}/agent`, /localhost/);
    for (const allow of ['127.0.0.1', 'localhost,127.0.0.1', '127.0.0.0/8']) {
      const allowed = await testApp({ env: { AEH_ALLOW_HOSTS: allow }, plugins: [probePlugin] });
      const response = await probe(allowed, `http://127.0.0.1:${port}/agent`);
      expect(response.status, allow).toBe(200);
      expect(response.body).toEqual({ status: 200, body: 'local:/agent' });
    }
    const byName = await testApp({ env: { AEH_ALLOW_HOSTS: 'localhost' }, plugins: [probePlugin] });
    expect((await probe(byName, `http://localhost:${port}/agent`)).body).toEqual({ status: 200, body: 'local:/agent' });
  });

  it('re-checks every redirect hop, and stops after 5', async () => {
    msw.use(
      http.get('http://agent.test/to-metadata', () => HttpResponse.redirect('http://169.254.169.254/latest/meta-data/', 302)),
      http.get('http://agent.test/to-local', () => HttpResponse.redirect(`http://127.0.0.1:${port}/secret`, 307)),
      http.get('http://agent.test/to-decimal', () => HttpResponse.redirect('http://2130706433/', 301)),
      http.get('http://agent.test/to-file', () => HttpResponse.redirect('file:///etc/passwd', 302)),
      http.get('http://agent.test/loop', () => HttpResponse.redirect('http://agent.test/loop', 302)),
      http.get('http://agent.test/ok', () => HttpResponse.redirect('http://agent.test/final', 302)),
      http.get('http://agent.test/final', () => HttpResponse.text('final')),
    );
    await expectBlocked(t, 'http://agent.test/to-metadata', /cloud metadata/);
    await expectBlocked(t, 'http://agent.test/to-local', /loopback/);
    await expectBlocked(t, 'http://agent.test/to-decimal', /loopback/);
    await expectBlocked(t, 'http://agent.test/to-file', /scheme/);
    await expectBlocked(t, 'http://agent.test/loop', /more than 5 redirects/);
    expect((await probe(t, 'http://agent.test/ok')).body).toEqual({ status: 200, body: 'final' });
  });

  it('refuses names that resolve to forbidden addresses (DNS rebinding), with resolution from the runtime', async () => {
    let answer = '93.184.215.14';
    const net: NetAccess = {
      resolve: async () => [{ address: answer, family: 4 }],
      fetchPinned: async () => new Response('pinned'),
    };
    const rebinding = await testApp({ plugins: [probePlugin], capabilities: { net } });
    expect((await probe(rebinding, 'http://rebind.example/')).body).toEqual({ status: 200, body: 'pinned' });
    answer = '127.0.0.1';
    await expectBlocked(rebinding, 'http://rebind.example/', /rebind\.example resolves to a loopback/);
    answer = '169.254.169.254';
    await expectBlocked(rebinding, 'http://rebind.example/', /cloud metadata/);
  });

  it('refuses host names without runtime resolution unless allow-listed', async () => {
    const noNet = await testApp({ env: { AEH_ALLOW_HOSTS: 'agent.test' }, plugins: [probePlugin], capabilities: { net: undefined } });
    msw.use(http.get('http://agent.test/hi', () => HttpResponse.text('hi')));
    await expectBlocked(noNet, 'http://example.com/', /AEH_ALLOW_HOSTS/);
    expect((await probe(noNet, 'http://agent.test/hi')).body).toEqual({ status: 200, body: 'hi' });
  });

  it('writes refused fetches to the audit log', async () => {
    await expectBlocked(t, 'http://169.254.169.254/');
    const audit = await t.json('GET', '/api/v1/audit');
    expect(audit.body.items[0]).toMatchObject({ path: '/test/fetch', outcome: 'refused', status: 400, detail: 'ssrf_blocked' });
  });
});
