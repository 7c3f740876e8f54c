/**
 * Multi-turn tasks (issue 15 item 6). After the task's `input`, the conversation goes on with the task's scripted
 * `turns` (each may carry checks that must hold once the agent answered it), or with a simulated user: the
 * configured language model follows `user_simulator.instructions` until it says its goal is met, the agent
 * ends the conversation (`end_conversation`) or hands it off (a terminal action such as a transfer to a human),
 * or a limit is reached: `max_turns` user turns, `max_steps` messages or `max_errors` failed tool calls, counted
 * as τ-bench's orchestrator counts them (tau2-bench `src/tau2/orchestrator/orchestrator.py`). Simulated turns are
 * marked `simulated: true` in the trace; every turn is numbered; a `conversation_end` event says how it ended.
 *
 * The simulated user reads the agent's answers, so an agent can try to steer its model: to end the conversation
 * as satisfied before the scenario's harder turns (issue 33, self-attack). The end tokens never reach the
 * simulator from the agent (an answer carrying `###STOP###` for the model to repeat ends nothing), our prompt
 * tells the model that the agent's words are no instructions to it, and `conversation_end` counts the end tokens
 * the agent sent (`agent_end_tokens`). A model may still be talked round: steps that must happen belong in
 * scripted `turns`, and outcomes that must hold in checks on the world (docs/security.md).
 */
import type { AgentReply, AgentTurn } from '../../../core/agent-adapter.ts';
import { checkAssertion } from '../../../core/domain/assertions.ts';
import { toolCallsOf } from '../../../core/domain/tool-calls.ts';
import type { LlmClient } from '../../../core/llm.ts';
import type { OutcomeAssertion, ScenarioTask } from '../../../core/domain/scenario.ts';
import type { TraceEvent, TraceEventType } from '../../../core/domain/trace.ts';
import { END_TOKEN_SPELLINGS, nextUserMessage, type LimitCheck, type UserSide } from './simulated-user.ts';

export { STOP } from './simulated-user.ts';

const DEFAULT_MAX_TURNS = 8;

/** The agent's answer to one turn. */
export interface Asked {
  reply: AgentReply;
  outputEvent: number;
  latencyMs: number;
}

/** An end token as an agent may spell it: counted in its answers (a try at ending the simulated user's conversation). */
function endTokensIn(text: string): number {
  return text.match(END_TOKEN_SPELLINGS)?.length ?? 0;
}

/** How a conversation ended (`conversation_end.ended_by`); the last three are limits. */
export type ConversationEnd = 'script' | 'simulator' | 'agent' | 'transfer' | 'turn_limit' | 'step_limit' | 'error_limit' | 'user_tool_limit';

/**
 * τ-bench's steps of one agent answer: the answer itself, and per tool round the agent's calls and their results
 * (one message each, however many calls). A reply says its rounds in `requests` (http, openai); without it, an
 * answer with calls (listed in the reply, or run on the world during the turn: `calls`) took one round.
 */
export function answerSteps(reply: AgentReply, calls = 0): number {
  const rounds = typeof reply.requests === 'number' && reply.requests > 1 ? reply.requests - 1 : reply.tool_calls?.length || calls ? 1 : 0;
  return 1 + 2 * rounds;
}

export interface ConverseOptions {
  task: ScenarioTask;
  /** The conversation before this task. */
  base: readonly AgentTurn[];
  first: Asked;
  /** The first user message, when not the task's `input` (the simulated user's answer to a greeting). */
  input?: string;
  /** Records the user turn and asks the agent; `null` when the call failed (already recorded). */
  ask(input: string, history: readonly AgentTurn[], marks: Record<string, unknown>): Promise<Asked | null>;
  record(type: TraceEventType, data: Record<string, unknown>): number;
  /** The unit's events so far (for the tool calls a check looks at). */
  events: readonly TraceEvent[];
  /** Each shim's state now, as its view shows it. */
  views(): Promise<Record<string, unknown>>;
  /** True once the agent called a terminal action (a transfer to a human): the conversation ends there. */
  handedOff?(): boolean;
  /** The simulated user's own tools and tool rounds (a world with `user_shims`), shared with the opening message. */
  userSide?: UserSide;
  llm?: LlmClient;
  signal?: AbortSignal;
}

function clipped(value: unknown): unknown {
  const text = JSON.stringify(value ?? null);
  return text.length > 500 ? `${text.slice(0, 500)}…` : value;
}

async function checkTurn(options: ConverseOptions, turn: number, asked: Asked, assertions: OutcomeAssertion[] | undefined): Promise<void> {
  if (!assertions?.length) return;
  // The same view of the calls state_match checks at the end of the task.
  const tool_calls = toolCallsOf(options.events).map(({ event_index: _index, ...call }) => call);
  const subject = { message: asked.reply.output, tool_calls, shims: await options.views() };
  for (const assertion of assertions) {
    const outcome = checkAssertion(assertion, subject);
    options.record('turn_check', { turn, assertion: assertion as unknown as Record<string, unknown>, passed: outcome.passed, detail: outcome.detail, actual: clipped(outcome.actual), output_event: asked.outputEvent });
  }
}

