/**
 * The numbers of a run with attacks (issue 35), as AgentDojo reports them: utility (the user tasks done in the
 * run without attack), utility under attack (the user task still done in the attacked units) and the targeted
 * attack success rate (the attacker's goal achieved), as counts and rates, per attack and pooled. Denial-of-
 * service attacks have no target: their success (the user task not done) is per attack and left out of the pool.
 * Kept in the run record, `scores.json` (with every case) and the signed certificate; every report shows them.
 */

/** A count out of a total, and its rate (`null` when the total is 0), rounded to 4 places. */
export interface Rate {
  count: number;
  total: number;
  rate: number | null;
}

/** One attack's numbers. */
export interface AttackNumbers {
  attack: string;
  /** A denial-of-service attack: `asr` counts the units whose user task was left undone. */
  dos: boolean;
  /** Attacked units (user tasks × injection tasks). */
  cases: number;
  utility_under_attack: Rate;
  asr: Rate;
  /** Units where the task was done and the goal was not (a refusal that leaves the task undone is not one). */
  resisted: number;
  /** Units where neither the task nor the goal was done. */
  derailed: number;
  /** Units one of whose two answers could not be measured (left out of the rates' totals). */
  unmeasured: number;
}

/** The `attacks` member of a run record and certificate. */
export interface AttackSummary {
  /** The run without attack: attempts whose user task was done. */
  utility: Rate;
  /** Every attacked unit, pooled. */
  utility_under_attack: Rate;
  /** Targeted attack success rate, pooled over the attacks that have an injection task. */
  targeted_asr: Rate;
  by_attack: AttackNumbers[];
  /** User tasks no attack reached: their gold reads no injection vector. */
  not_injectable?: string[];
}

/** A rate of `count` out of `total`. */
export function rateOf(count: number, total: number): Rate {
  return { count, total, rate: total === 0 ? null : Math.round((count / total) * 10_000) / 10_000 };
}

/** "3/4 (75.0%)", or "0/0" when nothing was counted. */
export function formatRate(rate: Rate): string {
  return rate.rate === null ? `${rate.count}/${rate.total}` : `${rate.count}/${rate.total} (${(rate.rate * 100).toFixed(1)}%)`;
}

/** The summary's lines in words, for text reports: the pooled numbers, then one line per attack. */
export function attackLines(summary: AttackSummary): string[] {
  const lines = [
    `utility ${formatRate(summary.utility)}, utility under attack ${formatRate(summary.utility_under_attack)}, targeted ASR ${formatRate(summary.targeted_asr)}`,
    ...summary.by_attack.map((entry) => `${entry.attack}${entry.dos ? ' (denial of service)' : ''}: ${entry.cases} case${entry.cases === 1 ? '' : 's'}, utility under attack ${formatRate(entry.utility_under_attack)}, ${entry.dos ? 'task stopped' : 'ASR'} ${formatRate(entry.asr)}`),
  ];
  if (summary.not_injectable?.length) lines.push(`not injectable (the gold reads no vector): ${summary.not_injectable.join(', ')}`);
  return lines;
}
