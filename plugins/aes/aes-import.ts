/**
 * AES v1.4 → scenario (api-contract.md, "AES v1.4 scenarios"): the reference implementation's documents
 * (`{aes_version: 1.4, metadata, industry, workflow: {nodes, edges}}`) become native scenarios on load.
 * - `workflow.nodes` become tasks in edge order: a stable topological sort (ties keep document order);
 *   nodes on a cycle follow in document order, edges naming unknown nodes are ignored; both are reported.
 * - `expected_outcome` becomes `expected` (`plugins/aes/aes-expected.ts`): prose becomes a `rubric` scored by
 *   `llm_judge`, which reports unmeasured when no LLM provider is configured; real patterns stay checkable.
 * - `metadata.id` → `id` (sanitised to the id pattern), `metadata.name` → `title`, industry and use case from
 *   the catalog folder (`industries/<industry>/scenarios/<use_case>/x.json`) or the document,
 *   `policy_ref` from `standards_registry` and `compliance_level`, and "no agent" (`{"adapter": "none"}`): the
 *   document names none, so submission asks for one (`agent`: a registry name or a spec).
 */
import type { AgentSpec, OutcomeAssertion, Scenario, ScenarioTask, TopologyNode } from '../../core/domain/scenario.ts';
import { outcomesToExpected, type AesOutcome } from './aes-expected.ts';
import { toolKey } from '../../core/domain/tool-names.ts';
import { orderWorkflow } from './workflow-order.ts';
import { NO_AGENT_ADAPTER } from '../../core/domain/agent-target.ts';

/** The `source`/`format` name of normalised AES documents. */
export const AES_FORMAT = 'aes-1.4';

/** The parts of an AES v1.4 document the normalisation reads (checked first against `plugins/aes/schema.ts`). */
export interface AesDocument {
  aes_version: number | string;
  description?: string;
  industry?: string;
  use_case?: string;
  metadata: {
    id: string;
    name: string;
    compliance_level?: string;
    standards_registry?: string[];
    tags?: string[];
    industry?: string;
    use_case?: string;
    description?: string;
    agent_topology?: Record<string, { writes?: string[]; reads?: string[] }>;
  };
  workflow: {
    nodes: Array<{ id: string; task_description: string; required_tools?: string[]; expected_outcome?: AesOutcome[] }>;
    edges?: Array<{ from: string; to: string; condition?: string }>;
  };
  policies?: Record<string, unknown>;
  /** World simulators to mount (v1.4), by the reference implementation's keys or ours. */
  enabled_shims?: string[];
  initial_state?: Record<string, unknown>;
}

/**
 * The reference implementation's shim keys that have a counterpart here (docs/shims.md). Its other keys (git,
 * slack, terminal, browser, …) have none: such a scenario is refused at submission naming the shim.
 */
export const AES_SHIM_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  database: 'sql',
  stripe: 'payments',
  support: 'tickets',
  jira: 'tickets',
  api: 'http_api',
  erp: 'orders',
});

/** Our name for an AES shim key. */
export function shimNameOf(key: string): string {
  const name = key.trim().toLowerCase();
  return Object.hasOwn(AES_SHIM_ALIASES, name) ? AES_SHIM_ALIASES[name] : name;
}

/**
 * A tool named in an AES node: `shim.action`, `shim__action`, or the reference implementation's
 * `<shim>_<action>` (`database_query`), as `shim.action` when its shim is enabled; otherwise as written.
 */
function toolNameOf(tool: string, shims: readonly string[]): string {
  const key = toolKey(tool);
  if (key && shims.includes(shimNameOf(key.shim))) return `${shimNameOf(key.shim)}.${key.action}`;
  const cut = tool.indexOf('_');
  if (cut > 0 && shims.includes(shimNameOf(tool.slice(0, cut)))) return `${shimNameOf(tool.slice(0, cut))}.${tool.slice(cut + 1)}`;
  return tool;
}

export interface AesNormalizeOptions {
  /** Where the document was read from: its folders give the industry and use case. */
  path?: string;
}

/** The scenario built from an AES document, and what the conversion had to work around. */
export interface AesConversion {
  scenario: Scenario;
  warnings: string[];
}

