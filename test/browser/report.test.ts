/**
 * The HTML report and the console's transcript and compare view in real headless Chromium (Debian's package,
 * driven by playwright-core, as the console's browser test): a report saved to disk opens from file:// with
 * no console error, no script run and no request beyond the file, for a world run, a run whose agent answers
 * with markup and control characters, and a 1,000-task run; the console's run page shows the transcript and
 * downloads the report, and the compare view renders, each checked for labels and contrast.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startNodeService, type NodeService } from '../../runtime/node/start.ts';
import { silentLogger } from '../../core/capabilities.ts';
import { contrastFailures, unlabelledControls } from './a11y.ts';

const CHROMIUM = '/usr/bin/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const KEY = 'feed'.repeat(16);
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const HOSTILE = '</pre></style><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> \u202Eevil\u202C \u0007 👩🏽‍💻';

function scriptedScenario(id: string, tasks: number, reply: (task: number) => string) {
  return {
    id, title: `Browser ${id}`, industry: 'testing', use_case: 'report', tags: ['browser'], policy_ref: 'NIST AI 100-1',
    agent: { adapter: 'scripted', replies: Object.fromEntries(Array.from({ length: tasks }, (_, task) => [`t${task + 1}`, reply(task)])) },
    topology: [], conversation: 'per_task',
    tasks: Array.from({ length: tasks }, (_, task) => ({ id: `t${task + 1}`, input: `Question ${task + 1}?`, expected: { contains: 'ok' }, metrics: [{ id: 'task_success' }] })),
  };
}

describe.skipIf(SKIP)('reports: in a real browser', () => {
  let service: NodeService;
  let browser: Browser;
  let dir: string;
  const api = async (path: string, init: RequestInit = {}) => fetch(`${service.url}${path}`, { ...init, headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...init.headers } });

  async function evaluate(body: unknown): Promise<string> {
    const accepted = await (await api('/api/evaluate', { method: 'POST', body: JSON.stringify(body) })).json();
    for (;;) {
      const task = await (await api(accepted.status_url)).json();
      if (['succeeded', 'failed', 'cancelled'].includes(task.status)) return accepted.run_id;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Saves a run's (or suite's) report to disk and opens it from file://, recording every console message, error and request. */
  async function openReport(id: string) {
    const file = join(dir, `report-${id}.html`);
    writeFileSync(file, Buffer.from(await (await api(`/api/v1/${id.startsWith('suite_') ? 'suites' : 'runs'}/${id}/report`)).arrayBuffer()));
    const page = await browser.newPage();
    const messages: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => messages.push(`pageerror: ${error.message}`));
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(file).href);
    await page.waitForLoadState('load');
    return { page, messages, requests, file };
  }

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-browser-report-'));
    dir = mkdtempSync(join(tmpdir(), 'aeh-reports-'));
    service = await startNodeService({ PROJECT_ROOT: root, PORT: '0', HOST: '127.0.0.1', DASHBOARD_API_KEY: KEY, AEH_STORAGE: 'memory', AEH_MAX_BODY_BYTES: String(4 * 1024 * 1024) }, root, silentLogger);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('opens a world run\'s report with no error and nothing fetched, readable and accessible', async () => {
    const runId = await evaluate({ scenario_id: 'saas-duplicate-charge-refund' });
    const { page, messages, requests, file } = await openReport(runId);
    expect(messages).toEqual([]);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(await page.locator('h1').textContent()).toContain('Evaluation report: Refund a duplicated subscription charge');
    expect(await page.locator('svg[role=img]').count()).toBe(2);
    expect(await page.locator('details.unit').count()).toBe(1);
    await page.locator('details.unit summary').first().click();
    expect(await page.locator('li.ev-tool_call').count()).toBe(2);
    expect(await page.locator('li.ev-state_change').textContent()).toContain('/charges/2/status');
    expect(await page.locator('pre.commands').textContent()).toContain('npx aeh verify evidence/certificate.json');
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await contrastFailures(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'report-world.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('shows hostile answers as text: no script runs, no image loads, controls are visible code points', async () => {
    const runId = await evaluate({ scenario: scriptedScenario('hostile', 2, (task) => (task === 0 ? `${HOSTILE} ${'y'.repeat(300_000)}` : 'ok')) });
    const { page, messages, requests, file } = await openReport(runId);
    expect(messages).toEqual([]);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('img, script').count()).toBe(0);
    const answer = await page.locator('li.ev-agent_output pre').first().textContent();
    expect(answer).toContain('</pre></style><script>window.__pwned = 1</script>');
    expect(answer).toContain('⟨U+202E⟩evil⟨U+202C⟩ ⟨U+0007⟩ 👩🏽‍💻');
    expect(answer).toContain('more characters not shown');
    await page.close();
  }, 60_000);

  it('opens the report of a 1,000-task run with no error', async () => {
    const runId = await evaluate({ scenario: scriptedScenario('thousand', 1000, (task) => (task % 7 === 0 ? `not this time ${task}` : `ok ${task}`)) });
    const { page, messages, file } = await openReport(runId);
    expect(messages).toEqual([]);
    expect(await page.locator('details.unit').count()).toBe(1000);
    expect(await page.locator('details.unit[open]').count()).toBe(143);
    expect(await page.locator('#tasks tbody tr, section[aria-labelledby=tasks] tbody tr').count()).toBe(1000);
    expect(readFileSync(file, 'utf8').length).toBeGreaterThan(500_000);
    await page.close();
  }, 120_000);

  it('opens a suite\'s report with no error: agents, runs and each run in detail', async () => {
    const accepted = await (await api('/api/v1/suites', { method: 'POST', body: JSON.stringify({ scenarios: ['saas-duplicate-charge-refund', 'fin-card-dispute-triage'] }) })).json();
    for (let waited = 0; waited < 400; waited++) {
      const suite = await (await api(`/api/v1/suites/${accepted.suite_id}`)).json();
      if (suite.status === 'finished' && suite.certificate.status !== 'pending') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { page, messages, requests, file } = await openReport(accepted.suite_id);
    expect(messages).toEqual([]);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(await page.locator('section.run').count()).toBe(2);
    expect(await contrastFailures(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'report-suite.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('shows the transcript on the console\'s run page, downloads the report, and compares with the latest run', async () => {
    const scenario = scriptedScenario('console', 3, (task) => (task === 1 ? `<b>bold?</b> ${HOSTILE}` : 'ok'));
    await evaluate({ scenario });
    const head = await evaluate({ scenario });
    const page: Page = await browser.newPage();
    await page.goto(`${service.url}/sign-in?next=/runs/${head}`);
    await page.getByLabel('API key or bearer token').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(new RegExp(`/runs/${head}$`));
    await expect.poll(() => page.locator('#transcript details.unit').count(), { timeout: 10_000 }).toBe(3);
    const shown = await page.locator('#transcript details.unit[open] pre').nth(1).textContent();
    expect(shown).toContain('<b>bold?</b>');
    // A bidi override in an answer is shown, not obeyed ("evil" must not read as "live").
    expect(shown).toContain('⟨U+202E⟩evil⟨U+202C⟩');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the HTML report' }).click()]);
    expect(download.suggestedFilename()).toBe(`report-${head}.html`);
    expect(readFileSync((await download.path())!, 'utf8')).toContain('<h2 id="transcripts">Transcripts</h2>');
    await expect.poll(() => page.locator('[aria-busy=true]').count(), { timeout: 10_000 }).toBe(0);
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await contrastFailures(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'console-run-transcript.png'), fullPage: true });

    await page.getByRole('link', { name: 'Compare with the previous run of this scenario and agent' }).click();
    await page.waitForURL(/\/compare\?base=latest/);
    await expect.poll(() => page.locator('#compare').textContent(), { timeout: 10_000 }).toContain('No regression beyond 0');
    await expect.poll(() => page.locator('[aria-busy=true]').count(), { timeout: 10_000 }).toBe(0);
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await contrastFailures(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'console-compare.png'), fullPage: true });
    await page.close();
  }, 90_000);
});
