/**
 * Which of AgentDojo's published runs `npm test` replays (issue 36): all of them when AEH_TEST_ALL is set (`npm run
 * test:all`, CI's command), else a deterministic, stratified sample. Every run without attack and every injection
 * task run alone is kept; of the attacked runs, each model keeps every user task and attack with a quarter of the
 * injection tasks, the quarter rotating with the model so that every injection task is replayed under attack. The
 * cut is by injection task, not by run: the engine runs every user task × injection task pair of the tasks a
 * model's runs name, so a sample of runs over all injection tasks would replay as much as the whole set.
 */
import type { AgentDojoRun } from '../plugins/shims/agentdojo/traces.ts';

/** True when the whole published set is replayed (`npm run test:all`). */
export const ALL_TRACES = Boolean(process.env.AEH_TEST_ALL);

const taskNumber = (id: string) => Number(id.slice(id.lastIndexOf('_') + 1));

/** `runs` as `npm test` replays them: all with AEH_TEST_ALL, else the stratified sample (one injection task in `every`). */
export function tracesToReplay<R extends AgentDojoRun>(runs: readonly R[], every = 4): R[] {
  if (ALL_TRACES) return [...runs];
  const models = [...new Set(runs.map((run) => run.model))].sort();
  return runs.filter((run) => !run.injection_task || (taskNumber(run.injection_task) + models.indexOf(run.model)) % every === 0);
}
