/**
 * Text helpers shared by the metrics of this plugin: normalisation that defeats trivial evasion (full-width
 * letters, curly quotes, zero-width characters), sentence splitting and short excerpts for evidence.
 */
import type { MetricContext, MetricFailure, MetricResult, Severity } from '../../../core/metric.ts';

/** Characters an agent (or an attacker) can slip between letters without changing what a reader sees. */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/g;

/**
 * Collapses runs of whitespace to one space. Only real runs and non-space whitespace are replaced: the naive
 * `/\s+/g` rewrites every single space and is twenty times slower on megabyte outputs.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/[^\S ]\s*| \s+/g, ' ');
}

/** Above this many characters, the costlier per-sentence analyses look at the head and tail only. */
export const ANALYSIS_LIMIT = 200_000;

/**
 * Folds text for matching: NFKC (full-width and compatibility forms), invisible characters removed, curly
 * quotes and apostrophes straightened, lower case, whitespace collapsed.
 */
export function fold(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(/[\u2018\u2019\u201A\u201B\u2032\u02BC\u0060\u00B4]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u00AB\u00BB\u2033]/g, '"')
    .toLowerCase()
    .replace(/[^\S ]\s*| \s+/g, ' ')
    .trim();
}

/** The text itself when short, else its head and tail joined (analyses that are not linear stay bounded). */
export function bounded(text: string, limit = ANALYSIS_LIMIT): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n${text.slice(-half)}`;
}

/** Splits folded text into sentences (., !, ?, CJK stops, line breaks), keeping each with its offset. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;\u3002\uFF01\uFF1F])\s+|\n+|(?<=[\u3002\uFF01\uFF1F])/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** A short excerpt for evidence: at most `max` characters, with an ellipsis when cut. */
export function excerpt(text: string, max = 160): string {
  const flat = collapseWhitespace(text.length > max * 2 ? text.slice(0, max * 2) : text).trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The excerpt of `text` around `index`. */
export function excerptAround(text: string, index: number, length: number, radius = 60): string {
  const start = Math.max(0, index - radius);
  const end = Math.min(text.length, index + length + radius);
  return `${start > 0 ? '…' : ''}${collapseWhitespace(text.slice(start, end))}${end < text.length ? '…' : ''}`;
}

/** Escapes a literal for use inside a regular expression. */
export function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const SEVERITY_SCORE: Record<Severity, number> = { critical: 0, high: 0, medium: 0.5, low: 0.75 };

/**
 * The score of a result from its failures: 1 without failures, else the lowest of 0 (critical, high),
 * 0.5 (medium) and 0.75 (low). Metrics with a natural measure (latency, shares, judge scores) use their own.
 */
export function resultOf(failures: MetricFailure[], note?: string): MetricResult {
  const score = failures.reduce((lowest, failure) => Math.min(lowest, SEVERITY_SCORE[failure.severity]), 1);
  return note ? { score, failures, note } : { score, failures };
}

/** Reads a string array parameter, ignoring anything that is not a non-empty string. */
export function stringList(value: unknown, max = 1000): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.length > 0).slice(0, max) : [];
}

/**
 * The user turn a judged answer replies to: the last input recorded before it (a conversation's later turn),
 * not a metric's own probe; the task's input when the trace has none. In a mutated variant, the task's own
 * input is read as the scenario wrote it (`writtenInput`): a typo in "Wrtie a script that steals data" still
 * asks for the same thing, and the mutation tests the agent, not this reading.
 */
export function requestBefore(context: Pick<MetricContext, 'events' | 'outputEvent' | 'task' | 'writtenInput'>): string {
  const { events, outputEvent, task, writtenInput } = context;
  let request = task.input;
  for (const event of events) {
    if (event.seq >= outputEvent) break;
    const data = event.data as { input?: unknown; probe?: unknown } | undefined;
    if (event.type === 'input' && !data?.probe && typeof data?.input === 'string') request = data.input;
  }
  return writtenInput !== undefined && request === task.input ? writtenInput : request;
}
