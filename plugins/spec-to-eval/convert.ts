/**
 * The conversion of one PRD (service-spec.md "Markdown requirements for spec-to-eval"): parse, split into
 * sections, read the title, labels and topology, extract the tasks (or synthesise them through the language
 * model), and build validated scenario stubs. Every pitfall found is reported at once, with its line.
 */
import type { LlmClient } from '../../core/llm.ts';
import type { Scenario, TopologyNode } from '../../core/domain/scenario.ts';
import { parseSpec, lineOf, textOf, overlongDelimiterRuns, MAX_DELIMITERS_PER_BLOCK } from './parse.ts';
import { allSections, buildSections, findTasksSections, isTopologyTitle, normalizeTitle, type Section } from './sections.ts';
import { collectLabelLines, collectPlainMetadataLines, readPrdLabels, MAX_NAME_LENGTH, type LabelLine } from './labels.ts';
import { readTopology } from './topology.ts';
import { extractTasks, type DraftTask } from './tasks.ts';
import { synthesiseTasks, DEFAULT_LLM_TIMEOUT_MS } from './llm-fallback.ts';
import { enrichDrafts } from './llm-enrich.ts';
import { CONTRACT_METRICS } from './metrics-choice.ts';
import { buildScenarios, slugify, uniqueScenarioId, LIMITS } from './build.ts';
import { createFindingLog, capFindings, specParseFailed, PITFALL, WARNING, type Finding, type FindingLog } from './pitfalls.ts';

/** What a conversion may use besides the document. */
export interface ConvertOptions {
  /** The configured provider, for the fallback; without one a PRD without tasks is a 422. */
  llm?: LlmClient;
  /** Metric ids registered in this service (added to the contract's). */
  registeredMetrics?: Iterable<string>;
  /** Time limit per provider call in milliseconds. */
  llmTimeoutMs?: number;
  /** With a provider: let it propose the expectations and metrics a structured PRD leaves out (default true). */
  enrich?: boolean;
}

/** The 200 answer of `POST /api/v1/spec-to-eval` (api-contract.md). */
export interface ConversionResult {
  prd: { title: string; industry: string; use_case: string; topology: TopologyNode[] };
  scenarios: Scenario[];
  source: 'structured' | 'llm';
  warnings: Finding[];
}

const LLM_CONFIG_HINT = 'no language-model provider is configured for the fallback: set AEH_LLM_BASE_URL and AEH_LLM_MODEL (and AEH_LLM_API_KEY if the provider needs one)';
const DESCRIPTION_TITLES = new Set(['overview', 'summary', 'introduction', 'background', 'purpose', 'context', 'executive summary', 'problem statement']);
const DEFAULT_INDUSTRY = 'General';

interface TitleInfo {
  title: string;
  line: number;
}

function readTitle(root: Section, firstLine: number, log: FindingLog): TitleInfo | undefined {
  const h1s = allSections(root).filter((section) => section.depth === 1);
  const h1 = h1s[0];
  if (!h1) {
    log.pitfall(PITFALL.missingH1, firstLine, 'the document does not start with an H1 title; begin it with "# PRD: <product name>"');
    return undefined;
  }
  const before = root.content.length > 0 || (root.children[0] !== h1);
  if (before) log.warn(WARNING.contentBeforeH1, firstLine, 'content stands before the H1 title; the document should start with "# PRD: …"');
  for (const extra of h1s.slice(1)) log.warn(WARNING.extraH1, extra.line, `a second H1 ("${extra.title.slice(0, 60)}") is read as a section; the title is the first H1`);
  const prefixed = /^prd\s*(?::|[-–—](?=\s)|$)\s*/i.exec(h1.title);
  if (!prefixed) log.warn(WARNING.h1WithoutPrd, h1.line, `the H1 "${h1.title.slice(0, 60)}" does not start with "PRD:"; it is used as the title as it is`);
  let title = prefixed ? h1.title.slice(prefixed[0].length).trim() : h1.title;
  if (!title) {
    log.pitfall(PITFALL.emptyTitle, h1.line, 'the H1 has no title after "PRD:"; write "# PRD: <product name>"');
    return undefined;
  }
  if (title.length > LIMITS.title) {
    log.warn(WARNING.titleTruncated, h1.line, `the title is ${title.length} characters; it was cut to ${LIMITS.title}`);
    title = title.slice(0, LIMITS.title);
  }
  return { title, line: h1.line };
}

