/**
 * Issue 36: `aeh bench` (and `aeh suite run`) follow a suite to its end; one that stopped moving hung the command
 * for ever (a CI job then ends at its own limit, saying nothing). The follower gives up, saying what it waited
 * for, after `--stall-s` without progress; it fails at once on an answer it cannot wait through.
 */
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import type { ApiClient } from './client.ts';
import type { Io } from './io.ts';
import { follow } from './commands/bench-suite.ts';
import { createStallWatch, DEFAULT_STALL_S, stallMsOf } from './stall.ts';

const io: Io = { stdout: new PassThrough(), stderr: new PassThrough(), env: { CI: 'true' }, cwd: process.cwd() };

/** A client whose suite answers come from `answers` in turn (the last one again and again). */
function clientOf(answers: Array<{ status: number; body: unknown }>): ApiClient & { reads: number } {
  const client = {
    target: 'fake',
    reads: 0,
    async request(_method: string, path: string) {
      if (path.startsWith('/api/v1/tasks/')) return { status: 200, body: { status: 'running', progress: { done: 3, total: 9 } }, text: '' };
      const answer = answers[Math.min(client.reads++, answers.length - 1)]!;
      return { ...answer, text: '' };
    },
    download: async () => ({ status: 404, bytes: new Uint8Array() }),
    close: async () => undefined,
  };
  return client as never;
}

const running = {
  suite_id: 'suite_x', status: 'running',
  runs: [{ status: 'succeeded', task_id: 'task_a' }, { status: 'queued', task_id: 'task_b' }],
  certificate: { status: 'pending', detail: '1 of 2 run(s) have no certificate yet' },
};

describe('aeh bench: following a suite gives up on one that stopped moving (issue 36)', () => {
  it('fails, saying what it waited for, once the suite showed no progress for the stall limit', async () => {
    const client = clientOf([{ status: 200, body: running }]);
    await expect(follow(client, 'suite_x', io, true, 5, 150)).rejects.toThrow(/^suite suite_x showed no progress for \d+ s \(--stall-s\): running, 1\/2 runs ended, certificate pending \(1 of 2 run\(s\) have no certificate yet\); given up$/);
    expect(client.reads).toBeGreaterThan(1);
  });

  it('fails at once when reading the suite answers what it cannot wait through; waits through a 429 or a 503', async () => {
    await expect(follow(clientOf([{ status: 500, body: { detail: 'boom' } }]), 'suite_x', io, true, 5)).rejects.toThrow('reading suite suite_x answered 500: boom');
    await expect(follow(clientOf([{ status: 404, body: {} }]), 'suite_x', io, true, 5)).rejects.toThrow(/^reading suite suite_x answered 404$/);
    const finished = { ...running, status: 'finished', certificate: { status: 'unavailable', detail: 'why' } };
    const client = clientOf([{ status: 429, body: {} }, { status: 503, body: {} }, { status: 200, body: running }, { status: 200, body: finished }]);
    expect(await follow(client, 'suite_x', io, true, 5)).toEqual(finished);
  });

  it('counts any change as progress: a run ending, the first run\'s units, the certificate\'s state', () => {
    let now = 0;
    const check = createStallWatch('suite_x', 1000, () => now);
    expect(check(running, { progress: { done: 1 } })).toBeUndefined();
    now = 999;
    expect(check(running, { progress: { done: 1 } })).toBeUndefined();
    now = 1500;
    expect(check(running, { progress: { done: 2 } })).toBeUndefined();
    now = 2400;
    expect(check(running, { progress: { done: 2 } })).toBeUndefined();
    now = 2600;
    expect(check(running, { progress: { done: 2 } })).toMatch(/no progress for 1 s/);
    expect(check({ ...running, certificate: { status: 'issued', detail: '' } }, { progress: { done: 2 } })).toBeUndefined();
    // 0: no limit.
    const never = createStallWatch('suite_x', 0, () => now);
    never(running);
    now = 10 ** 9;
    expect(never(running)).toBeUndefined();
  });

  it('reads --stall-s: seconds, 0 for no limit, the default a quarter of an hour', () => {
    expect(DEFAULT_STALL_S).toBe(900);
    expect(stallMsOf(undefined)).toBe(900_000);
    expect(stallMsOf('0')).toBe(0);
    expect(stallMsOf('30')).toBe(30_000);
    for (const bad of ['-1', '1.5', 'ten', '']) expect(stallMsOf(bad)).toMatch(/^--stall-s must be a whole number of seconds/);
  });
});
