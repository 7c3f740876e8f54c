import { describe, it, expect } from 'vitest';
import { testApp } from './helpers.ts';

describe('console: pages and fragments', () => {
  it('serves public page shells that hold no data', async () => {
    const t = await testApp();
    for (const path of ['/', '/sign-in', '/catalog', '/spec-to-eval', '/mutate', '/health', '/runs/some-run']) {
      const res = await t.request('GET', path, { key: null });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      const html = await res.text();
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).toContain('<script src="/console/app.js"');
      expect(html).not.toMatch(/https?:\/\/(?!json-schema)[a-z]/i); // nothing from a CDN
    }
  });

  it('labels every form control on the sign-in page', async () => {
    const t = await testApp();
    const html = await (await t.request('GET', '/sign-in', { key: null })).text();
    expect(html).toContain('<label for="credential"');
    expect(html).toContain('role="alert"');
  });

  it('serves the client script', async () => {
    const t = await testApp();
    const res = await t.request('GET', '/console/app.js', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(await res.text()).toContain('sessionStorage');
  });

  it('refuses fragments without credentials and renders them with', async () => {
    const t = await testApp();
    expect((await t.request('GET', '/console/fragments/health', { key: null })).status).toBe(401);
    const res = await t.request('GET', '/console/fragments/health');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<code>storage</code>');
    expect(html).toMatch(/class="badge (ok|warn|fail)"/);
  });

  it('escapes what it renders', async () => {
    const t = await testApp();
    const html = await (await t.request('GET', '/runs/%3Cscript%3Ealert(1)%3C%2Fscript%3E', { key: null })).text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;');
  });
});