/** Label lines of every section outside the tasks sections, with whether the section is a topology section. */
function labelLinesOutside(root: Section, tasksSections: Section[]): Array<{ label: LabelLine; strict: boolean }> {
  const lines: Array<{ label: LabelLine; strict: boolean }> = [];
  const visit = (section: Section, strict: boolean) => {
    if (tasksSections.includes(section)) return;
    const topology = strict || isTopologyTitle(section.title);
    for (const label of collectLabelLines(section.content)) lines.push({ label, strict: topology });
    // Metadata written without bold (`Industry: Education`) is read too, with a warning, rather than lost.
    if (!topology) for (const label of collectPlainMetadataLines(section.content)) lines.push({ label, strict: false });
    for (const child of section.children) visit(child, topology);
  };
  visit(root, false);
  return lines.sort((a, b) => a.label.line - b.label.line);
}

function describe(root: Section): string | undefined {
  const h1 = allSections(root).find((section) => section.depth === 1);
  const overview = allSections(root).find((section) => section.depth >= 2 && DESCRIPTION_TITLES.has(normalizeTitle(section.title)));
  const prose = [...(h1?.content ?? []), ...(overview?.content ?? [])]
    .filter((node) => node.type === 'paragraph')
    .map((node) => textOf(node).split('\n').filter((line) => !/^\s*\S[^:]{0,40}:\s/.test(line) || line.length > 120).join(' ').trim())
    .filter(Boolean)
    .join('\n\n');
  return prose ? prose.slice(0, 2000) : undefined;
}

function fromFrontMatter(frontMatter: Record<string, string>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = frontMatter[key];
    if (value && value.length <= MAX_NAME_LENGTH) return value;
  }
  return undefined;
}

/** Lets the provider propose what the tasks leave out, unless there is none or the request said `enrich: false`. */
async function enrichIfAsked(drafts: DraftTask[], options: ConvertOptions, where: { title: string; line: number }, log: FindingLog): Promise<void> {
  if (!options.llm || options.enrich === false) return;
  await enrichDrafts(options.llm, drafts, { ...where, timeoutMs: options.llmTimeoutMs ?? DEFAULT_LLM_TIMEOUT_MS }, log);
}

/**
 * Converts a PRD into scenario stubs. Throws 422 `spec_parse_failed` with every pitfall, or 503 `unavailable`
 * when the language-model fallback's provider fails.
 */
