/**
 * AgentDojo workspace fidelity without Python, on every CI run: the reference's own run (fidelity.fixture.json,
 * recorded by bench/agentdojo/travel_workspace_reference.py at 96046ab54, PYTHONHASHSEED=0, clock frozen) replayed
 * through `agentdojo_workspace` and the ported checks: every ground truth's outputs, world hash and check, every
 * task pair of v1.1.2 and v1.2.1, the injection candidates and every important_instructions world.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readAgentDojoSuite } from '../shared/data.ts';
import { checkAt, suiteVersion } from '../shared/checks.ts';
import { agentdojoScenario } from '../tasks.ts';
import { environmentText, vectorsOf } from '../shared/environment.ts';
import { deepDiff, PyDict } from './deepdiff.ts';
import { compareWithReference, type Fixture } from './fidelity-harness.ts';
import { agentdojoWorkspaceShim } from './index.ts';
import { workspaceView } from './state.ts';
import { workspaceCheckByKey, workspaceChecks } from './checks/index.ts';
import type { WorkspaceWorld } from './types.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = JSON.parse(readFileSync(join(here, 'fidelity.fixture.json'), 'utf8')) as Fixture;
const catalog = resolve(here, '..', '..', '..', '..', 'catalog', 'data', 'agentdojo');
const marked = (world: WorkspaceWorld) => workspaceView(world, (entries) => new PyDict(entries));

describe('agentdojo: workspace against the reference', () => {
  it('replays every ground truth, task pair, candidate set and injected world as the reference does', async () => {
    const data = await readAgentDojoSuite(catalog, 'workspace', (path) => readFile(path));
    const text = environmentText(data.environmentYaml, Object.keys(vectorsOf(data.vectorsYaml)), data.includes);
    const report = await compareWithReference<WorkspaceWorld>({
      shim: agentdojoWorkspaceShim as never, environmentText: text, view: (world) => workspaceView(world),
      diff: (pre, post) => deepDiff(marked(pre), marked(post)),
      checkByKey: workspaceCheckByKey, checks: workspaceChecks,
    }, fixture);
    console.info(`AgentDojo workspace fidelity: ${JSON.stringify(report.counts)}, ${report.differences.length} differences`);
    expect(report.differences).toEqual([]);
  }, 300_000);

  it("offers every tool with the reference's name, description and parameter schema, in its order", () => {
    const reference = JSON.parse(readFileSync(join(catalog, 'workspace', 'tools.json'), 'utf8')) as Array<{ name: string; description: string; parameters: unknown }>;
    const ours = agentdojoWorkspaceShim.actions.map((action) => ({ name: action.name, description: action.description, parameters: action.parameters }));
    expect(JSON.stringify(ours)).toBe(JSON.stringify(reference));
  });

  it('builds the scenario of v1.2.1 and v1.1.2 with a registered check for every task', async () => {
    const data = await readAgentDojoSuite(catalog, 'workspace', (path) => readFile(path));
    for (const version of ['v1.2.1', 'v1.1.2']) {
      const scenario = agentdojoScenario(data, { version });
      const at = suiteVersion(version, 'workspace');
      expect(scenario.tasks.map((task) => task.id).sort()).toEqual(Object.keys(fixture.sets[version]!.user_tasks).sort());
      expect(scenario.injection_tasks!.map((task) => task.id).sort()).toEqual(Object.keys(fixture.sets[version]!.injection_tasks).sort());
      for (const task of scenario.tasks) expect(checkAt(workspaceChecks.user[task.id], at), `${version} ${task.id}`).toBeDefined();
      for (const task of scenario.injection_tasks!) expect(checkAt(workspaceChecks.injection[task.id], at), `${version} ${task.id}`).toBeDefined();
    }
  });
});
