import { testMutator } from '../../testing/index.ts';
import { BUNDLED_MUTATORS } from './index.ts';

/** Strips the decoding instruction and decodes the Base64 payload (UTF-8). */
function decodeBase64(output: string): string {
  const payload = output.slice(output.lastIndexOf('\n') + 1);
  return new TextDecoder().decode(Uint8Array.from(atob(payload), (char) => char.charCodeAt(0)));
}

for (const mutator of BUNDLED_MUTATORS) {
  if (mutator.requiresLlm) continue;
  testMutator(mutator, mutator.type === 'base64' ? { decode: decodeBase64 } : {});
}
