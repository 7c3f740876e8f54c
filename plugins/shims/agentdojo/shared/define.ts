/**
 * The frame every AgentDojo suite shim shares (`agentdojo_<suite>`): the suite's environment as the state, loaded
 * from the dumped environment text the scenario holds (environment.ts) or given as JSON, its tools under
 * AgentDojo's names with the JSON Schema pydantic gives them, and each call answered as AgentDojo's runtime
 * answers it: the return value as `tool_result_to_str` prints it (tool-output.ts), or an exception as
 * `"{type}: {message}"` with the state unchanged.
 */
import { defineShim, shimError, type Json, type Shim, type ShimAction, type ShimCallContext } from '../../../../core/shim.ts';
import { PyError } from './python.ts';
import { toolResultToStr } from './tool-output.ts';
import { loadEnvironment } from './environment.ts';
import { schemaOf, titleOf, type PyType } from './types.ts';
import { validateArguments } from './arguments.ts';

/** One parameter of a tool, as its Python signature and docstring give it. */
export interface ToolParam {
  name: string;
  type: PyType;
  /** The docstring's `:param name:` text. */
  description: string;
  /** The signature's default; absent for a required parameter. */
  default?: Json;
}

/** A tool's Python body: the environment and the validated arguments in, the return value (and a new environment when it changed one) out; raises `PyError`. */
export type ToolRun<E> = (env: E, args: Record<string, unknown>, context?: ShimCallContext) => { result: unknown; env?: E };

/** An AgentDojo tool: the function's name, docstring summary, parameters, return type and body. */
export interface AgentDojoTool<E> {
  name: string;
  /** The docstring's short description, as `make_function` takes it (`None` written `null`). */
  description: string;
  params: readonly ToolParam[];
  returns: PyType;
  /** Reads only: the conformance suite holds it to changing nothing. */
  readOnly?: boolean;
  /** Sends data out of the world's trust boundary (a message to someone outside, a web post). */
  egress?: ShimAction['egress'];
  /** pydantic's schema itself, where `params` cannot write it (an enum's `$defs`, `list[dict]`'s `additionalProperties: true`). */
  parameters?: Record<string, Json>;
  run: ToolRun<E>;
}

/** A whole suite: its shim name, the environment model and the tools, in AgentDojo's order. */
export interface AgentDojoSuiteDefinition<E> {
  /** AgentDojo's suite name (`banking`); the shim is `agentdojo_<suite>`. */
  suite: string;
  description: string;
  environment: PyType;
  /**
   * The validators the environment's models run after their fields, on the loaded environment (workspace's
   * Inbox keys its mail by id and lists its contacts): the state is what this returns. Absent: the loaded fields.
   */
  load?: (environment: Json) => E;
  tools: ReadonlyArray<AgentDojoTool<E>>;
}

/** pydantic's `model_json_schema()` of a tool's input model, as AgentDojo offers it to the model. */
export function toolSchema(tool: Pick<AgentDojoTool<unknown>, 'name' | 'params'>): Record<string, Json> {
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  for (const param of tool.params) {
    const schema: Record<string, Json> = { ...schemaOf(param.type), ...(param.default !== undefined ? { default: param.default } : {}), description: param.description, title: titleOf(param.name) };
    // pydantic writes each field's keys sorted (the properties keep the signature's order).
    properties[param.name] = Object.fromEntries(Object.entries(schema).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (param.default === undefined) required.push(param.name);
  }
  return { properties, ...(required.length ? { required } : {}), title: `Input schema for \`${tool.name}\``, type: 'object' };
}

// Loading the environment text is the costly part of starting a task: the same text (a suite's default world,
// one attack's world) starts many tasks, and the loaded state is never mutated. Keyed by the text, then by the
// injections: one key of both stringified the whole text again for every task (a replay's profile showed it).
const MAX_TEXTS = 8;
const MAX_CACHED = 64;
const loaded = new Map<string, Map<string, Json>>();
function cachedEnvironment(seed: EnvironmentSeed, environment: PyType, load: (environment: Json) => Json = (env) => env): Json {
  let byInjections = loaded.get(seed.environment_text);
  if (!byInjections) {
    if (loaded.size >= MAX_TEXTS) loaded.delete(loaded.keys().next().value!);
    loaded.set(seed.environment_text, (byInjections = new Map()));
  }
  const key = JSON.stringify(seed.injections ?? {});
  let state = byInjections.get(key);
  if (state === undefined) {
    state = deepFreeze(load(loadEnvironment(seed.environment_text, seed.injections ?? {}, environment)));
    if (byInjections.size >= MAX_CACHED) byInjections.delete(byInjections.keys().next().value!);
    byInjections.set(key, state);
  }
  return state;
}

/**
 * A suite's `initial_state`: the environment text as the reference dumps it, with its `str.format` fields, and
 * each field's text (a `{{injection:<name>}}` vector in a scenario, rendered by the engine before the shim sees it).
 */
export interface EnvironmentSeed {
  environment_text: string;
  injections?: Record<string, string>;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const entry of Object.values(value)) deepFreeze(entry);
  }
  return value;
}

/** The shim of an AgentDojo suite (`agentdojo_<suite>`). */
export function defineAgentDojoSuite<E extends Json>(definition: AgentDojoSuiteDefinition<E>): Shim<E> {
  const tools = new Map(definition.tools.map((tool) => [tool.name, tool as AgentDojoTool<unknown>]));
  return defineShim<E>({
    name: `agentdojo_${definition.suite}`,
    description: definition.description,
    actions: definition.tools.map((tool) => ({
      name: tool.name, description: tool.description, parameters: tool.parameters ?? toolSchema(tool), validatesArguments: true, ...(tool.readOnly ? { readOnly: true } : {}), ...(tool.egress !== undefined ? { egress: tool.egress } : {}),
    })),
    initialStateSchema: {
      description: `AgentDojo's ${definition.suite} environment: { environment_text, injections } (the text its environment.yaml dumps to, with str.format fields, and each field's text, a {{injection:<name>}} vector), loaded as the reference loads it; or the environment itself as JSON.`,
      type: 'object',
    },
    initialState(seed) {
      if (seed && typeof seed === 'object' && typeof (seed as EnvironmentSeed).environment_text === 'string') return cachedEnvironment(seed as EnvironmentSeed, definition.environment, definition.load) as E;
      if (seed && typeof seed === 'object') return deepFreeze(seed) as E;
      throw new Error(`agentdojo_${definition.suite}: the scenario gives no initial_state (the suite's environment text)`);
    },
    call(action, params, state, context) {
      const tool = tools.get(action);
      if (!tool) return shimError(state, 'not_found', `ToolNotFoundError: The requested function \`${action}\` is not available.`);
      try {
        const outcome = tool.run(state, validateArguments(`Input schema for \`${tool.name}\``, tool.params, params ?? {}), context);
        return { result: toolResultToStr(outcome.result, tool.returns), state: (outcome.env as E | undefined) ?? state };
      } catch (error) {
        if (error instanceof PyError) return shimError((error.partial as E | undefined) ?? state, error.type, error.text);
        throw error;
      }
    },
  });
}