export async function convertSpec(source: string, options: ConvertOptions = {}): Promise<ConversionResult> {
  const log = createFindingLog();
  const dense = overlongDelimiterRuns(source);
  if (dense.length) {
    throw specParseFailed(dense.map((line) => ({
      code: PITFALL.tooComplex,
      line,
      message: `the block starting here has more than ${MAX_DELIMITERS_PER_BLOCK} emphasis or link characters (* _ [ ]); split it with blank lines`,
    })));
  }
  const { tree, frontMatter, frontMatterLines } = parseSpec(source);
  const root = buildSections(tree);
  const firstLine = tree.children.length ? lineOf(tree.children[0]) : frontMatterLines + 1;
  const titleInfo = readTitle(root, firstLine, log);
  const tasksSections = findTasksSections(root);
  const firstTasksLine = tasksSections.length ? tasksSections[0].line : Number.POSITIVE_INFINITY;

  const outside = labelLinesOutside(root, tasksSections);
  const labels = readPrdLabels(outside.filter(({ label }) => label.line < firstTasksLine).map(({ label }) => label), log);
  const topology = readTopology(outside, log);
  const anchor = titleInfo?.line ?? firstLine;
  let industry = labels.industry ?? fromFrontMatter(frontMatter, 'industry', 'sector');
  let useCase = labels.useCase ?? fromFrontMatter(frontMatter, 'use_case', 'usecase');
  if (!industry && !log.pitfalls.some((p) => p.code === PITFALL.malformedIndustry)) {
    log.warn(WARNING.missingIndustry, anchor, `no **Industry:** label before the tasks; "${DEFAULT_INDUSTRY}" is used`);
  }
  industry ??= DEFAULT_INDUSTRY;

  const groups = tasksSections.map((section) => ({ section, drafts: extractTasks(section) }));
  let drafts = groups.flatMap((group) => group.drafts);
  for (const group of groups) {
    if (group.drafts.length === 0 && drafts.length > 0) log.warn(WARNING.emptyTasksSection, group.section.line, `the "${group.section.title}" section has no bullets, sub-headers or table rows; it was skipped`);
  }
  const fallbackReason = tasksSections.length === 0 ? 'has no Tasks or Test Cases section' : `has a "${tasksSections[0].title}" section without bullets, sub-headers or table rows`;
  const fallbackLine = tasksSections.length === 0 ? anchor : tasksSections[0].line;
  if (drafts.length === 0 && !options.llm) {
    log.pitfall(tasksSections.length === 0 ? PITFALL.noTasksSection : PITFALL.noStructuredTasks, fallbackLine, `the document ${fallbackReason}, and ${LLM_CONFIG_HINT}`);
  }
  if (log.pitfalls.length || !titleInfo) throw specParseFailed(log.pitfalls);

  const title = titleInfo.title;
  if (!useCase) log.warn(WARNING.missingUseCase, anchor, 'no **Use Case:** label before the tasks; the title is used');
  useCase ??= title.slice(0, MAX_NAME_LENGTH);

  let origin: ConversionResult['source'] = 'structured';
  let scenarioGroups: Array<{ name?: string; drafts: DraftTask[] }> = groups.filter((group) => group.drafts.length > 0).map((group) => ({ name: group.section.title, drafts: group.drafts }));
  if (drafts.length > 0) await enrichIfAsked(drafts, options, { title, line: groups.find((group) => group.drafts.length)?.section.line ?? anchor }, log);
  if (drafts.length === 0) {
    drafts = await synthesiseTasks(options.llm!, { markdown: source, title, reason: fallbackReason, line: fallbackLine, timeoutMs: options.llmTimeoutMs }, log);
    scenarioGroups = [{ drafts }];
    origin = 'llm';
  }

  const registered = new Set(options.registeredMetrics ?? []);
  const knownMetrics = new Set<string>([...CONTRACT_METRICS, ...registered]);
  const baseId = slugify(title, 100) || 'prd';
  const takenIds = new Set<string>();
  const description = describe(root);
  const scenarios = scenarioGroups.flatMap((group) => {
    const id = uniqueScenarioId(scenarioGroups.length > 1 ? `${baseId}-${slugify(group.name ?? '', 24) || 'tasks'}` : baseId, takenIds);
    return buildScenarios(group.drafts, {
      id,
      title,
      description,
      industry,
      useCase: useCase!,
      policyRef: (labels.policyRef ?? frontMatter.policy ?? `prd:${baseId}`).slice(0, 500),
      topology,
      source: origin === 'llm' ? 'llm' : 'spec-to-eval',
      knownMetrics,
      judgeAvailable: registered.has('llm_judge') && options.llm !== undefined,
    }, log);
  });
  return {
    prd: { title, industry, use_case: useCase, topology },
    scenarios,
    source: origin,
    warnings: capFindings(log.warnings),
  };
}
