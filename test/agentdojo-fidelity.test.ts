/**
 * Issue 35 item 3, "world and tools": what AgentDojo's own Python printed at the pinned commit (recorded in
 * plugins/shims/agentdojo/fidelity/<suite>.json.gz by bench/agentdojo/fidelity.ts --write-fixture) recomputed
 * through the harness's AgentDojo shims, checks and attacks, without Python: the environment text, every tool's
 * schema, every ground truth's tool outputs and final world, every check over the ground truths, and every bundled
 * attack's placement, text and injected world for every (user task, injection task). 100% is the bar.
 * Travel and workspace have their own recording of the same items and more (DeepDiff's reports, the task pairs,
 * probes: bench/agentdojo/travel_workspace_reference.py), replayed by test/agentdojo-travel-workspace.test.ts; each
 * suite is recorded once, in one of the two.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { compareSuite, type FidelityReport, type ReferenceSuite } from './agentdojo-fidelity.ts';
import { AGENTDOJO_DATA } from '../plugins/shims/agentdojo/testing/gt-agent.ts';
import { AGENTDOJO_SUITES } from '../plugins/shims/agentdojo/index.ts';

const fixture = (suite: string) => JSON.parse(gunzipSync(readFileSync(new URL(`../plugins/shims/agentdojo/fidelity/${suite}.json.gz`, import.meta.url))).toString()) as { reference: string; versions: Record<string, ReferenceSuite> };

/** The suites recorded by bench/agentdojo/fidelity.ts (travel and workspace: test/agentdojo-travel-workspace.test.ts). */
const FIDELITY_FIXTURES = AGENTDOJO_SUITES.map((entry) => entry.suite).filter((suite) => existsSync(new URL(`../plugins/shims/agentdojo/fidelity/${suite}.json.gz`, import.meta.url)));

const reports = new Map<string, Promise<FidelityReport>>();
/** The comparison of one suite's fixture, every version in it (once per file). */
function compared(suite: string): Promise<FidelityReport> {
  if (!reports.has(suite)) {
    reports.set(suite, (async () => {
      const report: FidelityReport = { counts: {}, differences: [] };
      for (const reference of Object.values(fixture(suite).versions)) await compareSuite(AGENTDOJO_DATA, reference, report);
      return report;
    })());
  }
  return reports.get(suite)!;
}

describe('agentdojo fidelity: the reference\'s own output, recomputed without Python', () => {
  // A suite added to AGENTDOJO_SUITES brings its fixture (plugins/shims/agentdojo/README.md, "Adding a suite").
  it('every bundled suite has exactly one recording of the reference: fidelity/<suite>.json.gz or <suite>/fidelity.fixture.json.gz', () => {
    const recordings = AGENTDOJO_SUITES.map((entry) => [entry.suite, [FIDELITY_FIXTURES.includes(entry.suite), existsSync(new URL(`../plugins/shims/agentdojo/${entry.suite}/fidelity.fixture.json.gz`, import.meta.url))]]);
    expect(recordings).toEqual([['workspace', [false, true]], ['travel', [false, true]], ['banking', [true, false]], ['slack', [true, false]]]);
  });

  it.each(FIDELITY_FIXTURES)('%s: every recorded item the same, at every recorded version', async (suite) => {
    const report = await compared(suite);
    expect(report.differences).toEqual([]);
    expect(Object.keys(fixture(suite).versions).sort()).toEqual(['v1.1.2', 'v1.2.1']);
    expect(Object.values(report.counts).every((count) => count.total > 0 && count.same === count.total)).toBe(true);
  }, 240_000);

  it('banking: what was compared, 11 tools, 25 ground truths and every attack\'s injected worlds at each version', async () => {
    const report = await compared('banking');
    expect(report.differences).toEqual([]);
    expect(Object.keys(fixture('banking').versions)).toEqual(['v1.2.1', 'v1.1.2']);
    expect(report.counts['tool schemas']).toEqual({ same: 24, total: 24 });
    expect(report.counts['ground-truth final worlds']!.total).toBe(2 * (16 + 9));
    // Every bundled attack (important_instructions and its variants, tool_knowledge, direct, …, the DoS attacks).
    expect(report.counts['injected worlds']!.total).toBeGreaterThan(2000);
  }, 120_000);

  it('slack: what was compared, 26 ground truths, the checks over every task pair, every attack\'s injected worlds', async () => {
    const report = await compared('slack');
    expect(report.differences).toEqual([]);
    expect(report.counts['ground-truth final worlds']!.total).toBe(2 * (21 + 5));
    expect(report.counts['checks over trajectories']!.same).toBe(report.counts['checks over trajectories']!.total);
    expect(report.counts['injected worlds']!.total).toBeGreaterThan(1000);
  }, 120_000);

  it('a changed tool output would be caught: the comparison is not vacuous', async () => {
    const reference = structuredClone(fixture('banking').versions['v1.2.1']!);
    const task = reference.user_tasks.find((entry) => entry.outputs.length)!;
    task.outputs[0] = { output: 'not what the reference printed' };
    reference.attacks = reference.attacks.slice(0, 1);
    reference.judges = [];
    const report: FidelityReport = { counts: {}, differences: [] };
    await compareSuite(AGENTDOJO_DATA, reference, report);
    expect(report.differences.map((difference) => difference.what)).toEqual([expect.stringContaining(`${task.id} call 0`)]);
  }, 60_000);
});
