/**
 * The console in real headless Chromium (Debian's package, driven by playwright-core): sign in, launch a
 * catalog scenario, watch it finish, open the run and see the verify badge turn valid; filter the runs list;
 * convert a PRD; mutate a scenario; the health page; launch against an agent picked from the registry and
 * filter the runs by it. Every page is checked for labelled controls, text contrast
 * (WCAG AA, computed in the page) and keyboard access (skip link), and saved as a screenshot in test-artifacts/.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startNodeService, type NodeService } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { contrastFailures, unlabelledControls } from './a11y.ts';

const CHROMIUM = '/usr/bin/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const KEY = '5eed'.repeat(16);
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

/** Accessibility checks every page gets, then a screenshot. */
async function checkPage(page: Page, name: string) {
  await expect.poll(() => page.locator('[aria-busy=true]').count(), { timeout: 10_000 }).toBe(0);
  expect(await unlabelledControls(page), `${name}: unlabelled controls`).toEqual([]);
  expect(await contrastFailures(page), `${name}: contrast below WCAG AA`).toEqual([]);
  // No horizontal scrolling at this width: the layout fits.
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${name}: horizontal overflow`).toBe(true);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

describe.skipIf(SKIP)('console: in a real browser', () => {
  let service: NodeService;
  let browser: Browser;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-browser-'));
    service = await startNodeService({ PROJECT_ROOT: root, PORT: '0', HOST: '127.0.0.1', DASHBOARD_API_KEY: KEY, AEH_STORAGE: 'memory' }, root, silentLogger);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('signs in, launches a catalog scenario, follows it and shows a valid certificate', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const external: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(service.url) && !request.url().startsWith('blob:') && !request.url().startsWith('data:')) external.push(request.url());
    });
    await page.goto(`${service.url}/catalog`);
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('API key or bearer token').fill('wrong-key-that-is-long-enough-000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#sign-in-error').textContent()).toContain('refused');
    // Regression: the stylesheet reached the page with its quotes HTML-escaped, so the font declaration was dropped.
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toMatch(/"Liberation Sans".*sans-serif$/);
    await checkPage(page, 'console-sign-in');
    // The checker itself catches low contrast (grey #aaa on white is 2.3:1).
    await page.evaluate(() => document.querySelector('main')!.insertAdjacentHTML('beforeend', '<p id="probe" style="color:#aaa">faint text</p>'));
    expect(await contrastFailures(page)).toEqual([expect.stringMatching(/^p\. "faint text" 2\.\d+:1$/)]);
    await page.evaluate(() => document.getElementById('probe')!.remove());
    await page.getByLabel('API key or bearer token').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/catalog$/);

    const launch = page.getByRole('button', { name: /^Launch / }).first();
    await launch.waitFor();
    await launch.click();
    const openRun = page.getByRole('link', { name: /^Open run / }).first();
    await openRun.waitFor({ timeout: 20_000 });
    await checkPage(page, 'console-catalog');
    await openRun.click();
    await page.waitForURL(/\/runs\//);
    const badge = page.locator('[data-verify]');
    await expect.poll(() => badge.textContent(), { timeout: 15_000 }).toBe('verified: valid');
    expect(await page.locator('svg[role=img]').getAttribute('aria-label')).toContain('index');
    await checkPage(page, 'console-run');

    // The same page on a phone-sized screen: nothing runs off the side.
    await page.setViewportSize({ width: 390, height: 844 });
    await checkPage(page, 'console-run-narrow');
    await page.setViewportSize({ width: 1280, height: 720 });
    expect(external, 'requests beyond the service').toEqual([]);
    expect(violations, 'content security policy violations').toEqual([]);
    await page.close();
  }, 90_000);

  it('lists runs live and filters them by status and scenario', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.url}/sign-in`);
    await page.getByLabel('API key or bearer token').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${service.url}/`);
    await expect.poll(() => page.locator('#runs tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=failed/);
    await expect.poll(() => page.locator('#runs').textContent(), { timeout: 10_000 }).toContain('No runs match');
    // The filters keep their values after the page reloads with them.
    expect(await page.getByLabel('Status').inputValue()).toBe('failed');
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByLabel('Scenario id').fill('sec-incident-handoff');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/scenario_id=sec-incident-handoff/);
    await expect.poll(() => page.locator('#runs tbody tr').count(), { timeout: 10_000 }).toBe(1);
    await checkPage(page, 'console-runs');

    // Keyboard: the first Tab reaches the skip link, Enter moves focus to the main region.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.close();
  }, 60_000);

  it('converts a PRD into stubs, shows pitfalls with line numbers, mutates a scenario and shows the health checks', async () => {
    // Stubs name no agent: they launch against a registered one picked on the page.
    await fetch(`${service.url}/api/v1/agents`, {
      method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'stub-bot', adapter: 'scripted', options: { replies: { '*': 'Return accepted.' } } }),
    });
    const page = await browser.newPage();
    await page.goto(`${service.url}/sign-in?next=/spec-to-eval`);
    await page.getByLabel('API key or bearer token').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/spec-to-eval$/);
    await page.getByRole('button', { name: 'Convert' }).click();
    await expect.poll(() => page.locator('#stubs').textContent(), { timeout: 10_000 }).toContain('scenario stub');
    await checkPage(page, 'console-spec-to-eval');
    // A stub launches against the picked agent and its progress is followed to the run.
    await page.getByLabel('Run against').selectOption('stub-bot');
    await page.getByRole('button', { name: /^Launch Returns assistant/ }).click();
    await page.getByRole('link', { name: /^Open run / }).waitFor({ timeout: 20_000 });
    await page.getByLabel(/PRD in Markdown/).fill('# PRD: Broken\n\n**Industry:** TBD\n**Use Case:** Returns\n\n## Tasks\n- one\n');
    await page.getByRole('button', { name: 'Convert' }).click();
    await expect.poll(() => page.locator('#stubs').textContent(), { timeout: 10_000 }).toMatch(/Line 3: malformed_industry/);

    await page.goto(`${service.url}/mutate`);
    await page.getByLabel('Mutator').selectOption('typo');
    await page.getByRole('button', { name: 'Mutate' }).click();
    await expect.poll(() => page.locator('#mutation ins').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await checkPage(page, 'console-mutate');

    await page.goto(`${service.url}/health`);
    await expect.poll(() => page.locator('table').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await checkPage(page, 'console-health');
    await page.close();
  }, 60_000);

  it('launches a catalog scenario against an agent picked from the registry, then filters the runs by it', async () => {
    const registered = await fetch(`${service.url}/api/v1/agents`, {
      method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'picked-bot', adapter: 'scripted', options: { replies: { '*': "I'm an automated assistant; I can't help with that." } }, description: 'A picked agent' }),
    });
    expect(registered.status).toBe(201);
    const page = await browser.newPage();
    await page.goto(`${service.url}/sign-in?next=/catalog`);
    await page.getByLabel('API key or bearer token').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/catalog$/);
    await page.getByLabel('Run against').selectOption('picked-bot');
    await page.getByRole('button', { name: /^Launch / }).nth(1).click();
    const openRun = page.getByRole('link', { name: /^Open run / }).first();
    await openRun.waitFor({ timeout: 20_000 });
    await checkPage(page, 'console-catalog-agent');
    await openRun.click();
    await page.waitForURL(/\/runs\//);
    await expect.poll(() => page.locator('#run').textContent(), { timeout: 10_000 }).toContain('agent picked-bot');
    // One badge: the verdict of a finished run, never its state beside it.
    expect(await page.locator('#run .badge.succeeded').count()).toBe(0);

    await page.goto(`${service.url}/`);
    await expect.poll(() => page.locator('#agent-filter option').count(), { timeout: 10_000 }).toBeGreaterThan(1);
    await page.getByLabel('Agent').selectOption('picked-bot');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/agent=picked-bot/);
    await expect.poll(() => page.locator('#runs tbody tr').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByLabel('Agent').inputValue()).toBe('picked-bot');
    await checkPage(page, 'console-runs-agent');
    await page.close();
  }, 60_000);
});
