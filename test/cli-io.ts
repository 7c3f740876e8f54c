/**
 * Test kit for the command line: a captured `Io` (stdout/stderr as strings), a fresh project folder, the CLI
 * fixtures, and a child-process runner for `node bin/aeh.mjs …` as a user types it.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Io } from '../cli/io.ts';
import { main } from '../cli/main.ts';

export const REPO = join(import.meta.dirname, '..');
export const FIXTURES = join(import.meta.dirname, 'fixtures', 'cli');
export const CLI_KEY = 'c0ffee'.repeat(10) + 'c0de';

/** A captured stream: what was written, and whether it claims to be a terminal. */
function capture(isTTY: boolean) {
  let text = '';
  const stream = { isTTY, write(chunk: string | Uint8Array) { text += typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk); return true; } };
  return { stream: stream as unknown as Io['stdout'], text: () => text };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A project folder holding copies of the CLI fixtures. */
export function projectWithFixtures(): string {
  const root = mkdtempSync(join(tmpdir(), 'aeh-cli-'));
  for (const file of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, file), join(root, file));
  return root;
}

/** Runs `aeh <argv>` in-process with captured output. */
export async function runCli(argv: string[], options: { cwd: string; env?: Record<string, string | undefined>; tty?: boolean }): Promise<CliResult> {
  const stdout = capture(Boolean(options.tty));
  const stderr = capture(Boolean(options.tty));
  const env = { DASHBOARD_API_KEY: CLI_KEY, AEH_STORAGE: 'memory', ...options.env };
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream, env, cwd: options.cwd });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Spawns `node bin/aeh.mjs <argv>` (dist/ is built by test/global-setup.ts). */
export function spawnCli(argv: string[], options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'aeh.mjs'), ...argv], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, CI: 'true', DASHBOARD_API_KEY: CLI_KEY, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
