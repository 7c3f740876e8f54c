/**
 * The quota ledger mirrors each principal's part in memory on a store only this process uses (owner-ledger.ts),
 * from the tasks' own active markers and records: what an earlier process stored must still count after a
 * restart, a stale marker swept at start must not keep counting, an earlier version's marker of a task still
 * queued must count it once, a task released twice counts its bytes once, and parallel reservations, written
 * outside the lock and batched, are each counted before the next is checked.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../../test/helpers.ts';
import { scriptedScenario, testMetrics, waitForTask } from '../../../test/evaluation-fixtures.ts';
import { stalledAgent } from '../../../test/agent-fixtures.ts';
import { ACTIVE_JOURNAL_KEY, readJournal } from './active-tasks.ts';
import { JOURNAL_SUFFIX, readCounterFile } from '../../storage/fs-counters.ts';

const stalled = (id: string) => scriptedScenario(id, { agent: { adapter: 'stalled' }, tasks: [{ id: 't1', input: 'balance?', metrics: [{ id: 'probe_contains' }] }] });

function fsEnv(extra: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'aeh-ledger-'));
  return { AEH_STORAGE: 'fs', PROJECT_ROOT: root, AEH_DATA_DIR: join(root, '.aeh'), AEH_CONCURRENCY: '1', ...extra };
}

async function operator(t: TestApp, name: string): Promise<string> {
  return (await t.json('POST', '/api/v1/keys', { body: { name, roles: ['operator'] } })).body.secret;
}

const submit = (t: TestApp, key: string, id: string) => t.json('POST', '/api/evaluate', { key, body: { scenario: stalled(id) } });

describe('the quota ledger on a store only this process uses', () => {
  it('counts the tasks an earlier process left queued, after a restart', async () => {
    const env = fsEnv({ AEH_MAX_QUEUED_PER_PRINCIPAL: '2' });
    const first = await testApp({ plugins: [testMetrics, stalledAgent], env });
    const secret = await operator(first, 'restarted');
    expect((await submit(first, secret, 'a')).status).toBe(202);
    expect((await submit(first, secret, 'b')).status).toBe(202);
    await first.app.close();
    // The two tasks resume in the next process and still hold their places.
    const second = await testApp({ plugins: [testMetrics, stalledAgent], env });
    const refused = await submit(second, secret, 'c');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', outstanding: 2 });
    await second.app.close();
  });

  it('forgets a marker swept at start (its task is gone), and counts stored bytes across restarts', async () => {
    const env = fsEnv({ AEH_MAX_QUEUED_PER_PRINCIPAL: '1', AEH_MAX_STORED_BYTES_PER_PRINCIPAL: '1000000' });
    const first = await testApp({ plugins: [testMetrics], env });
    const secret = await operator(first, 'swept');
    const done = await t_submitScripted(first, secret, 'quick');
    await waitForTask(first, done);
    // The run's bytes are counted just after its task's record says it ended.
    const counters = join(env.AEH_DATA_DIR, 'usage', 'stored-bytes');
    for (let i = 0; i < 6_000 && !existsSync(counters); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.app.close();
    // The principal's only counter and marker folder (named by ownerKey of its id).
    const [owner] = ownersOf(counters);
    const counter = join(env.AEH_DATA_DIR, 'usage', 'stored-bytes', owner!);
    const storedOnce = counterValue(counter);
    expect(storedOnce).toBeGreaterThan(1000);
    // A marker whose task record is gone (a crash between two removals) would hold the only place for ever.
    const owned = join(env.AEH_DATA_DIR, 'tasks-owned', owner!);
    mkdirSync(owned, { recursive: true });
    writeFileSync(join(owned, 'task_gone.1'), '1');
    const second = await testApp({ plugins: [testMetrics], env });
    for (let i = 0; i < 6_000 && readdirSync(owned).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(readdirSync(owned)).toEqual([]);
    const next = await t_submitScripted(second, secret, 'after-restart');
    await waitForTask(second, next);
    // Counted once per run, added to what the first process stored (just after the task's record says it ended).
    let storedTwice = storedOnce;
    for (let i = 0; i < 200 && storedTwice === storedOnce; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      storedTwice = counterValue(counter);
    }
    expect(storedTwice).toBeGreaterThan(storedOnce);
    expect(storedTwice).toBeLessThan(storedOnce * 2.5);
    await second.app.close();
  });

  it('counts a task an earlier version marked as owned once, from its record, and removes the marker', async () => {
    const env = fsEnv({ AEH_MAX_QUEUED_PER_PRINCIPAL: '2' });
    const first = await testApp({ plugins: [testMetrics, stalledAgent], env });
    const secret = await operator(first, 'upgraded');
    expect((await submit(first, secret, 'a')).status).toBe(202);
    await first.app.close();
    // What a version before issue 36 left beside the queued task: its owner marker (`<task_id>.<units>`).
    const [taskFile] = activeIds(env.AEH_DATA_DIR);
    const counters = join(env.AEH_DATA_DIR, 'usage', 'stored-bytes');
    const [owner] = ownersOf(counters);
    const owned = join(env.AEH_DATA_DIR, 'tasks-owned', owner!);
    mkdirSync(owned, { recursive: true });
    writeFileSync(join(owned, `${taskFile}.1`), '1');
    const second = await testApp({ plugins: [testMetrics, stalledAgent], env });
    for (let i = 0; i < 6_000 && readdirSync(owned).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(readdirSync(owned)).toEqual([]);
    // The queued task holds one place of two, not two: the next submission gets in, the one after is refused.
    expect((await submit(second, secret, 'b')).status).toBe(202);
    const refused = await submit(second, secret, 'c');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', outstanding: 2 });
    await second.app.close();
  });

  it('refuses on the bytes an earlier process stored', async () => {
    const env = fsEnv({ AEH_MAX_STORED_BYTES_PER_PRINCIPAL: '1000' });
    const first = await testApp({ plugins: [testMetrics], env });
    const secret = await operator(first, 'bytes');
    await waitForTask(first, await t_submitScripted(first, secret, 'big'));
    for (let i = 0; i < 6_000 && !existsSync(join(env.AEH_DATA_DIR, 'usage', 'stored-bytes')); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.app.close();
    const second = await testApp({ plugins: [testMetrics], env });
    const refused = await t_submitScripted(second, secret, 'next').catch((error: Error) => error.message);
    expect(refused).toMatch(/429.*AEH_MAX_STORED_BYTES_PER_PRINCIPAL/s);
    await second.app.close();
  });

  it('reserves a burst of parallel submissions against the stored-bytes quota one at a time, each stored before its 202', async () => {
    const env = fsEnv({ AEH_MAX_QUEUED_PER_PRINCIPAL: '100' });
    const first = await testApp({ plugins: [testMetrics, stalledAgent], env });
    const secret = await operator(first, 'burst');
    expect((await submit(first, secret, 'r00')).status).toBe(202);
    const counters = join(env.AEH_DATA_DIR, 'usage', 'stored-bytes');
    const [owner] = ownersOf(counters);
    const counter = join(counters, owner!);
    // What one of these submissions reserves (their scenarios are the same size).
    const reserved = counterValue(counter);
    expect(reserved).toBeGreaterThan(100);
    await first.app.close();
    // Room for three more: the reservations are written outside the principal's lock now, and batched, but
    // each is counted before the next one is checked.
    const limited = { ...env, AEH_MAX_STORED_BYTES_PER_PRINCIPAL: String(Math.floor(reserved * 4.5)) };
    const second = await testApp({ plugins: [testMetrics, stalledAgent], env: limited });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => submit(second, secret, `r${String(index + 1).padStart(2, '0')}`)));
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(3);
    expect(answers.filter((answer) => answer.status === 429 && answer.body.code === 'quota_exceeded')).toHaveLength(17);
    // Every accepted one was stored before its answer.
    expect(counterValue(counter)).toBe(reserved * 4);
    // Held by the tasks' own active entries and records (issue 36: no owner marker is written on this store).
    expect(activeIds(env.AEH_DATA_DIR)).toHaveLength(4);
    expect(existsSync(join(env.AEH_DATA_DIR, 'tasks-owned'))).toBe(false);
    await second.app.close();
    // The three reservations are lines of the counter's journal (fs-counters.ts), which the next process adds up.
    expect(readFileSync(counter + JOURNAL_SUFFIX, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    const third = await testApp({ plugins: [testMetrics, stalledAgent], env: limited });
    const refused = await submit(third, secret, 'r99');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', stored_bytes: reserved * 4 });
    await third.app.close();
  });
});

/** A counter's value on disk: its file (a bare number, or a base) and its journal (fs-counters.ts). */
const counterValue = (path: string) => readCounterFile(path) ?? Number.NaN;

/** The principals with a stored-bytes counter (the files of the folder that are no counter's journal). */
const ownersOf = (folder: string) => readdirSync(folder).filter((name) => !name.endsWith(JOURNAL_SUFFIX));

/** The tasks the journal of a data folder holds as active (active-tasks.ts). */
function activeIds(dataDir: string | undefined): string[] {
  return [...readJournal(readFileSync(join(dataDir!, ACTIVE_JOURNAL_KEY)))];
}

/** Submits a scripted scenario that finishes at once; its task id. */
async function t_submitScripted(t: TestApp, key: string, id: string): Promise<string> {
  const answer = await t.json('POST', '/api/evaluate', { key, body: { scenario: scriptedScenario(id) } });
  if (answer.status !== 202) throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.task_id;
}