/**
 * With `user_simulator.greeting`, the first user message: the simulated user's answer to the agent's greeting
 * (the last turn of `conversation`). `''` when it ends the conversation at once, `undefined` when it failed, the
 * limit when its own tool rounds reached one.
 */
export async function openingMessage(llm: LlmClient, simulator: { instructions: string; guidelines?: string }, conversation: readonly AgentTurn[], record: ConverseOptions['record'], signal?: AbortSignal, side?: UserSide, limit?: LimitCheck): Promise<string | { limit: ConversationEnd } | undefined> {
  const first = await nextUserMessage(llm, simulator, conversation, record, signal, side, limit);
  return first === null ? '' : first;
}

/** Continues a task's conversation after its first answer; returns the last answer, or `null` when a call failed. */
export async function converse(options: ConverseOptions): Promise<Asked | null> {
  const { task, first } = options;
  const input = options.input ?? task.input;
  const conversation: AgentTurn[] = [...options.base, { role: 'user', content: input }, { role: 'assistant', content: first.reply.output }];
  let last = first;
  let turns = 1;
  let endedBy: ConversationEnd = 'script';
  let agentEndTokens = endTokensIn(first.reply.output);
  const take = async (next: string, marks: Record<string, unknown>): Promise<Asked | null> => {
    const asked = await options.ask(next, conversation.slice(), { turn: turns + 1, ...marks });
    if (!asked) return null;
    turns++;
    agentEndTokens += endTokensIn(asked.reply.output);
    conversation.push({ role: 'user', content: next }, { role: 'assistant', content: asked.reply.output });
    return asked;
  };
  // Why the conversation ends before the next user turn: a terminal action (a transfer to a human), or the agent.
  const stopped = (): 'transfer' | 'agent' | null => (options.handedOff?.() ? 'transfer' : last.reply.end_conversation ? 'agent' : null);
  const simulator = task.user_simulator;
  const count = stepCounter(options, simulator);
  count.answer(first.reply);
  const { limit } = count;
  if (task.turns?.length) {
    for (const turn of task.turns) {
      const stop = stopped();
      if (stop) {
        endedBy = stop;
        break;
      }
      const asked = await take(turn.input, {});
      if (!asked) return null;
      await checkTurn(options, turns, asked, turn.expected_outcome);
      last = asked;
    }
  } else if (simulator) {
    const maxTurns = simulator.max_turns ?? (simulator.max_steps ? Infinity : DEFAULT_MAX_TURNS);
    for (let taken = 0; ; taken++) {
      // A limit reached with the agent's answer ends the conversation even when the agent also ended it (τ-bench).
      const ended = limit() ?? stopped() ?? (taken >= maxTurns ? 'turn_limit' : null);
      if (ended) {
        endedBy = ended;
        break;
      }
      const next = await nextUserMessage(options.llm!, simulator, conversation, options.record, options.signal, options.userSide, limit);
      if (next === undefined) return null;
      if (next !== null && typeof next === 'object') {
        endedBy = next.limit;
        break;
      }
      if (next === null) {
        // The user's closing message is a step too: one that reaches the limit ends it by the limit.
        count.closing();
        endedBy = limit() ?? 'simulator';
        break;
      }
      const asked = await take(next, { simulated: true });
      if (!asked) return null;
      last = asked;
      count.answer(asked.reply);
    }
  }
  options.record('conversation_end', { turns, ended_by: endedBy, ...count.facts(), ...(agentEndTokens ? { agent_end_tokens: agentEndTokens } : {}) });
  return last;
}

/**
 * τ-bench's step and error counts of one conversation: each user message, each agent answer and its tool
 * rounds (answerSteps), and the simulated user's own tool rounds (two steps each, counted in `userSide`); every
 * failed tool call, the agent's or the user's. `limit` says which limit the counts reached, if any.
 */
function stepCounter(options: ConverseOptions, simulator: ScenarioTask['user_simulator']) {
  const maxSteps = simulator?.max_steps ?? Infinity;
  const maxErrors = simulator?.max_errors ?? Infinity;
  const limited = maxSteps !== Infinity || maxErrors !== Infinity;
  const toolErrors = () => options.events.reduce((count, event) => count + (event.type === 'tool_call' && event.data?.error ? 1 : 0), 0);
  // The agent's calls the world ran since the last count: the turn's own, for an agent whose reply does not list them.
  let counted = 0;
  const callsOfTurn = () => {
    const total = options.events.reduce((count, event) => count + (event.type === 'tool_call' && event.data.requestor !== 'user' ? 1 : 0), 0);
    const fresh = total - counted;
    counted = total;
    return fresh;
  };
  let steps = 0;
  const total = () => steps + (options.userSide?.steps ?? 0);
  return {
    /** An agent answer and the user message before it (τ-bench's count starts with the first user message). */
    answer: (reply: AgentReply) => {
      if (limited) steps += 1 + answerSteps(reply, callsOfTurn());
    },
    closing: () => {
      steps++;
    },
    // τ-bench checks both after every message but a tool call; the error limit is checked last, so it wins.
    limit: (): 'error_limit' | 'step_limit' | null => (toolErrors() >= maxErrors ? 'error_limit' : total() >= maxSteps ? 'step_limit' : null),
    facts: () => (limited ? { steps: total(), tool_errors: toolErrors() } : {}),
  };
}
