/**
 * The victim model's name in prose, as AgentDojo's attacks address it (`agentdojo/models.py` MODEL_NAMES at
 * 96046ab54, MIT licence), and the wrong name `important_instructions_wrong_model_name` picks: Python's
 * `random.Random(0).choice` over the table's names other than the model's, reproduced here with CPython's
 * Mersenne Twister (MT19937 seeded by `init_by_array([0])`, `_randbelow` by rejection over `getrandbits`).
 */

/** AgentDojo's MODEL_NAMES, in its order (the order `choice` draws from). */
export const MODEL_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['gpt-4o-2024-05-13', 'GPT-4'], ['gpt-4o-mini-2024-07-18', 'GPT-4'], ['gpt-3.5-turbo-0125', 'GPT-3.5'], ['gpt-4-turbo-2024-04-09', 'GPT-4'],
  ['gpt-4-0125-preview', 'GPT-4'], ['claude-3-opus-20240229', 'Claude'], ['claude-3-sonnet-20240229', 'Claude'], ['claude-3-5-sonnet-20240620', 'Claude'],
  ['claude-3-5-sonnet-20241022', 'Claude'], ['claude-3-7-sonnet-20250219', 'Claude'], ['claude-3-7-sonnet-20250219-thinking-16000', 'Claude'],
  ['claude-3-haiku-20240307', 'Claude'], ['command-r-plus', 'Command R+'], ['command-r', 'Command R'], ['mistralai/Mixtral-8x7B-Instruct-v0.1', 'Mixtral'],
  ['meta-llama/Llama-3-70b-chat-hf', 'AI assistant'], ['gemini-1.5-pro-002', 'AI model developed by Google'], ['gemini-1.5-pro-001', 'AI model developed by Google'],
  ['gemini-1.5-flash-002', 'AI model developed by Google'], ['gemini-1.5-flash-001', 'AI model developed by Google'], ['gemini-2.0-flash-exp', 'AI model developed by Google'],
  ['gemini-2.0-flash-001', 'AI model developed by Google'], ['gemini-2.5-flash-preview-04-17', 'AI model developed by Google'],
  ['gemini-2.5-pro-preview-05-06', 'AI model developed by Google'], ['local', 'Local model'], ['vllm_parsed', 'Local model'],
];

/** The prose name of a model id, as AgentDojo finds it (the first table id the pipeline name contains). */
export function proseModelName(model: string | undefined): string | undefined {
  if (!model) return undefined;
  return MODEL_NAMES.find(([id]) => model.includes(id))?.[1];
}

/** CPython's MT19937 seeded with `random.Random(seed)` for a 32-bit seed. */
function mersenneTwister(seed: number): () => number {
  const state = new Uint32Array(624);
  let index = 624;
  const init = (value: number) => {
    state[0] = value >>> 0;
    for (let i = 1; i < 624; i++) state[i] = (Math.imul(1812433253, state[i - 1]! ^ (state[i - 1]! >>> 30)) + i) >>> 0;
  };
  // init_by_array(key = [seed]).
  init(19650218);
  let i = 1;
  let j = 0;
  for (let k = 624; k > 0; k--) {
    state[i] = ((state[i]! ^ Math.imul(state[i - 1]! ^ (state[i - 1]! >>> 30), 1664525)) + seed + j) >>> 0;
    i++;
    j = 0;
    if (i >= 624) {
      state[0] = state[623]!;
      i = 1;
    }
  }
  for (let k = 623; k > 0; k--) {
    state[i] = ((state[i]! ^ Math.imul(state[i - 1]! ^ (state[i - 1]! >>> 30), 1566083941)) - i) >>> 0;
    i++;
    if (i >= 624) {
      state[0] = state[623]!;
      i = 1;
    }
  }
  state[0] = 0x80000000;
  return () => {
    if (index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (state[k]! & 0x80000000) | (state[(k + 1) % 624]! & 0x7fffffff);
        state[k] = state[(k + 397) % 624]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      index = 0;
    }
    let y = state[index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  };
}

/** Python's `random.Random(seed).choice(items)` for a list shorter than 2³². */
export function pythonChoice<T>(items: readonly T[], seed = 0): T {
  const next = mersenneTwister(seed);
  const bits = items.length.toString(2).length;
  let r = next() >>> (32 - bits);
  while (r >= items.length) r = next() >>> (32 - bits);
  return items[r]!;
}

/** The wrong name `important_instructions_wrong_model_name` gives a model named `modelName` in prose. */
export function wrongModelName(modelName: string): string {
  return pythonChoice(MODEL_NAMES.map(([, name]) => name).filter((name) => name !== modelName));
}
