/**
 * `.env` handling for the Node entry: read `PROJECT_ROOT/.env` (the process environment wins), and on first
 * start generate the static API key into it (mode 0600) without ever printing the key.
 */
import { existsSync, readFileSync, appendFileSync, chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { randomBytes } from 'node:crypto';

/** The variables of `<root>/.env`, or none when it does not exist. */
export function readEnvFile(root: string): Record<string, string> {
  const path = join(root, '.env');
  if (!existsSync(path)) return {};
  return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
}

/**
 * Generates 32 random bytes as 64 hex characters and appends `DASHBOARD_API_KEY=…` to `<root>/.env`
 * with mode 0600. Returns the key and the file it was written to.
 */
export function generateApiKey(root: string): { key: string; path: string } {
  const key = randomBytes(32).toString('hex');
  const path = join(root, '.env');
  if (existsSync(path)) {
    const current = readFileSync(path, 'utf8');
    appendFileSync(path, `${current.endsWith('\n') || current === '' ? '' : '\n'}DASHBOARD_API_KEY=${key}\n`, { mode: 0o600 });
  } else {
    writeFileSync(path, `# Generated on first start: the static API key of this service.\nDASHBOARD_API_KEY=${key}\n`, { mode: 0o600 });
  }
  chmodSync(path, 0o600);
  return { key, path };
}
