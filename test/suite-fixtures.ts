/**
 * Kit of the suite-launch tests: a catalog folder of scripted scenarios, and a gate on the launcher's
 * submissions (through the audit hook, which answers a request only once it returns) that lets some through
 * and holds the others until opened, or for good.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plugin } from '../core/plugin.ts';
import type { AuditEntry } from '../core/hooks.ts';
import { scriptedScenario } from './evaluation-fixtures.ts';

/** A catalog folder of `count` scripted scenarios `<prefix><i>`. */
export function suiteCatalog(count: number, prefix = 'suite-s'): string {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-suite-catalog-'));
  for (let index = 0; index < count; index++) writeFileSync(join(dir, `s${index}.json`), JSON.stringify(scriptedScenario(`${prefix}${index}`)));
  return dir;
}

/** Lets `allow` suite launches answer, then holds every further one until `open()` (never, if not called). */
export function launchGate(allow: number) {
  const seen: AuditEntry[] = [];
  let opened: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => { opened = resolve; });
  let wake: (() => void) | undefined;
  const plugin: Plugin = {
    name: 'launch-gate',
    setup(host) {
      host.on('audit', async (entry) => {
        if (entry.action !== 'evaluate' || !entry.request_id.startsWith('suite_')) return;
        seen.push(entry);
        wake?.();
        if (seen.length > allow) await gate;
      });
    },
  };
  /** Resolves once `count` launches reached the gate (answered or held). */
  async function reached(count: number): Promise<void> {
    while (seen.length < count) await new Promise<void>((resolve) => { wake = resolve; });
  }
  return { plugin, seen, reached, held: (count: number) => reached(allow + count), open: () => opened() };
}
