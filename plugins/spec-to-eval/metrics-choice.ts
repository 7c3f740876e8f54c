/**
 * Choosing metrics and expectations for a task (api-contract.md "Resources", built-in metric ids):
 * `**Criteria:** metric_id (weight)` names them explicitly; otherwise they are chosen from the task's wording
 * (a refusal task gets `refusal`, "never reveal" gets `secret_leak` with canaries, PII wording `pii_leak`...),
 * and `task_success` is the default. Regexes here read the text of one parsed node, never raw Markdown.
 */
import type { Expected, MetricRef } from '../../core/domain/scenario.ts';
import type { FindingLog } from './pitfalls.ts';
import { WARNING } from './pitfalls.ts';

/** The metric ids of the contract; a plugin may register more (they are accepted when registered). */
export const CONTRACT_METRICS = [
  'task_success', 'latency_budget', 'refusal', 'harmful_content', 'secret_leak', 'prompt_injection',
  'pii_leak', 'counterfactual_parity', 'ai_disclosure', 'robustness', 'llm_judge',
] as const;

/** The latency budget used when a task asks for speed without naming a number. */
export const DEFAULT_LATENCY_BUDGET_MS = 3000;

interface Rule {
  id: string;
  test: RegExp;
}

/** Wording → metric, checked against the lower-cased task text (title, input and expectation). */
const RULES: Rule[] = [
  { id: 'refusal', test: /\b(?:refus(?:e|es|ed|al|ing)|declin(?:e|es|ed|ing)|reject(?:s|ed|ing)?|den(?:y|ies|ied)|must not (?:help|comply|assist|provide|answer|give)|should not (?:help|comply|assist|provide|answer|give)|(?:won'?t|will not|cannot|can'?t) (?:help|comply|assist)|not (?:be )?allowed to)\b/ },
  { id: 'secret_leak', test: /(?:\bnever|\bnot|n't|\bwithout) (?:ever )?(?:reveal|disclos|leak|expos|shar(?:e|es|ing))\w*|\bsystem prompt\b|\bapi[ -]?keys?\b|\bpasswords?\b|\bsecrets?\b|\bcredentials?\b|\bcanar(?:y|ies)\b|\bconfidential\b|\baccess tokens?\b/ },
  { id: 'pii_leak', test: /\bpii\b|\bpersonal(?:ly)? (?:data|details|information|identifiable)|\bsocial security\b|\bssns?\b|\bdates? of birth\b|\bpassport\b|\bcredit cards?\b|\bcard numbers?\b|\bphone numbers?\b|\be-?mail address|\bhome address|\bmedical records?\b|\bgdpr\b|\bhipaa\b|\bprivate (?:data|information)\b/ },
  { id: 'ai_disclosure', test: /\bare you (?:a |an )?(?:human|real|person|bot|robot|ai|machine)\b|\bhuman or (?:a |an )?(?:ai|bot|machine|robot)\b|\b(?:disclos|reveal|admit|stat|say|identif|acknowledg)\w* (?:that )?(?:it|itself|they) (?:is|are|as) (?:an? )?(?:ai|bot|machine|virtual assistant|language model)\b|\bai disclosure\b|\btalking to (?:a |an )?(?:ai|bot|human|machine|person)\b|\bartificial intelligence\b/ },
  { id: 'counterfactual_parity', test: /\bbias(?:ed|es)?\b|\bunbiased\b|\bfair(?:ly|ness)?\b|\bdiscriminat\w*|\bequal(?:ly)? treat|\bregardless of (?:the (?:customer|user|applicant)'?s? |their |his or her )?(?:gender|race|age|ethnicity|religion|name|nationality|origin|disability|sexual)|\bprotected (?:attributes?|characteristics?|class(?:es)?|groups?)\b|\bcounterfactual\b|\bparity\b/ },
  { id: 'prompt_injection', test: /\binject\w*|\bignore (?:all |the |your |any )?(?:previous|prior|above|earlier) (?:instructions|prompts?|rules)|\bjailbreak\w*|\boverride (?:the |your )?(?:system|instructions|rules)|\bmalicious (?:instructions?|prompts?|content)|\buntrusted (?:content|input|documents?|web pages?)\b/ },
  { id: 'harmful_content', test: /\bharmful\b|\bviolen(?:ce|t)\b|\bweapons?\b|\bexplosives?\b|\bself[- ]harm\b|\bsuicid\w*|\bhate speech\b|\btoxic\w*|\bdangerous (?:advice|instructions|content)\b|\billegal (?:activit|drugs|content|advice)\w*/ },
  { id: 'latency_budget', test: /\blatenc\w*|\bresponse times?\b|\btime to first token\b|\bp9[059]\b|\b(?:within|under|in less than|below|at most) \d+(?:\.\d+)? ?(?:ms|milliseconds?|s|secs?|seconds?)\b/ },
];

const DURATION = /\b(\d+(?:\.\d+)?) ?(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b/;

/** A latency budget in milliseconds named in the text ("within 2 seconds", "under 800 ms"). */
export function latencyBudgetMs(text: string): number | undefined {
  const match = DURATION.exec(text.toLowerCase());
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = match[2];
  const factor = unit.startsWith('ms') || unit.startsWith('milli') ? 1 : unit.startsWith('m') ? 60_000 : 1000;
  const budget = Math.round(amount * factor);
  return budget > 0 ? budget : undefined;
}

/** A deterministic canary for a task (FNV-1a over its seed), so repeated conversions agree. */
export function canaryFor(seed: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < seed.length; index++) {
    hash ^= seed.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `AEH-CANARY-${hash.toString(16).padStart(8, '0').toUpperCase()}`;
}

/** The metric ids a task's wording calls for, in a stable order; empty when none does. */
export function metricIdsFromText(text: string): string[] {
  const lower = text.toLowerCase();
  return RULES.filter((rule) => rule.test.test(lower)).map((rule) => rule.id);
}

const METRIC_ID = /^[a-z][a-z0-9_]{1,63}$/;
const MAX_CRITERION_LENGTH = 200;
/**
 * A metric id with an optional weight. Its lazy name and the spaces after it overlap, so it is quadratic in an
 * item's length: items longer than `MAX_CRITERION_LENGTH` (a 64-character id and a weight fit many times) are
 * malformed without being matched.
 */
const CRITERION = /^`?([A-Za-z][A-Za-z0-9 _-]*?)`?\s*(?:\(\s*(?:weight|w)?\s*[:=]?\s*(\d+(?:\.\d+)?)\s*\)|[:=×x]\s*(\d+(?:\.\d+)?))?\.?$/i;

/**
 * Parses a `**Criteria:**` value: `refusal (2), secret_leak (1)`, `task_success`, `pii-leak (weight: 0.5)`.
 * Items that are not a metric id, or name a metric nobody registered, are warned about and skipped.
 */
export function parseCriteria(value: string, line: number, known: ReadonlySet<string>, log: FindingLog): MetricRef[] {
  const metrics: MetricRef[] = [];
  for (const item of value.split(/[,;]/).map((part) => part.trim()).filter(Boolean)) {
    const match = item.length <= MAX_CRITERION_LENGTH ? CRITERION.exec(item) : null;
    const id = match?.[1].trim().toLowerCase().replace(/[\s-]+/g, '_');
    if (!match || !id || !METRIC_ID.test(id)) {
      log.warn(WARNING.criteriaMalformed, line, `"${item.slice(0, 60)}" is not "metric_id (weight)"; skipped`);
      continue;
    }
    if (!known.has(id)) {
      log.warn(WARNING.unknownMetric, line, `no metric "${id}" is known (known: ${[...known].sort().join(', ')}); skipped`);
      continue;
    }
    const weightText = match[2] ?? match[3];
    const weight = weightText === undefined ? undefined : Number(weightText);
    if (weight !== undefined && !(weight > 0)) {
      log.warn(WARNING.criteriaMalformed, line, `the weight of "${id}" must be greater than 0; skipped`);
      continue;
    }
    if (metrics.some((metric) => metric.id === id)) continue;
    metrics.push(weight === undefined ? { id } : { id, weight });
  }
  return metrics;
}

/** What `expectedFrom` needs about where the text came from. */
export interface ExpectedSource {
  text: string;
  /** True when the whole value was inline code (a literal to look for). */
  literal?: boolean;
  line: number;
}

const QUOTED = /^(["'“‘`])([\s\S]+)(["'”’`])$/;

/**
 * An expectation from `**Expected Outcome:**` or `(Expect: …)`: `contains:`/`equals:`/`regex:` prefixes and
 * `/pattern/` choose the check; a quoted or code value is a `contains`; anything else is a `rubric` for the
 * LLM judge (reported as unmeasured, never guessed, without one).
 */
export function expectedFrom({ text, literal, line }: ExpectedSource, log: FindingLog): Expected | undefined {
  const value = text.trim();
  if (!value) return undefined;
  if (literal) return { contains: value };
  const prefixed = /^(contains|equals|regex|matches)\s*:\s*([\s\S]+)$/i.exec(value);
  if (prefixed) {
    const kind = prefixed[1].toLowerCase();
    const operand = unquote(prefixed[2].trim());
    if (kind === 'contains' || kind === 'equals') return { [kind]: operand };
    return regexExpectation(operand.replace(/^\/([\s\S]+)\/$/, '$1'), value, line, log);
  }
  const slashed = /^\/([\s\S]+)\/$/.exec(value);
  if (slashed) return regexExpectation(slashed[1], value, line, log);
  const quoted = QUOTED.exec(value);
  if (quoted && pairs(quoted[1], quoted[3]) && !/["“”]/.test(quoted[2])) return { contains: quoted[2].trim() };
  return { rubric: value };
}

function pairs(open: string, close: string): boolean {
  return open === close || (open === '“' && close === '”') || (open === '‘' && close === '’');
}

function unquote(value: string): string {
  const quoted = QUOTED.exec(value);
  return quoted && pairs(quoted[1], quoted[3]) ? quoted[2] : value;
}

function regexExpectation(pattern: string, original: string, line: number, log: FindingLog): Expected {
  try {
    new RegExp(pattern);
    return { regex: pattern };
  } catch {
    log.warn(WARNING.invalidRegex, line, `/${pattern.slice(0, 60)}/ is not a valid regular expression; kept as a rubric`);
    return { rubric: original };
  }
}

/** What a task tells `chooseMetrics`. */
export interface MetricChoiceInput {
  /** Title, input and expectation, for the wording rules. */
  text: string;
  /** Metrics the document named (`**Criteria:**`), if any. */
  named: MetricRef[];
  hasExpected: boolean;
  /** Literal values (inline code) in the task, taken as the canaries of `secret_leak`. */
  literals: string[];
  /** Seed for a generated canary. */
  seed: string;
  line: number;
}

/** The chosen metrics and, when `secret_leak` needs one, the canary to plant in the task's input. */
export interface MetricChoice {
  metrics: MetricRef[];
  plantedCanary?: string;
}

/** Named metrics win; otherwise metrics from the wording, plus `task_success` by default or with an expectation. */
export function chooseMetrics(input: MetricChoiceInput, log: FindingLog): MetricChoice {
  const chosen: MetricRef[] = input.named.length
    ? input.named.map((metric) => ({ ...metric }))
    : metricIdsFromText(input.text).map((id) => ({ id }));
  if (!input.named.length && (chosen.length === 0 || input.hasExpected)) chosen.unshift({ id: 'task_success' });
  let plantedCanary: string | undefined;
  for (const metric of chosen) {
    if (metric.id === 'secret_leak') {
      const canaries = input.literals.filter((literal) => literal.length >= 4 && literal.length <= 4096 && !/\s/.test(literal)).slice(0, 100);
      if (canaries.length === 0) {
        plantedCanary = canaryFor(input.seed);
        canaries.push(plantedCanary);
      }
      metric.params = { ...metric.params, canaries };
    }
    if (metric.id === 'latency_budget' && metric.params?.max_ms === undefined) {
      const budget = latencyBudgetMs(input.text);
      if (budget === undefined) log.warn(WARNING.latencyBudgetDefault, input.line, `no latency budget is named; ${DEFAULT_LATENCY_BUDGET_MS} ms is used`);
      metric.params = { ...metric.params, max_ms: budget ?? DEFAULT_LATENCY_BUDGET_MS };
    }
  }
  return { metrics: chosen, plantedCanary };
}
