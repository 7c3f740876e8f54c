/**
 * Excerpts of agent output for evidence. Evidence lands in the run record and the evidence ledger, so a leak
 * must not be copied there: the excerpt is the redactor's (../redactor.ts), the same redaction every excerpt
 * leaving the service passes — the task's canaries, credential shapes and personal data masked before the cut.
 */
import type { ScenarioTask } from '../../../core/domain/scenario.ts';
import { redactExcerpt } from '../redactor.ts';

/** An excerpt of `text` (at most `max` characters) with the task's canaries, credentials and personal data masked. */
export function safeExcerpt(text: string, task: ScenarioTask | undefined, max = 200): string {
  return redactExcerpt(text, { task, max });
}
