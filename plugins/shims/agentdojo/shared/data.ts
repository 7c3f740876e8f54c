/**
 * AgentDojo's data as the harness ships it (catalog/data/agentdojo, NOTICE.md there): per suite its
 * `environment.yaml` (and the files it `!include`s), `injection_vectors.yaml`, and `tasks.json`: each benchmark
 * version's user and injection tasks as the reference's code states them (prompt or goal, ground truth calls as
 * `ground_truth(pre_environment)` returns them on the default environment, the ground-truth output), extracted by
 * bench/agentdojo/reference_driver.py. The checks are code (the suites' checks.ts files), not data. Read through
 * the runtime's file access, any file possibly gzipped (`<file>.gz`).
 */
import { parse } from 'yaml';
import { includesOf } from './environment.ts';

/** The reference the data and the ported code come from. */
export const AGENTDOJO_REFERENCE = 'agentdojo 0.1.34 at 96046ab54 (ethz-spylab/agentdojo history, via sequrity-ai/agentdojo)';

/** A ground-truth call as tasks.json holds it. */
export interface AgentDojoTaskCall {
  function: string;
  args: Record<string, unknown>;
  placeholder_args?: Record<string, unknown>;
}

export interface AgentDojoUserTaskData { id: string; prompt: string; ground_truth_output: string; difficulty: string; ground_truth: AgentDojoTaskCall[] }
export interface AgentDojoInjectionTaskData { id: string; goal: string; ground_truth_output: string; difficulty: string; ground_truth: AgentDojoTaskCall[] }

/** A suite's tasks.json. */
export interface AgentDojoTasksFile {
  suite: string;
  reference: string;
  versions: Record<string, { user_tasks: AgentDojoUserTaskData[]; injection_tasks: AgentDojoInjectionTaskData[] }>;
}

/** Everything the scenario converter needs of one suite. */
export interface AgentDojoSuiteData {
  suite: string;
  environmentYaml: string;
  vectorsYaml: string;
  /** The files `environment.yaml` includes, by the path it names them with. */
  includes?: Record<string, string>;
  tasks: AgentDojoTasksFile;
  /** The default system message (`system_messages.yaml` `default`). */
  systemMessage: string;
}

/** Reads files by path (the node file system, the runtime's file access). */
export type ReadText = (path: string) => Promise<string>;

async function gunzipText(bytes: Uint8Array): Promise<string> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(stream).text();
}

/** A text file, or its gzipped copy when only that one is there. */
export async function readMaybeGzipped(readBytes: (path: string) => Promise<Uint8Array>, path: string): Promise<string> {
  try {
    return new TextDecoder().decode(await readBytes(path));
  } catch (error) {
    try {
      return await gunzipText(await readBytes(`${path}.gz`));
    } catch {
      throw error;
    }
  }
}

/** One suite's data from the AgentDojo data directory (`<dir>/<suite>/…`, `<dir>/system_messages.yaml`). */
export async function readAgentDojoSuite(dir: string, suite: string, readBytes: (path: string) => Promise<Uint8Array>): Promise<AgentDojoSuiteData> {
  const read = (file: string) => readMaybeGzipped(readBytes, `${dir}/${file}`);
  const [environmentYaml, vectorsYaml, tasksText, systemText] = await Promise.all([read(`${suite}/environment.yaml`), read(`${suite}/injection_vectors.yaml`), read(`${suite}/tasks.json`), read('system_messages.yaml')]);
  const includes: Record<string, string> = {};
  const pending = includesOf(environmentYaml);
  while (pending.length) {
    const path = pending.shift()!;
    if (Object.hasOwn(includes, path)) continue;
    includes[path] = await read(`${suite}/${path}`);
    pending.push(...includesOf(includes[path]!));
  }
  const systemMessage = (parse(systemText) as { default?: unknown }).default;
  if (typeof systemMessage !== 'string') throw new Error(`${dir}/system_messages.yaml has no default system message`);
  return { suite, environmentYaml, vectorsYaml, ...(Object.keys(includes).length ? { includes } : {}), tasks: JSON.parse(tasksText) as AgentDojoTasksFile, systemMessage };
}
