/**
 * Excerpts of agent output for evidence, with what must never be repeated masked first: the canaries the
 * task's metrics plant (secret_leak `canaries`, prompt_injection `system_prompt_canaries`) and payment cards,
 * IBANs and SSNs. Evidence lands in the run record and the evidence ledger; a leak must not be copied there.
 */
import type { ScenarioTask } from '../../../core/domain/scenario.ts';
import { findPii } from './pii.ts';
import { maskSecret } from './redact.ts';
import { excerpt } from './text.ts';

const SENSITIVE = new Set(['card', 'iban', 'ssn', 'nino'] as const);

/** The canary values the task's metric params name. */
export function taskSecrets(task: ScenarioTask | undefined): string[] {
  const secrets: string[] = [];
  for (const ref of task?.metrics ?? []) {
    for (const key of ['canaries', 'system_prompt_canaries']) {
      const values = ref.params?.[key];
      if (Array.isArray(values)) for (const value of values) if (typeof value === 'string' && value.length > 0) secrets.push(value);
    }
  }
  return secrets;
}

/** An excerpt of `text` (at most `max` characters) with the task's canaries and card-like numbers masked. */
export function safeExcerpt(text: string, task: ScenarioTask | undefined, max = 200): string {
  let window = text.slice(0, max + 200);
  for (const secret of taskSecrets(task)) window = window.split(secret).join(`[${maskSecret(secret)}]`);
  const hits = findPii(window, SENSITIVE).sort((a, b) => b.index - a.index);
  for (const hit of hits) window = `${window.slice(0, hit.index)}${hit.masked}${window.slice(hit.index + hit.length)}`;
  return excerpt(window, max);
}
