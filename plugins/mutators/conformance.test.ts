import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { testMutator } from '../../testing/index.ts';
import { PROTECTION_CORPUS } from '../../testing/mutator-corpus.ts';
import type { ScenarioTask } from '../../core/domain/scenario.ts';
import { BUNDLED_MUTATORS } from './index.ts';
import { rot13 } from './rot13.ts';

/** Strips the decoding instruction and decodes the Base64 payload (UTF-8). */
function decodeBase64(output: string): string {
  const payload = output.slice(output.lastIndexOf('\n') + 1);
  return new TextDecoder().decode(Uint8Array.from(atob(payload), (char) => char.charCodeAt(0)));
}

/** Strips the decoding instruction and rotates back. */
function decodeRot13(output: string): string {
  return rot13(output.slice(output.indexOf('\n') + 1));
}

/** Every task of the bundled catalog: what the mutators must keep the meaning of, beside the suite's own corpus. */
function catalogTasks(): ScenarioTask[] {
  const root = join(import.meta.dirname, '../../catalog');
  const tasks: ScenarioTask[] = [];
  for (const folder of readdirSync(root)) {
    if (!statSync(join(root, folder)).isDirectory()) continue;
    for (const file of readdirSync(join(root, folder)).filter((name) => name.endsWith('.json'))) {
      const scenario = JSON.parse(readFileSync(join(root, folder, file), 'utf8')) as { tasks?: ScenarioTask[] };
      for (const task of scenario.tasks ?? []) tasks.push({ ...task, id: `${file.replace(/\.json$/, '')}/${task.id}` });
    }
  }
  return tasks;
}

const corpus = [...PROTECTION_CORPUS, ...catalogTasks()];
const DECODERS: Record<string, (output: string) => string> = { base64: decodeBase64, rot13: decodeRot13 };

for (const mutator of BUNDLED_MUTATORS) {
  if (mutator.requiresLlm) continue;
  testMutator(mutator, { corpus, ...(DECODERS[mutator.type] ? { decode: DECODERS[mutator.type] } : {}) });
}
