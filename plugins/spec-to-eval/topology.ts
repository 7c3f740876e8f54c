/**
 * Agent topology lines (service-spec.md "Markdown requirements for spec-to-eval", rule 5):
 * `**AgentName:** writes to [X], reads from [Y]`, each bracket holding one or more comma-separated channels.
 *
 * Forgiving where documents differ: the clauses may come in either order, be joined by `,`, `;` or `and`, end
 * with a full stop, and `[]`/`[none]` means no channels; a line with only one clause is accepted with a
 * warning. A line that starts like a topology line but breaks the pattern (no brackets, an empty item, an
 * unknown verb, trailing words) is a pitfall.
 */
import type { TopologyNode } from '../../core/domain/scenario.ts';
import type { LabelLine } from './labels.ts';
import { MAX_NAME_LENGTH } from './labels.ts';
import type { FindingLog } from './pitfalls.ts';
import { PITFALL, WARNING } from './pitfalls.ts';

/** The scenario schema's limit on topology nodes. */
export const MAX_TOPOLOGY_NODES = 100;

const PATTERN_HINT = 'follow the pattern **AgentName:** writes to [X], reads from [Y]';
const CLAUSE = /^(writes?\s+to|reads?\s+from)\s*\[([^[\]]*)\]\s*/i;
const JOINER = /^(?:,\s*and\b|,|;|\band\b)\s*/i;
const NOTHING = new Set(['', 'none', 'nothing', '-', 'n/a', 'na']);

/** True when a label's value starts like a topology line (`writes to…`, `reads from…`). */
export function looksLikeTopology(line: LabelLine): boolean {
  return /^(?:writes?|reads?)\b/i.test(line.value);
}

type Parsed = { writes?: string[]; reads?: string[] } | { error: string };

/** Parses the value of one topology line; regexes here read the text of one label, never raw Markdown. */
export function parseTopologyValue(value: string): Parsed {
  let rest = value.trim().replace(/\.\s*$/, '');
  const result: { writes?: string[]; reads?: string[] } = {};
  while (rest.length > 0) {
    const clause = CLAUSE.exec(rest);
    if (!clause) {
      if (/^(?:writes?\s+to|reads?\s+from)\b/i.test(rest)) return { error: `"${rest.slice(0, 60)}" lists its channels without square brackets` };
      return { error: `"${rest.slice(0, 60)}" is not a "writes to [...]" or "reads from [...]" clause` };
    }
    const kind = clause[1].toLowerCase().startsWith('w') ? 'writes' : 'reads';
    if (result[kind]) return { error: `"${kind}" is given twice` };
    const raw = clause[2].trim();
    const items = NOTHING.has(raw.toLowerCase()) ? [] : raw.split(',').map((item) => item.trim());
    if (items.some((item) => item.length === 0)) return { error: `the list [${raw}] has an empty item` };
    const tooLong = items.find((item) => item.length > MAX_NAME_LENGTH);
    if (tooLong) return { error: `the channel "${tooLong.slice(0, 40)}…" is longer than ${MAX_NAME_LENGTH} characters` };
    result[kind] = items;
    rest = rest.slice(clause[0].length);
    const joiner = JOINER.exec(rest);
    if (joiner) rest = rest.slice(joiner[0].length);
    else if (rest.length > 0) return { error: `unexpected text "${rest.slice(0, 40)}" after the ${kind} clause` };
  }
  if (!result.writes && !result.reads) return { error: 'no "writes to" or "reads from" clause' };
  return result;
}

/**
 * Reads the topology from label lines. In a section titled "Topology" every label line must be a topology
 * line; elsewhere only lines whose value starts with "writes"/"reads" are.
 */
export function readTopology(lines: Array<{ label: LabelLine; strict: boolean }>, log: FindingLog): TopologyNode[] {
  const nodes: TopologyNode[] = [];
  const byAgent = new Map<string, TopologyNode>();
  for (const { label, strict } of lines) {
    if (!strict && !looksLikeTopology(label)) continue;
    if (!label.separated) {
      log.pitfall(PITFALL.malformedTopology, label.line, `the agent name "${label.name}" has no colon after it; ${PATTERN_HINT}`);
      continue;
    }
    if (label.name.length > MAX_NAME_LENGTH) {
      log.pitfall(PITFALL.malformedTopology, label.line, `the agent name is longer than ${MAX_NAME_LENGTH} characters`);
      continue;
    }
    const parsed = parseTopologyValue(label.value);
    if ('error' in parsed) {
      log.pitfall(PITFALL.malformedTopology, label.line, `topology line for "${label.name}": ${parsed.error}; ${PATTERN_HINT}`);
      continue;
    }
    if (!parsed.writes || !parsed.reads) {
      log.warn(WARNING.topologyPartial, label.line, `"${label.name}" has no "${parsed.writes ? 'reads from' : 'writes to'}" clause; taken as none`);
    }
    const existing = byAgent.get(label.name);
    if (existing) {
      log.warn(WARNING.duplicateAgent, label.line, `"${label.name}" appears twice in the topology; its channels are merged`);
      existing.writes = [...new Set([...existing.writes, ...(parsed.writes ?? [])])];
      existing.reads = [...new Set([...existing.reads, ...(parsed.reads ?? [])])];
      continue;
    }
    const node: TopologyNode = { agent: label.name, writes: parsed.writes ?? [], reads: parsed.reads ?? [] };
    byAgent.set(label.name, node);
    nodes.push(node);
  }
  if (nodes.length > MAX_TOPOLOGY_NODES) {
    const extra = lines.find(({ label }) => label.name === nodes[MAX_TOPOLOGY_NODES].agent)?.label.line ?? 1;
    log.pitfall(PITFALL.topologyTooLarge, extra, `the topology has ${nodes.length} agents; a scenario holds at most ${MAX_TOPOLOGY_NODES}`);
  }
  return nodes;
}
