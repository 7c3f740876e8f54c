import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildNodeApp } from '../runtime/node/start.ts';
import { captureLogger } from './foundation-fixtures.ts';

const KEY = 'e'.repeat(64);
const freshRoot = () => mkdtempSync(join(tmpdir(), 'aeh-config-'));

/** Builds the Node app for a plain environment (never the test process's own). */
async function build(env: Record<string, string | undefined>, cwd = freshRoot()) {
  const logger = captureLogger();
  const built = await buildNodeApp({ AEH_STORAGE: 'memory', ...env }, cwd, logger);
  return { ...built, logger, cwd };
}

const info = (app: Awaited<ReturnType<typeof build>>['app'], key: string) => app.request('/api/info', { headers: { 'X-API-Key': key } });

describe('foundation: configuration refused at start', () => {
  it('refuses a key shorter than 32 characters, without echoing it', async () => {
    const attempt = build({ DASHBOARD_API_KEY: 'too-short-but-secret' });
    await expect(attempt).rejects.toThrow(/DASHBOARD_API_KEY is 20 characters; at least 32 are required/);
    await expect(attempt).rejects.not.toThrow(/too-short-but-secret/);
  });

  it('refuses a short key found in .env', async () => {
    const root = freshRoot();
    writeFileSync(join(root, '.env'), 'DASHBOARD_API_KEY=abc\n');
    await expect(build({}, root)).rejects.toThrow(/DASHBOARD_API_KEY is 3 characters/);
  });

  it.each([['PORT', 'eighty'], ['PORT', '70000'], ['AEH_STORAGE', 'mongodb://db'], ['AEH_MAX_BODY_BYTES', '-1']])('refuses %s=%s naming it', async (name, value) => {
    await expect(build({ DASHBOARD_API_KEY: KEY, [name]: value })).rejects.toThrow(new RegExp(`^${name} must be`));
  });
});

describe('foundation: the static key on first start', () => {
  it('generates 64 hex characters into PROJECT_ROOT/.env with mode 0600 and never logs the key', async () => {
    const root = freshRoot();
    const { app, config, logger } = await build({ PROJECT_ROOT: root });
    const envFile = join(root, '.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const key = /^DASHBOARD_API_KEY=([0-9a-f]+)$/m.exec(readFileSync(envFile, 'utf8'))?.[1];
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(config.apiKey).toBe(key);
    expect(logger.text()).not.toContain(key!);
    expect(logger.text()).not.toContain(key!.slice(0, 16));
    expect(logger.lines.some((line) => line.message.includes(envFile) && line.message.includes('DASHBOARD_API_KEY'))).toBe(true);
    expect((await info(app, key!)).status).toBe(200);
    expect((await info(app, 'f'.repeat(64))).status).toBe(401);
    await app.close();
  });

  it('reuses the generated key on the second start', async () => {
    const root = freshRoot();
    const first = await build({ PROJECT_ROOT: root });
    const written = readFileSync(join(root, '.env'), 'utf8');
    const second = await build({ PROJECT_ROOT: root });
    expect(second.config.apiKey).toBe(first.config.apiKey);
    expect(readFileSync(join(root, '.env'), 'utf8')).toBe(written);
    expect(second.logger.text()).not.toContain('DASHBOARD_API_KEY');
    expect((await info(second.app, first.config.apiKey!)).status).toBe(200);
  });

  it('keeps an existing .env and appends the key to it', async () => {
    const root = freshRoot();
    writeFileSync(join(root, '.env'), 'AEH_CONCURRENCY=2', { mode: 0o644 });
    const { config } = await build({ PROJECT_ROOT: root });
    const text = readFileSync(join(root, '.env'), 'utf8');
    expect(text.startsWith('AEH_CONCURRENCY=2\nDASHBOARD_API_KEY=')).toBe(true);
    expect(statSync(join(root, '.env')).mode & 0o777).toBe(0o600);
    expect(config.concurrency).toBe(2);
  });

  it('does not generate a key when the environment has one, and the environment wins over .env', async () => {
    const root = freshRoot();
    writeFileSync(join(root, '.env'), `DASHBOARD_API_KEY=${'d'.repeat(64)}\nAEH_CONCURRENCY=3\n`);
    const { config } = await build({ PROJECT_ROOT: root, DASHBOARD_API_KEY: KEY, AEH_CONCURRENCY: '5' });
    expect(config.apiKey).toBe(KEY);
    expect(config.concurrency).toBe(5);
    expect(readFileSync(join(root, '.env'), 'utf8')).not.toContain(KEY);
  });

  it('does not let an empty variable in the shell hide the key in .env (regression: a new key every start)', async () => {
    const root = freshRoot();
    writeFileSync(join(root, '.env'), `DASHBOARD_API_KEY=${'d'.repeat(64)}\n`);
    const { config } = await build({ PROJECT_ROOT: root, DASHBOARD_API_KEY: '' });
    expect(config.apiKey).toBe('d'.repeat(64));
    expect(readFileSync(join(root, '.env'), 'utf8').match(/DASHBOARD_API_KEY/g)).toHaveLength(1);
  });

  it('resolves a relative PROJECT_ROOT against the working directory', async () => {
    const cwd = freshRoot();
    mkdirSync(join(cwd, 'project'));
    const { config } = await build({ PROJECT_ROOT: 'project' }, cwd);
    expect(config.projectRoot).toBe(join(cwd, 'project'));
    expect(statSync(join(cwd, 'project', '.env')).isFile()).toBe(true);
  });
});
