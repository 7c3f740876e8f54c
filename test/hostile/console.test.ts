/**
 * Hostile inputs to the console's public pages (issue 13 item 11): the sign-in page follows `next` only to a
 * same-origin path whatever its spelling, and `/favicon.ico` answers.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { testApp, type TestApp } from '../helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});

/** The `data-next` the sign-in page hands its script for a raw (already URL-encoded) query string. */
async function nextFor(query: string): Promise<{ next: string; html: string }> {
  const response = await t.request('GET', `/sign-in?${query}`, { key: null });
  expect(response.status).toBe(200);
  const html = await response.text();
  const match = /<form id="sign-in"[^>]*data-next="([^"]*)"/.exec(html);
  expect(match, query).not.toBeNull();
  return { next: match![1].replace(/&amp;/g, '&'), html };
}

describe('hostile: console sign-in next', () => {
  it.each([
    'next=https://evil.example', 'next=https%3A%2F%2Fevil.example', 'next=//evil.example', 'next=%2F%2Fevil.example',
    'next=/\\evil.example', 'next=%2F%5Cevil.example', 'next=%5C%5Cevil.example', 'next=/%09/evil.example', 'next=%2F%0A%2Fevil.example',
    'next=%252F%252Fevil.example', 'next=javascript:alert(document.domain)', 'next=javascript%3Aalert(1)', 'next=http:evil.example',
    'next=%20//evil.example', 'next=/.//evil.example', 'next=//evil.example&next=/runs', 'next=evil.example',
  ])('%s → home, and the page never names the other site', async (query) => {
    const { next, html } = await nextFor(query);
    expect(next).toBe('/');
    expect(html).not.toContain('evil.example');
    expect(html).not.toContain('javascript:');
  });

  it('keeps a same-origin path with its query', async () => {
    expect((await nextFor(`next=${encodeURIComponent('/runs/run_1?tab=trace')}`)).next).toBe('/runs/run_1?tab=trace');
    expect((await nextFor('next=%2F%3Fstatus%3Dfailed')).next).toBe('/?status=failed');
    expect((await nextFor('')).next).toBe('/');
  });

  it('escapes what it keeps: a quote cannot break out of the attribute', async () => {
    const { html } = await nextFor(`next=${encodeURIComponent('/runs/"><script>alert(1)</script>')}`);
    expect(html).not.toContain('<script>alert(1)');
  });

  it('the script follows only the page\'s checked next, never the raw query string', async () => {
    const script = await (await t.request('GET', '/console/app.js', { key: null })).text();
    expect(script).toContain('sameOrigin(form.dataset.next)');
    expect(script).not.toContain(".get('next')");
  });
});

describe('hostile: console favicon', () => {
  it('answers /favicon.ico without credentials, cacheable, as an inert SVG', async () => {
    const response = await t.request('GET', '/favicon.ico', { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const svg = await response.text();
    expect(svg).toMatch(/^<svg /);
    expect(svg).not.toMatch(/<script|href=|on\w+=/i);
  });

  it('is linked from every page', async () => {
    for (const path of ['/', '/sign-in', '/catalog']) {
      const html = await (await t.request('GET', path, { key: null })).text();
      expect(html, path).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml"/>');
    }
  });
});
