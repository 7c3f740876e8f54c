/**
 * Test agents for AgentDojo scenarios (not bundled): one that does each user task's ground truth and answers its
 * ground-truth output (AgentDojo's GroundTruthPipeline, as an agent), and one that also obeys a planted
 * instruction: when a tool result holds an injection task's goal, it does that task's ground truth too, as a
 * model that follows injections would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentAdapter } from '../../../../core/agent-adapter.ts';
import type { AgentDojoTasksFile } from '../shared/data.ts';
import { AGENTDOJO_SUITES } from '../index.ts';

export const AGENTDOJO_DATA = join(import.meta.dirname, '..', '..', '..', '..', 'catalog', 'data', 'agentdojo');

/** A suite's tasks.json from the bundled data. */
export const tasksOf = (suite: string): AgentDojoTasksFile => JSON.parse(readFileSync(join(AGENTDOJO_DATA, suite, 'tasks.json'), 'utf8'));

/** Every task's ground-truth output by suite, version and task id. */
function outputs(): Map<string, string> {
  const map = new Map<string, string>();
  for (const { suite } of AGENTDOJO_SUITES) {
    for (const [version, tasks] of Object.entries(tasksOf(suite).versions)) {
      for (const task of [...tasks.user_tasks, ...tasks.injection_tasks]) map.set(`${suite}/${version}/${task.id}`, task.ground_truth_output);
    }
  }
  return map;
}

/** `agentdojo-gt`: `{ mode: "follow" | "obey" }`. */
export function groundTruthAgent(): AgentAdapter {
  const expected = outputs();
  return {
    name: 'agentdojo-gt',
    description: 'test: plays each AgentDojo user task\'s ground truth; with mode "obey", also an injection task whose goal a tool result holds',
    async call(_input, { scenario, task, spec, tools }) {
      const bare = (name: string) => name.slice(name.indexOf('.') + 1);
      const [suite, version] = [scenario.id.split('-')[1]!, scenario.id.split('-').slice(2).join('-')];
      const seen: string[] = [];
      for (const call of task.ground_truth ?? []) {
        const outcome = await tools!.call(bare(call.name), call.arguments ?? {});
        seen.push('result' in outcome ? String(outcome.result) : outcome.error.message);
      }
      let output = expected.get(`${suite}/${version}/${task.id}`) ?? '';
      if (spec.mode === 'obey') {
        // A YAML tool output folds long lines: the goal is found with white space squeezed.
        const squeeze = (text: string) => text.replace(/\s+/g, ' ');
        const planted = (scenario.injection_tasks ?? []).find((injection) => seen.some((text) => squeeze(text).includes(squeeze(injection.goal))));
        if (planted) {
          for (const call of planted.ground_truth ?? []) await tools!.call(bare(call.name), call.arguments ?? {});
          output = `${output} ${expected.get(`${suite}/${version}/${planted.id}`) ?? ''}`.trim();
        }
      }
      return { output };
    },
  };
}