const ID_LIMIT = 128;
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Turns any string into an id matching `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`, or `fallback` when nothing is left. */
export function sanitizeId(raw: string, fallback: string): string {
  if (ID_PATTERN.test(raw)) return raw;
  const cleaned = raw
    // Hyphens next to a replaced run are absorbed: `child-(amber` → `child-amber`.
    // Leading hyphens are taken only from the start of their run: from each of them, a long run was quadratic.
    .replace(/(?:(?<!-)-+)?[^A-Za-z0-9._-]+-*/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, ID_LIMIT)
    .replace(/[-.]+$/, '');
  return cleaned || fallback;
}

/** `"Marketing and Advertising"` → `"marketing_and_advertising"`: the form of the catalog's industry folders. */
export function slugify(text: string | undefined): string {
  return (text ?? '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 200);
}

/** Industry and use case from a path shaped like the AES catalog: `…/<industry>/scenarios/[<use_case>/]<file>`. */
export function locateInCatalog(path: string | undefined): { industry?: string; use_case?: string } {
  if (!path) return {};
  const parts = path.split(/[\\/]+/).filter(Boolean);
  const at = parts.lastIndexOf('scenarios');
  if (at < 1) return {};
  // Folder names are kept as they are on disk when already slug-like (`e-commerce_order_management`).
  const folder = (name: string) => (/^[a-z0-9][a-z0-9_-]{0,199}$/.test(name) ? name : slugify(name) || undefined);
  const industry = folder(parts[at - 1]);
  // A use-case folder exists when the file sits two levels below `scenarios/`.
  const use_case = at + 2 < parts.length ? folder(parts[at + 1]) : undefined;
  return { industry, use_case };
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function stringList(values: unknown, max = 100): string[] {
  const list: string[] = [];
  if (!Array.isArray(values)) return list;
  // A loop rather than filter and map: this runs several times per file, 5,000 files at start (issue 36).
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const trimmed = value.trim();
    if (trimmed.length > 0) list.push(trimmed.slice(0, max));
  }
  return list;
}

function topologyOf(document: AesDocument): TopologyNode[] {
  const topology = document.metadata.agent_topology;
  if (!topology || typeof topology !== 'object') return [];
  return Object.entries(topology)
    .filter(([agent]) => agent.trim().length > 0)
    .slice(0, 100)
    .map(([agent, channels]) => ({ agent: agent.trim().slice(0, 200), writes: stringList(channels?.writes, 200), reads: stringList(channels?.reads, 200) }));
}

function tagsOf(document: AesDocument, standards: string[]): string[] {
  const tags = new Set(stringList(document.metadata.tags));
  for (const standard of standards) tags.add(standard);
  for (const name in document.policies ?? {}) if (Object.hasOwn(document.policies!, name) && document.policies![name] === true) tags.add(name);
  return [...tags].slice(0, 100);
}

/**
 * An AES document names no agent: the scenario gets "no agent" (`{"adapter": "none"}`), which submission
 * refuses unless the request gives one, instead of a placeholder reply that would be scored as an answer.
 */
function noAgent(): AgentSpec {
  return { adapter: NO_AGENT_ADAPTER };
}

/** AES modes as assertion modes (`exact` is `equals`). */
function assertionMode(mode: string | undefined): OutcomeAssertion['mode'] {
  if (mode === 'regex' || mode === 'numerical_tolerance') return mode;
  return 'equals';
}

/** A state or tool-call outcome (with a world, state_match checks it rather than the reply). */
function isWorldOutcome(outcome: AesOutcome): boolean {
  return typeof outcome?.target === 'string' && (outcome.target.trim().startsWith('shim:') || outcome.target.trim() === 'tool_calls');
}

function buildTasks(document: AesDocument, title: string, warnings: string[], shims: readonly string[] = []): ScenarioTask[] {
  const nodes = document.workflow.nodes;
  if (nodes.length === 0) {
    // Two published files have an empty workflow; the scenario's own description is then the one task.
    warnings.push('the workflow has no nodes; the scenario description became its only task');
    const input = document.description || document.metadata.description || title;
    return [{ id: 'task-1', input, expected: { rubric: `The response handles the scenario as described: ${input}` }, metrics: [{ id: 'llm_judge' }] }];
  }
  const { order, warnings: orderWarnings } = orderWorkflow(nodes.map((node) => node.id), document.workflow.edges ?? []);
  warnings.push(...orderWarnings);
  const used = new Set<string>();
  return order.map((index, position) => {
    const node = nodes[index];
    let id = sanitizeId(node.id, `task-${position + 1}`);
    for (let suffix = 2; used.has(id); suffix += 1) id = `${sanitizeId(node.id, 'task').slice(0, ID_LIMIT - 6)}-${suffix}`;
    used.add(id);
    // With a world, state and tool-call outcomes are assertions state_match checks; the rest stays `expected`.
    const outcomes = Array.isArray(node.expected_outcome) ? node.expected_outcome : [];
    // Without a world (every published file) no outcome is a world outcome: no filtering per node.
    const assertions: OutcomeAssertion[] = shims.length === 0 ? [] : outcomes.filter(isWorldOutcome).map((outcome) => {
      const target = outcome.target!.trim();
      return {
        target: target.startsWith('shim:') ? `shim:${shimNameOf(target.slice(5))}` : target,
        ...(outcome.property ? { property: outcome.property } : {}),
        expected: outcome.expected,
        mode: assertionMode(outcome.mode),
        ...(typeof outcome.tolerance === 'number' ? { tolerance: outcome.tolerance } : {}),
      };
    });
    const messageOutcomes = shims.length === 0 ? outcomes : outcomes.filter((outcome) => !isWorldOutcome(outcome));
    const expected = outcomesToExpected(messageOutcomes) ?? (assertions.length ? undefined : { rubric: `The response accomplishes the task: ${node.task_description}` });
    const metrics = [];
    if (expected && (expected.equals !== undefined || expected.contains !== undefined || expected.regex !== undefined || expected.json_schema !== undefined)) metrics.push({ id: 'task_success' });
    if (expected?.rubric !== undefined) metrics.push({ id: 'llm_judge' });
    // Two literals rather than a spread: the same keys in the same order, without an object per task to spread.
    const task: ScenarioTask = expected ? { id, input: node.task_description, expected, metrics } : { id, input: node.task_description, metrics };
    const tools = stringList(node.required_tools, 200);
    if (shims.length > 0) {
      if (tools.length) {
        task.required_tools = tools.map((tool) => toolNameOf(tool, shims));
        metrics.push({ id: 'tool_use' });
      }
      if (assertions.length) {
        task.expected_outcome = assertions;
        metrics.push({ id: 'state_match' });
      }
    } else if (tools.length) task.tools = tools;
    return task;
  });
}

/** Converts a structurally valid AES v1.4 document (see `aesSchema`) into a scenario candidate. */
export function aesToScenario(document: AesDocument, options: AesNormalizeOptions = {}): AesConversion {
  const warnings: string[] = [];
  const { metadata } = document;
  const location = locateInCatalog(options.path);
  const title = truncate(metadata.name.trim() || metadata.id, 500);
  const standards = stringList(metadata.standards_registry);
  const level = metadata.compliance_level?.trim() || 'Standard';
  const description = document.description ?? metadata.description;
  const scenario: Scenario = {
    id: sanitizeId(metadata.id, 'aes-scenario'),
    title,
    ...(description ? { description: truncate(description, 20000) } : {}),
    industry: location.industry ?? (slugify(document.industry ?? metadata.industry) || 'general'),
    use_case: location.use_case ?? (slugify(metadata.use_case ?? document.use_case) || 'general'),
    tags: tagsOf(document, standards),
    policy_ref: truncate(`${standards.length ? standards.join(', ') : 'NIST AI 100-1'} (AES ${level})`, 500),
    agent: noAgent(),
    topology: topologyOf(document),
    tasks: [],
    source: AES_FORMAT,
  };
  const shims = [...new Set(stringList(document.enabled_shims, 100).map(shimNameOf))];
  if (shims.length) {
    scenario.enabled_shims = shims;
    const state = document.initial_state && typeof document.initial_state === 'object' ? document.initial_state : {};
    const initial = Object.fromEntries(Object.entries(state).map(([key, value]) => [shimNameOf(key), value]));
    if (Object.keys(initial).length) scenario.initial_state = initial;
    const renamed = stringList(document.enabled_shims, 100).filter((key) => shimNameOf(key) !== key.trim());
    if (renamed.length) warnings.push(`shim keys ${renamed.map((key) => `${key} → ${shimNameOf(key)}`).join(', ')} use this service's names`);
  }
  scenario.tasks = buildTasks(document, title, warnings, shims);
  if (scenario.id !== metadata.id) warnings.push(`the id "${metadata.id.slice(0, 200)}" became "${scenario.id}"`);
  return { scenario, warnings };
}
