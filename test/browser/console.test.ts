/**
 * The console in real headless Chromium (Debian's package, driven by playwright-core): sign in, launch a
 * catalog scenario, watch it finish, open the run and see the verify badge turn valid. Saves screenshots to
 * test-artifacts/.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startNodeService, type NodeService } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/runtime.ts';

const CHROMIUM = '/usr/bin/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const KEY = '5eed'.repeat(16);
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

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
    await page.goto(`${service.url}/catalog`);
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('API key or bearer token').fill('wrong-key-that-is-long-enough-000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#sign-in-error').textContent()).toContain('refused');
    await page.getByLabel('API key or bearer token').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/catalog$/);

    const launch = page.getByRole('button', { name: 'Launch' }).first();
    await launch.waitFor();
    await launch.click();
    const openRun = page.getByRole('link', { name: /^Open run / }).first();
    await openRun.waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'console-catalog.png'), fullPage: true });
    await openRun.click();
    await page.waitForURL(/\/runs\//);
    const badge = page.locator('[data-verify]');
    await expect.poll(() => badge.textContent(), { timeout: 15_000 }).toBe('verified: valid');
    expect(await page.locator('svg[role=img]').getAttribute('aria-label')).toContain('index');
    await page.screenshot({ path: join(ARTIFACTS, 'console-run.png'), fullPage: true });

    await page.goto(`${service.url}/health`);
    await expect.poll(() => page.locator('table').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'console-health.png'), fullPage: true });
    await page.close();
  }, 90_000);
});
