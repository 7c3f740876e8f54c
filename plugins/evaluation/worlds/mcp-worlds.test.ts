/** The registry of open task worlds (mcp-worlds.ts): per-run tokens, per-task worlds, expiry with the task or the run. */
import { describe, it, expect } from 'vitest';
import { createMcpWorlds } from './mcp-worlds.ts';
import type { TaskWorld } from './world.ts';

const world = {} as TaskWorld;

function hmacKey(byte: number): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', new Uint8Array(32).fill(byte), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

const worldIdOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('evaluation: the registry of MCP worlds', () => {
  it('gives a run one token for all its worlds, the same on another instance with the same key', async () => {
    const key = await hmacKey(1);
    const here = createMcpWorlds(key, 'http://127.0.0.1:8787');
    const first = await here.open('run_a', world);
    const second = await here.open('run_a', world);
    expect(first.access.token).toBe(second.access.token);
    expect(first.access.url).not.toBe(second.access.url);
    expect(first.access.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/mcp\/runs\/run_a\/worlds\/[A-Za-z0-9_-]{22}$/);
    expect((await createMcpWorlds(key, 'x').open('run_a', world)).access.token).toBe(first.access.token);
    expect((await createMcpWorlds(await hmacKey(2), 'x').open('run_a', world)).access.token).not.toBe(first.access.token);
    expect((await here.open('run_b', world)).access.token).not.toBe(first.access.token);
  });

  it('finds a world only with its run\'s token and only while it is open', async () => {
    const worlds = createMcpWorlds(await hmacKey(1), 'http://h');
    const a = await worlds.open('run_a', world);
    const b = await worlds.open('run_b', world);
    expect(await worlds.find('run_a', worldIdOf(a.access.url), a.access.token)).toEqual({ world });
    expect(await worlds.find('run_a', worldIdOf(a.access.url), b.access.token)).toEqual({ refused: 'unauthorized' });
    expect(await worlds.find('run_a', worldIdOf(b.access.url), a.access.token)).toEqual({ refused: 'not_found' });
    a.close();
    expect(await worlds.find('run_a', worldIdOf(a.access.url), a.access.token)).toEqual({ refused: 'not_found' });
    expect(await worlds.find('run_a', worldIdOf(a.access.url), 'aeh_mcp_guess')).toEqual({ refused: 'unauthorized' });
    expect(worlds.size()).toBe(1);
    b.close();
    b.close();
    expect(worlds.size()).toBe(0);
  });

  it('drops a run\'s worlds when the run is aborted, with one listener per run', async () => {
    const worlds = createMcpWorlds(await hmacKey(1), 'http://h');
    const controller = new AbortController();
    const opened = await Promise.all(Array.from({ length: 20 }, () => worlds.open('run_a', world, controller.signal)));
    expect(worlds.size()).toBe(20);
    controller.abort();
    expect(worlds.size()).toBe(0);
    expect(await worlds.find('run_a', worldIdOf(opened[0].access.url), opened[0].access.token)).toEqual({ refused: 'not_found' });
    for (const entry of opened) entry.close();
    const next = await worlds.open('run_a', world);
    expect(worlds.size()).toBe(1);
    expect(next.access.token).toBe(opened[0].access.token);
  });

  it('keeps the same token for a run after its cache entry was evicted', async () => {
    const worlds = createMcpWorlds(await hmacKey(1), 'http://h');
    const first = await worlds.open('run_0', world);
    for (let index = 1; index <= 300; index++) (await worlds.open(`run_${index}`, world)).close();
    first.close();
    expect((await worlds.open('run_0', world)).access.token).toBe(first.access.token);
  });
});
