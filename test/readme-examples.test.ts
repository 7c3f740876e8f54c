/**
 * Every shell example in README.md runs as written (issue 18 item 8): the service is started the way the README
 * starts it (`npm start`'s script in a fresh folder, with no key, so it writes `.env`), then the README's `sh`
 * blocks run in order in one bash session in that folder, as a reader would paste them. `curl` fails on an HTTP
 * error there, so an example that answers 4xx is a failure unless the block is marked `<!-- expect: <status> -->`;
 * a block marked `<!-- not run: reason -->` is skipped (each says why). Only the port differs from the text.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';

const repo = join(import.meta.dirname, '..');

interface Block {
  code: string;
  line: number;
  skip?: string;
  expect?: string;
}

/** The README's sh blocks, with the marker comment just before each. */
function readmeBlocks(): Block[] {
  const tree = fromMarkdown(readFileSync(join(repo, 'README.md'), 'utf8'));
  const blocks: Block[] = [];
  tree.children.forEach((node, index) => {
    if (node.type !== 'code' || node.lang !== 'sh') return;
    const before = tree.children[index - 1];
    const marker = before?.type === 'html' ? before.value : '';
    blocks.push({
      code: node.value,
      line: node.position!.start.line,
      skip: /<!--\s*not run:\s*(.*?)\s*-->/.exec(marker)?.[1],
      expect: /<!--\s*expect:\s*(\d{3})\s*-->/.exec(marker)?.[1],
    });
  });
  return blocks;
}


const hasJq = spawnSync('jq', ['--version']).status === 0;
let server: ChildProcess | undefined;
let folder = '';
let port = 0;

beforeAll(async () => {
  if (!hasJq) return;
  folder = mkdtempSync(join(tmpdir(), 'aeh-readme-'));
  // What a clone has that the examples read, and `npx aeh` resolving to this checkout's CLI.
  // Copied, not linked: the file jail resolves links, and these must be inside the project as in a clone.
  for (const dir of ['examples/scenarios', 'examples/prd']) cpSync(join(repo, dir), join(folder, dir), { recursive: true });
  mkdirSync(join(folder, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(repo, 'bin', 'aeh.mjs'), join(folder, 'node_modules', '.bin', 'aeh'));
  writeFileSync(join(folder, 'package.json'), '{"name":"readme-examples","private":true}\n');
  // Port 0: the system picks a free one, which the service logs ("listening on http://127.0.0.1:<port>"); a port
  // probed free and released beforehand can be taken by another suite's server in between.
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', PROJECT_ROOT: folder };
  delete env.DASHBOARD_API_KEY;
  server = spawn(process.execPath, [join(repo, 'scripts', 'start.mjs')], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Read to the end (a pipe left full would stop the service), kept only until the port is known.
  let printed = '';
  const keep = (chunk: Buffer) => { if (!port) printed += chunk; };
  server.stdout!.on('data', keep);
  server.stderr!.on('data', keep);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(printed);
    if (listening) port = Number(listening[1]);
    const up = listening !== null && await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.ok, () => false);
    if (up) break;
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the service did not start (exit ${server.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 90_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(!hasJq)('README examples', () => {
  it('run as written against a started service', () => {
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThan(8);
    for (const block of blocks.filter((candidate) => candidate.skip !== undefined)) expect(block.skip, `line ${block.line}`).not.toBe('');
    // `npx aeh` runs the folder's node_modules/.bin/aeh, as npx resolves a local bin, without npx's own start-up
    // (about 2 s a call on a busy machine, a third of this test's time); any other npx call is npx's.
    const npx = 'npx() { if [ "${1:-}" = aeh ]; then shift; node_modules/.bin/aeh "$@"; else command npx "$@"; fi; }';
    const script = ['set -euo pipefail', 'trap \'echo "failed: $BASH_COMMAND" >&2\' ERR', 'curl() { command curl --fail-with-body "$@"; }', npx];
    for (const block of blocks) {
      if (block.skip !== undefined) continue;
      const code = block.code.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`);
      script.push(`echo "@@block ${block.line}" >&2`);
      // A block that shows an error answer runs with plain curl; its answer must carry that status.
      script.push(block.expect ? `(\nunset -f curl\nout=$(\n${code}\n)\necho "$out"\necho "$out" | grep -q '"status":${block.expect}'\n)` : code);
    }
    // A reader's shell: none of the npm_* variables `npm test` sets (they point npx at this checkout's prefix).
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && !/^(DASHBOARD_API_KEY|AEH_API_KEY)$/.test(name)));
    const run = spawnSync('bash', ['-c', script.join('\n')], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
    const lastBlock = [...(run.stderr ?? '').matchAll(/@@block (\d+)/g)].pop()?.[1];
    if (process.env.AEH_README_DEBUG) writeFileSync(process.env.AEH_README_DEBUG, `${script.join('\n')}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
    expect(run.status, `README block at line ${lastBlock} failed (exit ${run.status}, signal ${run.signal}, ${run.error?.message ?? 'no error'}):\n${(run.stderr ?? '').slice(-3000)}\n${(run.stdout ?? '').slice(-2000)}`).toBe(0);
  }, 300_000);
});
