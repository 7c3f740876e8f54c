/**
 * `DELETE /api/v1/tasks/:task_id`: a waiting task is cancelled at once; one running here is aborted (its agent
 * call included) and answered when it has stopped; one running on another instance gets a cancel request in
 * storage that its runner honours at its next checkpoint (202). A task no worker holds (not queued, not running
 * here, and no other instance shares the queue) is ended at once.
 */
import { keys, readTask, type TaskRecord } from '../../../core/domain/runs.ts';
import { Problem, notFound } from '../../../core/problems.ts';
import { FINAL_STATUSES, StopRequest, type Engine } from '../engine.ts';
import { cancelRun } from './finish.ts';

/** Cancels a task; returns the HTTP status to answer with and the task as it now stands. */
export async function cancelTask(engine: Engine, taskId: string): Promise<{ status: 200 | 202; task: TaskRecord }> {
  const { store } = engine.services;
  const task = await readTask(store, taskId);
  if (!task) throw notFound(`task ${taskId}`);
  if (FINAL_STATUSES.has(task.status)) throw new Problem('conflict', { detail: `the task has already ${task.status === 'cancelled' ? 'been cancelled' : task.status}` });
  if (await engine.queue.remove(taskId)) {
    engine.fresh.delete(taskId);
    await cancelRun(engine, task);
    return { status: 200, task };
  }
  const running = engine.running.get(taskId);
  if (running) {
    running.controller.abort(new StopRequest('cancel'));
    await running.done.catch(() => undefined);
    return { status: 200, task: (await readTask(store, taskId)) ?? task };
  }
  // Neither waiting nor running here, and no other instance takes tasks from this queue: no worker holds it (a
  // run an earlier version of this instance left behind), so nothing would ever see a request. It ends now.
  if (!engine.queue.shared) {
    await cancelRun(engine, task);
    return { status: 200, task };
  }
  await store.append(keys.cancelRequest(taskId), new TextEncoder().encode(new Date(engine.services.now()).toISOString()));
  return { status: 202, task };
}
